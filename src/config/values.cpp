#include "landlord/config/values.hpp"

#include "landlord/base/duration.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

namespace landlord::config {
namespace {

using std::chrono::milliseconds;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Expected<Duration, std::string> parse_duration(std::string_view text) {
  return landlord::parse_duration(text);
}

std::string format_duration(Duration duration) { return landlord::format_duration(duration); }

Expected<RenewalTime, std::string> parse_renewal_time(std::string_view text) {
  const bool bare_number = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return is_digit(c) || c == '.';
  });
  if (bare_number) {
    return unexpected("'" + std::string{text} + "' needs a '%' (" + std::string{text} +
                      "%) or a duration unit (" + std::string{text} + "s)");
  }
  if (!text.ends_with('%')) {
    auto duration = parse_duration(text);
    if (!duration) {
      return unexpected(duration.error() + ", or a percentage of the lease time: 50%");
    }
    return RenewalTime{*duration};
  }
  const auto number = text.substr(0, text.size() - 1);
  // from_chars for double is in GCC 12's libstdc++; accept only digits and one '.'.
  bool valid = !number.empty() && is_digit(number.front()) && is_digit(number.back());
  for (const char c : number) valid = valid && (is_digit(c) || c == '.');
  double percent = 0;
  if (valid) {
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), percent);
    valid = error == std::errc{} && end == number.data() + number.size();
  }
  if (!valid) return unexpected(std::string{"'"} + std::string{text} + "' is not a percentage like 50% or 87.5%");
  if (percent <= 0 || percent >= 100) {
    return unexpected(std::string{"percentage "} + std::string{text} + " must be above 0% and below 100%");
  }
  return RenewalTime{Fraction{percent / 100.0}};
}

std::string format_renewal_time(const RenewalTime& renewal) {
  if (const auto* fixed = std::get_if<Duration>(&renewal)) return format_duration(*fixed);
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                          std::get<Fraction>(renewal).value * 100.0);
  if (error != std::errc{}) return "?%";
  return std::string(buffer.data(), end) + "%";
}

Expected<Endpoint, std::string> parse_endpoint(std::string_view text, std::uint16_t default_port) {
  const auto colon = text.rfind(':');
  const auto address_text = colon == std::string_view::npos ? text : text.substr(0, colon);
  const auto address = Ipv4::parse(address_text);
  if (!address) {
    return unexpected(std::string{"'"} + std::string{address_text} +
                      "' is not an IPv4 address (write ADDRESS:PORT, e.g. 0.0.0.0:67)");
  }
  Endpoint endpoint{*address, default_port};
  if (colon == std::string_view::npos) return endpoint;
  const auto port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc{} || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return unexpected(std::string{"bad port '"} + std::string{port_text} + "'; use 1-65535");
  }
  endpoint.port = static_cast<std::uint16_t>(port);
  return endpoint;
}

std::string format_endpoint(const Endpoint& endpoint) {
  return endpoint.address.to_string() + ":" + std::to_string(endpoint.port);
}

Expected<AddressRange, std::string> parse_range(std::string_view text) {
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) {
    if (const auto block = Cidr::parse(text)) return AddressRange{block->network, block->broadcast()};
    return unexpected(std::string{"'"} + std::string{text} +
                      "' is not an address range (FIRST-LAST, e.g. 198.18.0.100-198.18.0.199) or a CIDR block");
  }
  const auto first = Ipv4::parse(trim(text.substr(0, dash)));
  const auto last = Ipv4::parse(trim(text.substr(dash + 1)));
  if (!first || !last) {
    return unexpected(std::string{"'"} + std::string{text} +
                      "' is not an address range (FIRST-LAST, e.g. 198.18.0.100-198.18.0.199)");
  }
  if (*last < *first) {
    return unexpected(std::string{"range "} + std::string{text} + " ends before it starts (first > last)");
  }
  return AddressRange{*first, *last};
}

std::string format_range(const AddressRange& range) {
  return range.first.to_string() + "-" + range.last.to_string();
}

}  // namespace landlord::config
