#include "landlord/base/ipv4.hpp"

#include <charconv>

namespace landlord {

std::optional<Ipv4> Ipv4::parse(std::string_view text) {
  std::uint32_t value = 0;
  const char* cursor = text.data();
  const char* const end = text.data() + text.size();
  for (int octet_index = 0; octet_index < 4; ++octet_index) {
    if (octet_index > 0) {
      if (cursor == end || *cursor != '.') return std::nullopt;
      ++cursor;
    }
    if (cursor == end || *cursor < '0' || *cursor > '9') return std::nullopt;
    unsigned octet = 0;
    const auto [next, error] = std::from_chars(cursor, end, octet);
    if (error != std::errc{} || octet > 255 || next - cursor > 3) return std::nullopt;
    value = value << 8 | octet;
    cursor = next;
  }
  if (cursor != end) return std::nullopt;
  return Ipv4{value};
}

std::string Ipv4::to_string() const {
  std::string text;
  text.reserve(15);
  for (int shift = 24; shift >= 0; shift -= 8) {
    text += std::to_string((value_ >> shift) & 0xff);
    if (shift > 0) text += '.';
  }
  return text;
}

std::optional<Cidr> Cidr::parse(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto address = Ipv4::parse(text.substr(0, slash));
  const auto length_text = text.substr(slash + 1);
  unsigned length = 0;
  const auto [next, error] =
      std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
  if (!address || error != std::errc{} || next != length_text.data() + length_text.size() ||
      length_text.empty() || length > 32) {
    return std::nullopt;
  }
  Cidr cidr{*address, static_cast<std::uint8_t>(length)};
  if ((address->to_uint() & ~cidr.mask()) != 0) return std::nullopt;  // host bits set
  return cidr;
}

std::string Cidr::to_string() const {
  return network.to_string() + "/" + std::to_string(prefix_length);
}

}  // namespace landlord
