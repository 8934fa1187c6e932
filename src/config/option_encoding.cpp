#include "landlord/config/option_encoding.hpp"

#include <array>

namespace landlord::config {
namespace {

constexpr std::array<NamedOption, 11> kNamedOptions{{
    {"routers", 3, OptionKind::Addresses},
    {"dns-servers", 6, OptionKind::Addresses},
    {"domain-name", 15, OptionKind::Text},
    {"interface-mtu", 26, OptionKind::U16},
    {"broadcast-address", 28, OptionKind::Address},
    {"ntp-servers", 42, OptionKind::Addresses},
    {"tftp-server-name", 66, OptionKind::Text},
    {"boot-file-name", 67, OptionKind::Text},
    {"domain-search", 119, OptionKind::DomainList},
    {"classless-static-routes", 121, OptionKind::StaticRoutes},
    // Windows before RFC 3442 reads the same routes from code 249.
    {"ms-classless-static-routes", 249, OptionKind::StaticRoutes},
}};

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

std::span<const NamedOption> named_options() { return kNamedOptions; }

const NamedOption* find_named_option(std::string_view name) {
  for (const auto& option : kNamedOptions) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

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

Expected<OptionBytes, std::string> encode_domain_list(std::span<const std::string> names) {
  OptionBytes bytes;
  for (const auto& name : names) {
    std::string_view rest = name;
    if (rest.ends_with('.')) rest.remove_suffix(1);
    if (rest.empty()) return unexpected(std::string{"empty domain name"});
    if (rest.size() > 253) return unexpected("domain name '" + name + "' is longer than 253 characters");
    while (true) {
      const auto dot = rest.find('.');
      const auto label = rest.substr(0, dot);
      if (label.empty()) return unexpected("domain name '" + name + "' has an empty label");
      if (label.size() > 63) {
        return unexpected("domain name '" + name + "' has a label longer than 63 characters");
      }
      for (const char c : label) {
        if (!is_label_character(c)) {
          return unexpected("domain name '" + name + "' has the character '" + std::string(1, c) +
                            "'; use letters, digits and '-'");
        }
      }
      bytes.push_back(static_cast<std::uint8_t>(label.size()));
      bytes.insert(bytes.end(), label.begin(), label.end());
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
    bytes.push_back(0);
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
