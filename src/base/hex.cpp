#include "landlord/base/hex.hpp"

#include "landlord/base/assert.hpp"

namespace landlord {
namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string_view write_colon_hex(std::span<const std::uint8_t> bytes, std::span<char> out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const std::size_t size = colon_hex_size(bytes.size());
  LANDLORD_ASSERT(out.size() >= size);
  char* next = out.data();
  for (std::size_t index = 0; index < bytes.size(); ++index) {
    if (index > 0) *next++ = ':';
    *next++ = kDigits[bytes[index] >> 4];
    *next++ = kDigits[bytes[index] & 0xf];
  }
  return {out.data(), size};
}

std::string to_colon_hex(std::span<const std::uint8_t> bytes) {
  std::string text(colon_hex_size(bytes.size()), ':');
  write_colon_hex(bytes, text);
  return text;
}

std::optional<std::size_t> parse_colon_hex(std::string_view text, std::span<std::uint8_t> out) {
  if (text.empty()) return 0;
  // "aa" or "aa:bb:..": 3n-1 characters for n bytes.
  if ((text.size() + 1) % 3 != 0) return std::nullopt;
  const std::size_t count = (text.size() + 1) / 3;
  if (count > out.size()) return std::nullopt;
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t at = index * 3;
    if (index > 0 && text[at - 1] != ':' && text[at - 1] != '-') return std::nullopt;
    const int high = hex_value(text[at]);
    const int low = hex_value(text[at + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[index] = static_cast<std::uint8_t>(high << 4 | low);
  }
  return count;
}

}  // namespace landlord
