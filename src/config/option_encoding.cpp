#include "landlord/config/option_encoding.hpp"

#include <array>
#include <cctype>
#include <map>

#include "landlord/base/assert.hpp"

namespace landlord::config {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_label_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::optional<std::string> reserved_option_reason(std::uint8_t code) {
  switch (code) {
    case 0: return "code 0 is the pad option";
    case 255: return "code 255 is the end option";
    case 1: return "option 1 (subnet mask) is implied by the subnet";
    case 50: return "option 50 (requested address) is sent by clients only";
    case 51: return "option 51 (lease time) is set from 'lease: time'";
    case 52: return "option 52 (overload) is managed by the message encoder";
    case 53: return "option 53 (message type) is set by the server per reply";
    case 54: return "option 54 (server identifier) is set from 'server: server-id'";
    case 55: return "option 55 (parameter request list) is sent by clients only";
    case 56: return "option 56 (message) is set by the server per reply";
    case 57: return "option 57 (maximum message size) is sent by clients only";
    case 58: return "option 58 (renewal time) is set from 'lease: renew'";
    case 59: return "option 59 (rebinding time) is set from 'lease: rebind'";
    case 61: return "option 61 (client identifier) is sent by clients only";
    case 82: return "option 82 (relay agent information) belongs to relay agents";
    default: return std::nullopt;
  }
}

OptionBytes encode_addresses(std::span<const Ipv4> addresses) {
  OptionBytes bytes;
  bytes.reserve(addresses.size() * 4);
  for (const auto address : addresses) {
    const auto value = encode_u32(address.to_uint());
    bytes.insert(bytes.end(), value.begin(), value.end());
  }
  return bytes;
}

OptionBytes encode_text(std::string_view text) { return OptionBytes(text.begin(), text.end()); }

OptionBytes encode_u8(std::uint8_t value) { return {value}; }

OptionBytes encode_u16(std::uint16_t value) {
  return {static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value)};
}

OptionBytes encode_u32(std::uint32_t value) {
  return {static_cast<std::uint8_t>(value >> 24), static_cast<std::uint8_t>(value >> 16),
          static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value)};
}

OptionBytes encode_i32(std::int32_t value) { return encode_u32(static_cast<std::uint32_t>(value)); }

OptionBytes encode_bool(bool value) { return {static_cast<std::uint8_t>(value ? 1 : 0)}; }

namespace {

// The labels of one name, checked; a trailing dot is allowed.
Expected<std::vector<std::string_view>, std::string> split_labels(std::string_view name) {
  std::string_view rest = name;
  if (rest.ends_with('.')) rest.remove_suffix(1);
  if (rest.empty()) return unexpected(std::string{"empty domain name"});
  if (rest.size() > 253) {
    return unexpected("domain name '" + std::string{name} + "' is longer than 253 characters");
  }
  std::vector<std::string_view> labels;
  while (true) {
    const auto dot = rest.find('.');
    const auto label = rest.substr(0, dot);
    if (label.empty()) return unexpected("domain name '" + std::string{name} + "' has an empty label");
    if (label.size() > 63) {
      return unexpected("domain name '" + std::string{name} + "' has a label longer than 63 characters");
    }
    for (const char c : label) {
      if (!is_label_character(c)) {
        return unexpected("domain name '" + std::string{name} + "' has the character '" +
                          std::string(1, c) + "'; use letters, digits and '-'");
      }
    }
    labels.push_back(label);
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  return labels;
}

// A name's suffix from label `from` on, lower-cased: DNS names compare without case.
std::string suffix_key(const std::vector<std::string_view>& labels, std::size_t from) {
  std::string key;
  for (std::size_t i = from; i < labels.size(); ++i) {
    for (const char c : labels[i]) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    key += '.';
  }
  return key;
}

// Pointers carry 14 bits of offset (RFC 1035 §4.1.4).
constexpr std::size_t kMaxPointerOffset = 0x3fff;

}  // namespace

Expected<OptionBytes, std::string> encode_domain_list(std::span<const std::string> names) {
  OptionBytes bytes;
  std::map<std::string, std::size_t> written;  // suffix → its offset in `bytes`
  for (const auto& name : names) {
    auto labels = split_labels(name);
    if (!labels) return unexpected(labels.error());
    bool pointed = false;
    for (std::size_t i = 0; i < labels->size(); ++i) {
      const std::string key = suffix_key(*labels, i);
      if (const auto earlier = written.find(key); earlier != written.end()) {
        bytes.push_back(static_cast<std::uint8_t>(0xc0 | earlier->second >> 8));
        bytes.push_back(static_cast<std::uint8_t>(earlier->second));
        pointed = true;
        break;
      }
      if (bytes.size() <= kMaxPointerOffset) written.emplace(key, bytes.size());
      const std::string_view label = (*labels)[i];
      bytes.push_back(static_cast<std::uint8_t>(label.size()));
      bytes.insert(bytes.end(), label.begin(), label.end());
    }
    if (!pointed) bytes.push_back(0);
  }
  return bytes;
}

Expected<OptionBytes, std::string> encode_domain_name(std::string_view name) {
  auto labels = split_labels(name);
  if (!labels) return unexpected(labels.error());
  OptionBytes bytes;
  for (const std::string_view label : *labels) {
    bytes.push_back(static_cast<std::uint8_t>(label.size()));
    bytes.insert(bytes.end(), label.begin(), label.end());
  }
  bytes.push_back(0);
  return bytes;
}

Expected<OptionBytes, std::string> encode_client_fqdn(std::string_view name) {
  constexpr std::uint8_t kFlagE = 0x04;  // the name is in canonical wire format
  constexpr std::uint8_t kFlagN = 0x08;  // the server performs no DNS updates
  auto encoded = encode_domain_name(name);
  if (!encoded) return unexpected(encoded.error());
  OptionBytes bytes{kFlagE | kFlagN, 255, 255};
  bytes.insert(bytes.end(), encoded->begin(), encoded->end());
  return bytes;
}

OptionBytes encode_sip_addresses(std::span<const Ipv4> addresses) {
  OptionBytes bytes{1};
  const OptionBytes encoded = encode_addresses(addresses);
  bytes.insert(bytes.end(), encoded.begin(), encoded.end());
  return bytes;
}

Expected<OptionBytes, std::string> encode_sip_names(std::span<const std::string> names) {
  auto encoded = encode_domain_list(names);
  if (!encoded) return unexpected(encoded.error());
  OptionBytes bytes{0};
  bytes.insert(bytes.end(), encoded->begin(), encoded->end());
  return bytes;
}

OptionBytes encode_sub_options(std::span<const SubOption> sub_options) {
  OptionBytes bytes;
  for (const SubOption& sub_option : sub_options) {
    LANDLORD_ASSERT(sub_option.value.size() <= kMaxOptionLength);
    bytes.push_back(sub_option.code);
    bytes.push_back(static_cast<std::uint8_t>(sub_option.value.size()));
    bytes.insert(bytes.end(), sub_option.value.begin(), sub_option.value.end());
  }
  return bytes;
}

Expected<OptionBytes, std::string> parse_hex_bytes(std::string_view text) {
  OptionBytes bytes;
  std::size_t index = 0;
  while (index < text.size()) {
    const char c = text[index];
    if (c == ':' || c == ' ' || c == '-') {
      ++index;
      continue;
    }
    if (index + 1 >= text.size() || hex_value(c) < 0 || hex_value(text[index + 1]) < 0) {
      return unexpected("'" + std::string{text} +
                        "' is not hex bytes (two hex digits per byte, e.g. \"0a0b\" or \"0a:0b\")");
    }
    bytes.push_back(static_cast<std::uint8_t>(hex_value(c) << 4 | hex_value(text[index + 1])));
    index += 2;
  }
  return bytes;
}

Expected<StaticRoute, std::string> parse_static_route(std::string_view text) {
  const auto fail = [&] {
    return unexpected("'" + std::string{text} +
                      "' is not a route: write DESTINATION/LENGTH via ROUTER, e.g. "
                      "\"198.18.2.0/24 via 198.18.0.1\" (0.0.0.0/0 for the default route)");
  };
  const auto via = text.find(" via ");
  if (via == std::string_view::npos) return fail();
  const auto trim = [](std::string_view part) {
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    return part;
  };
  const std::string_view destination_text = trim(text.substr(0, via));
  const std::string_view router_text = trim(text.substr(via + 5));
  const auto router = Ipv4::parse(router_text);
  if (!router) return fail();
  const auto destination = Cidr::parse(destination_text);
  if (!destination) {
    // Cidr::parse refuses host bits too: say which, since that is the likely mistake.
    const auto slash = destination_text.find('/');
    if (slash != std::string_view::npos && Ipv4::parse(destination_text.substr(0, slash))) {
      return unexpected("route destination '" + std::string{destination_text} +
                        "' has host bits set or a bad length (0-32)");
    }
    return fail();
  }
  return StaticRoute{*destination, *router};
}

OptionBytes encode_static_routes(std::span<const StaticRoute> routes) {
  OptionBytes bytes;
  for (const StaticRoute& route : routes) {
    const std::uint8_t length = route.destination.prefix_length;
    bytes.push_back(length);
    const OptionBytes network = encode_u32(route.destination.network.to_uint());
    bytes.insert(bytes.end(), network.begin(), network.begin() + (length + 7) / 8);
    const OptionBytes router = encode_u32(route.router.to_uint());
    bytes.insert(bytes.end(), router.begin(), router.end());
  }
  return bytes;
}

}  // namespace landlord::config
