#include "hex.hpp"

namespace landlord::detail {
namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string to_colon_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes.size() * 3);
  for (std::size_t index = 0; index < bytes.size(); ++index) {
    if (index > 0) text += ':';
    text += kDigits[bytes[index] >> 4];
    text += kDigits[bytes[index] & 0xf];
  }
  return text;
}

std::optional<std::vector<std::uint8_t>> parse_colon_hex(std::string_view text) {
  std::vector<std::uint8_t> bytes;
  std::size_t index = 0;
  while (index < text.size()) {
    if (!bytes.empty()) {
      if (text[index] != ':' && text[index] != '-') return std::nullopt;
      ++index;
    }
    if (index + 2 > text.size()) return std::nullopt;
    const int high = hex_value(text[index]);
    const int low = hex_value(text[index + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<std::uint8_t>(high << 4 | low));
    index += 2;
  }
  if (bytes.empty()) return std::nullopt;
  return bytes;
}

}  // namespace landlord::detail
