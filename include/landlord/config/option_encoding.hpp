#pragma once
// DHCP option values (RFC 2132) encoded for the wire from their config forms, without YAML.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"

namespace landlord::config {

using OptionBytes = std::vector<std::uint8_t>;

// How a value is written in the config and laid out on the wire.
enum class OptionKind : std::uint8_t {
  Address,     // one IPv4 address, 4 bytes
  Addresses,   // one or more IPv4 addresses, 4 bytes each
  Text,        // bytes of the string, no terminating NUL (RFC 2132 §2)
  U8,
  U16,         // network byte order
  U32,         // network byte order
  DomainList,  // RFC 1035 §3.1 names, uncompressed (RFC 3397 allows that), for option 119
  Hex,         // raw bytes: "0a0b0c", "0a:0b:0c" or "0a 0b 0c"
  StaticRoutes,  // RFC 3442 routes, "DESTINATION/LENGTH via ROUTER" each (options 121, 249)
};

struct NamedOption {
  std::string_view name;  // the key under `options:`
  std::uint8_t code;
  OptionKind kind;
};

// The options known by name; any other goes through `custom:`.
std::span<const NamedOption> named_options();
const NamedOption* find_named_option(std::string_view name);

// Why a code may not be configured (the server sets it itself, or only clients send it);
// nullopt when it may be.
std::optional<std::string> reserved_option_reason(std::uint8_t code);

// The longest value one option instance carries; longer ones are refused rather than split.
inline constexpr std::size_t kMaxOptionLength = 255;

OptionBytes encode_addresses(std::span<const Ipv4> addresses);
OptionBytes encode_text(std::string_view text);
OptionBytes encode_u8(std::uint8_t value);
OptionBytes encode_u16(std::uint16_t value);
OptionBytes encode_u32(std::uint32_t value);
// Each name as length-prefixed labels ending in a zero byte; a trailing dot is allowed.
Expected<OptionBytes, std::string> encode_domain_list(std::span<const std::string> names);
Expected<OptionBytes, std::string> parse_hex_bytes(std::string_view text);

// One classless static route (RFC 3442): `destination` reached through `router`.
struct StaticRoute {
  Cidr destination;
  Ipv4 router;
};
// "198.18.2.0/24 via 198.18.0.1" (spaces around `via` as many as you like); 0.0.0.0/0 is the
// default route. The destination has no host bits set.
Expected<StaticRoute, std::string> parse_static_route(std::string_view text);
// Each route as its prefix length, the destination's significant octets (length / 8 rounded
// up) and the router's 4 bytes (RFC 3442 §3).
OptionBytes encode_static_routes(std::span<const StaticRoute> routes);

}  // namespace landlord::config
