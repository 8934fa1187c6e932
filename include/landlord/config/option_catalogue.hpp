#pragma once
// The options landlord knows by name: one table that the loader reads values with, the encoder
// lays out by, and docs/configuration.md is checked against (catalogue_markdown()).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace landlord::config {

// How a value is written in the config and laid out on the wire.
enum class OptionType : std::uint8_t {
  Ip,          // one IPv4 address, 4 bytes
  IpList,      // one or more addresses, 4 bytes each
  IpPairs,     // pairs "A B" (address and mask, or destination and router), 8 bytes each
  U8,
  U16,         // network byte order
  U32,         // network byte order
  I32,         // signed, two's complement, network byte order (option 2)
  Bool,        // true/false, 1 byte 1/0
  Text,        // the bytes of the string, no NUL (RFC 2132 §2)
  U16List,     // one or more 16-bit integers
  DomainList,  // RFC 1035 names with RFC 1035 §4.1.4 compression (RFC 3397), e.g. option 119
  Routes,      // RFC 3442 "DESTINATION/LENGTH via ROUTER" (options 121, 249)
  SipServers,  // RFC 3361: addresses (encoding 1) or domain names (encoding 0)
  Fqdn,        // RFC 4702 client FQDN: flags, two RCODEs and a wire-format name
  SubOptions,  // {code, <type>: value} items, each a code/length/value (option 43)
  Hex,         // raw bytes: "0a0b0c", "0a:0b:0c" or "0a 0b 0c"
};

// The word for a type in `custom:` / `vendor-specific:` entries and in the docs ("ip-list").
std::string_view type_name(OptionType type);
std::optional<OptionType> type_from_name(std::string_view name);  // also "ips" for ip-list
std::span<const OptionType> all_types();
// What a value of the type looks like in YAML, for the docs and error messages.
std::string_view type_syntax(OptionType type);

struct CatalogueEntry {
  std::string_view name;  // the key under `options:`
  std::uint8_t code;
  OptionType type;
  std::uint32_t minimum = 0;  // integer types: the smallest value that makes sense
  std::string_view reference = "RFC 2132";
};

std::span<const CatalogueEntry> option_catalogue();
const CatalogueEntry* find_option(std::string_view name);
const CatalogueEntry* find_option(std::uint8_t code);

// The largest value of an integer type; 0 for other types.
std::uint64_t type_maximum(OptionType type);
// Values of these types may exceed 255 bytes: the encoder splits them (RFC 3396), as RFC 3397
// (119) and RFC 3442 (121) expect. Any other value must fit one option instance.
bool type_may_be_split(OptionType type);
inline constexpr std::size_t kMaxSplitOptionLength = 1024;

// The catalogue as the Markdown table in docs/configuration.md (name, code, type, reference).
std::string catalogue_markdown();

}  // namespace landlord::config
