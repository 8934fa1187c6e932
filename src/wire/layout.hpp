#pragma once
// Byte offsets of the BOOTP header fields (RFC 2131 §2, figure 1), shared by parse and build.
#include <array>
#include <cstddef>
#include <cstdint>

namespace landlord::wire::layout {

inline constexpr std::size_t kOp = 0;
inline constexpr std::size_t kHtype = 1;
inline constexpr std::size_t kHlen = 2;
inline constexpr std::size_t kHops = 3;
inline constexpr std::size_t kXid = 4;
inline constexpr std::size_t kSecs = 8;
inline constexpr std::size_t kFlags = 10;
inline constexpr std::size_t kCiaddr = 12;
inline constexpr std::size_t kYiaddr = 16;
inline constexpr std::size_t kSiaddr = 20;
inline constexpr std::size_t kGiaddr = 24;
inline constexpr std::size_t kChaddr = 28;
inline constexpr std::size_t kSname = 44;
inline constexpr std::size_t kSnameSize = 64;
inline constexpr std::size_t kFile = 108;
inline constexpr std::size_t kFileSize = 128;
inline constexpr std::size_t kCookie = 236;
inline constexpr std::size_t kOptions = 240;

inline constexpr std::array<std::uint8_t, 4> kMagicCookie{99, 130, 83, 99};

// Option 52's bits (RFC 2132 §9.3).
inline constexpr std::uint8_t kOverloadFile = 1;
inline constexpr std::uint8_t kOverloadSname = 2;

inline constexpr std::size_t kMaxInstanceLength = 255;  // one option instance (RFC 3396 splits more)

}  // namespace landlord::wire::layout
