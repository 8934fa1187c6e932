#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace landlord {

// A client's link-layer address: htype + up to 16 bytes of chaddr (RFC 2131 §2).
// Ethernet (htype 1, hlen 6) is the common case and is what the config's `mac:` means.
class HardwareAddress {
 public:
  static constexpr std::uint8_t kEthernet = 1;
  static constexpr std::size_t kMaxLength = 16;

  constexpr HardwareAddress() = default;
  HardwareAddress(std::uint8_t type, std::span<const std::uint8_t> bytes);

  // "02:00:00:00:00:10" (also '-' separated); Ethernet type, 1-16 bytes.
  static std::optional<HardwareAddress> parse(std::string_view text);

  std::uint8_t type() const { return type_; }
  std::uint8_t length() const { return length_; }
  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), length_}; }
  bool empty() const { return length_ == 0; }
  std::string to_string() const;  // lower-case colon hex

  bool operator==(const HardwareAddress& other) const {
    return type_ == other.type_ && length_ == other.length_ &&
           std::equal(bytes_.begin(), bytes_.begin() + length_, other.bytes_.begin());
  }

 private:
  std::array<std::uint8_t, kMaxLength> bytes_{};
  std::uint8_t type_ = 0;
  std::uint8_t length_ = 0;
};

}  // namespace landlord

template <>
struct std::hash<landlord::HardwareAddress> {
  std::size_t operator()(const landlord::HardwareAddress& address) const noexcept;
};
