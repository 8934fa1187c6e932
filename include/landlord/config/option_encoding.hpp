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
#include "landlord/config/option_catalogue.hpp"

namespace landlord::config {

using OptionBytes = std::vector<std::uint8_t>;

// Why a code may not be configured (the server sets it itself, or only clients send it);
// nullopt when it may be.
std::optional<std::string> reserved_option_reason(std::uint8_t code);

// The longest value one option instance carries; longer ones are refused unless their type may
// be split (type_may_be_split).
inline constexpr std::size_t kMaxOptionLength = 255;

OptionBytes encode_addresses(std::span<const Ipv4> addresses);
OptionBytes encode_text(std::string_view text);
OptionBytes encode_u8(std::uint8_t value);
OptionBytes encode_u16(std::uint16_t value);
OptionBytes encode_u32(std::uint32_t value);
OptionBytes encode_i32(std::int32_t value);
OptionBytes encode_bool(bool value);
// Each name as length-prefixed labels ending in a zero byte; a trailing dot is allowed. A name
// whose tail was already written ends in a pointer to it instead (RFC 1035 §4.1.4, as RFC 3397
// §2 asks for option 119; offsets count from the start of the option value).
Expected<OptionBytes, std::string> encode_domain_list(std::span<const std::string> names);
// One name, uncompressed (RFC 4702 §2.3.1 canonical wire format).
Expected<OptionBytes, std::string> encode_domain_name(std::string_view name);
// Option 81 as a server sends it (RFC 4702 §2): flags E (wire-format name) and N (this server
// updates no DNS records), both RCODEs 255, then the name.
Expected<OptionBytes, std::string> encode_client_fqdn(std::string_view name);
// Option 120 (RFC 3361 §3): encoding byte 1 then the addresses, or 0 then the names.
OptionBytes encode_sip_addresses(std::span<const Ipv4> addresses);
Expected<OptionBytes, std::string> encode_sip_names(std::span<const std::string> names);

// One sub-option of option 43 (RFC 2132 §8.4): code, length, value.
struct SubOption {
  std::uint8_t code;
  OptionBytes value;
};
// Each as code, length, value; each value at most 255 bytes (the caller checks).
OptionBytes encode_sub_options(std::span<const SubOption> sub_options);
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
