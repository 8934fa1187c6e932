#pragma once
// Hex text, formatted here only: colon hex is the one text form of hardware addresses and
// client ids (config, store, logs); plain hex for other bytes and for numbers.
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
// to_colon_hex appended to `out`.
void append_colon_hex(std::string& out, std::span<const std::uint8_t> bytes);

// Two lower-case hex digits per byte, no separator: "0200abcd".
std::string to_hex(std::span<const std::uint8_t> bytes);
// `value` in lower-case hex digits, at least `min_digits` of them (zeros in front): "1f4", or
// "001f" for 4 (an HTTP chunk's size, JSON's \u escape).
void append_hex(std::string& out, std::uint64_t value, std::size_t min_digits = 1);

// Two hex digits per byte, separated by ':' or '-'. Returns how many bytes were written to
// `out` (0 for empty text), or nullopt when the text is malformed or longer than `out`.
// Allocates nothing.
std::optional<std::size_t> parse_colon_hex(std::string_view text, std::span<std::uint8_t> out);

}  // namespace landlord
