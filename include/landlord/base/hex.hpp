#pragma once
// Colon hex, the one text form of hardware addresses and client ids (config, store, logs).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace landlord {

// Lower-case, colon-separated: "02:00:00:ab:cd:10".
std::string to_colon_hex(std::span<const std::uint8_t> bytes);
// The same into `out`, which holds at least colon_hex_size(bytes.size()) characters; returns the
// text written. Allocates nothing (the store formats every record it writes).
constexpr std::size_t colon_hex_size(std::size_t bytes) { return bytes == 0 ? 0 : bytes * 3 - 1; }
std::string_view write_colon_hex(std::span<const std::uint8_t> bytes, std::span<char> out);

// Two hex digits per byte, separated by ':' or '-'. Returns how many bytes were written to
// `out` (0 for empty text), or nullopt when the text is malformed or longer than `out`.
// Allocates nothing.
std::optional<std::size_t> parse_colon_hex(std::string_view text, std::span<std::uint8_t> out);

}  // namespace landlord
