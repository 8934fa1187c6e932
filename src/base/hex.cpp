#include "landlord/base/hex.hpp"

#include "landlord/base/assert.hpp"

namespace landlord {
namespace {
constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string_view write_colon_hex(std::span<const std::uint8_t> bytes, std::span<char> out) {
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

void append_colon_hex(std::string& out, std::span<const std::uint8_t> bytes) {
  const std::size_t at = out.size();
  out.resize(at + colon_hex_size(bytes.size()));
  write_colon_hex(bytes, std::span<char>(out).subspan(at));
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const std::uint8_t byte : bytes) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 0xf];
  }
  return text;
}

void append_hex(std::string& out, std::uint64_t value, std::size_t min_digits) {
  char digits[16];
  std::size_t count = 0;
  do {
    digits[count++] = kDigits[value & 0xf];
    value >>= 4;
  } while (value != 0);
  for (; count < min_digits; --min_digits) out += '0';
  while (count > 0) out += digits[--count];
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
