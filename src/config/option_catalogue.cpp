#include "landlord/config/option_catalogue.hpp"

#include <array>

namespace landlord::config {
namespace {

using T = OptionType;

// RFC 2132 §3-§8 and §9.13 (all it defines that a server configures), then the later options
// people set (what dnsmasq can name, and a few more). Codes the server manages itself (1, 50-59,
// 61, 82) are not here: reserved_option_reason() explains them.
constexpr std::array kCatalogue = std::to_array<CatalogueEntry>({
    {"time-offset", 2, T::I32},
    {"routers", 3, T::IpList},
    {"time-servers", 4, T::IpList},
    {"ien116-name-servers", 5, T::IpList},
    {"dns-servers", 6, T::IpList},
    {"log-servers", 7, T::IpList},
    {"cookie-servers", 8, T::IpList},
    {"lpr-servers", 9, T::IpList},
    {"impress-servers", 10, T::IpList},
    {"resource-location-servers", 11, T::IpList},
    {"host-name", 12, T::Text},
    {"boot-file-size", 13, T::U16},
    {"merit-dump-file", 14, T::Text},
    {"domain-name", 15, T::Text},
    {"swap-server", 16, T::Ip},
    {"root-path", 17, T::Text},
    {"extensions-path", 18, T::Text},
    {"ip-forwarding", 19, T::Bool},
    {"non-local-source-routing", 20, T::Bool},
    {"policy-filter", 21, T::IpPairs},
    {"max-datagram-reassembly", 22, T::U16, 576},  // RFC 2132 §4.1: at least 576
    {"default-ip-ttl", 23, T::U8, 1},
    {"path-mtu-aging-timeout", 24, T::U32},
    {"path-mtu-plateau-table", 25, T::U16List, 68},  // RFC 2132 §5.2: each at least 68
    {"interface-mtu", 26, T::U16, 68},               // RFC 2132 §5.1: at least 68 (RFC 791)
    {"all-subnets-local", 27, T::Bool},
    {"broadcast-address", 28, T::Ip},
    {"perform-mask-discovery", 29, T::Bool},
    {"mask-supplier", 30, T::Bool},
    {"router-discovery", 31, T::Bool},
    {"router-solicitation-address", 32, T::Ip},
    {"static-routes", 33, T::IpPairs},
    {"trailer-encapsulation", 34, T::Bool},
    {"arp-cache-timeout", 35, T::U32},
    {"ieee802-3-encapsulation", 36, T::Bool},
    {"default-tcp-ttl", 37, T::U8, 1},
    {"tcp-keepalive-interval", 38, T::U32},
    {"tcp-keepalive-garbage", 39, T::Bool},
    {"nis-domain", 40, T::Text},
    {"nis-servers", 41, T::IpList},
    {"ntp-servers", 42, T::IpList},
    {"vendor-specific", 43, T::SubOptions},
    {"netbios-name-servers", 44, T::IpList},
    {"netbios-dd-servers", 45, T::IpList},
    {"netbios-node-type", 46, T::U8, 1},
    {"netbios-scope", 47, T::Text},
    {"x-font-servers", 48, T::IpList},
    {"x-display-managers", 49, T::IpList},
    {"vendor-class", 60, T::Text},  // a PXE server answers with "PXEClient"
    {"netware-ip-domain", 62, T::Text, 0, "RFC 2242"},
    {"nisplus-domain", 64, T::Text},
    {"nisplus-servers", 65, T::IpList},
    {"tftp-server-name", 66, T::Text},
    {"boot-file-name", 67, T::Text},
    {"mobile-ip-home-agents", 68, T::IpList},
    {"smtp-servers", 69, T::IpList},
    {"pop3-servers", 70, T::IpList},
    {"nntp-servers", 71, T::IpList},
    {"www-servers", 72, T::IpList},
    {"finger-servers", 73, T::IpList},
    {"irc-servers", 74, T::IpList},
    {"streettalk-servers", 75, T::IpList},
    {"streettalk-directory-assistance-servers", 76, T::IpList},
    {"client-fqdn", 81, T::Fqdn, 0, "RFC 4702"},
    {"nds-servers", 85, T::IpList, 0, "RFC 2241"},
    {"nds-tree-name", 86, T::Text, 0, "RFC 2241"},
    {"nds-context", 87, T::Text, 0, "RFC 2241"},
    {"posix-timezone", 100, T::Text, 0, "RFC 4833"},
    {"tzdb-timezone", 101, T::Text, 0, "RFC 4833"},
    {"ipv6-only-preferred", 108, T::U32, 0, "RFC 8925"},
    {"captive-portal", 114, T::Text, 0, "RFC 8910"},
    {"domain-search", 119, T::DomainList, 0, "RFC 3397"},
    {"sip-servers", 120, T::SipServers, 0, "RFC 3361"},
    {"classless-static-routes", 121, T::Routes, 0, "RFC 3442"},
    {"tftp-server-address", 150, T::IpList, 0, "RFC 5859"},
    {"pxelinux-config-file", 209, T::Text, 0, "RFC 5071"},
    {"pxelinux-path-prefix", 210, T::Text, 0, "RFC 5071"},
    {"pxelinux-reboot-time", 211, T::U32, 0, "RFC 5071"},
    // Windows before RFC 3442 reads the same routes from code 249.
    {"ms-classless-static-routes", 249, T::Routes, 0, "Microsoft"},
    {"wpad-url", 252, T::Text, 0, "WPAD draft"},
});

struct TypeInfo {
  OptionType type;
  std::string_view name;
  std::string_view syntax;
};

constexpr std::array kTypes = std::to_array<TypeInfo>({
    {T::Ip, "ip", "address"},
    {T::IpList, "ip-list", "address or list of addresses"},
    {T::IpPairs, "ip-pairs", "list of `\"ADDRESS ADDRESS\"` pairs"},
    {T::U8, "u8", "integer"},
    {T::U16, "u16", "integer"},
    {T::U32, "u32", "integer"},
    {T::I32, "i32", "integer, may be negative"},
    {T::Bool, "bool", "true or false"},
    {T::Text, "text", "text"},
    {T::U16List, "u16-list", "integer or list of integers"},
    {T::DomainList, "domain-list", "domain name or list of names"},
    {T::Routes, "routes", "route or list of `DESTINATION/LENGTH via ROUTER`"},
    {T::SipServers, "sip-servers", "addresses, or domain names (not mixed)"},
    {T::Fqdn, "fqdn", "domain name"},
    {T::SubOptions, "sub-options", "list of `{code: 1-254, <type>: value}`"},
    {T::Hex, "hex", "hex bytes `\"0a:0b\"`"},
});

constexpr std::array kAllTypes = [] {
  std::array<OptionType, kTypes.size()> types{};
  for (std::size_t i = 0; i < kTypes.size(); ++i) types[i] = kTypes[i].type;
  return types;
}();

const TypeInfo& info(OptionType type) {
  for (const auto& entry : kTypes) {
    if (entry.type == type) return entry;
  }
  return kTypes.back();
}

}  // namespace

std::string_view type_name(OptionType type) { return info(type).name; }
std::string_view type_syntax(OptionType type) { return info(type).syntax; }
std::span<const OptionType> all_types() { return kAllTypes; }

std::optional<OptionType> type_from_name(std::string_view name) {
  if (name == "ips") return OptionType::IpList;  // the name `custom:` has always taken
  for (const auto& entry : kTypes) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

std::span<const CatalogueEntry> option_catalogue() { return kCatalogue; }

const CatalogueEntry* find_option(std::string_view name) {
  for (const auto& entry : kCatalogue) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const CatalogueEntry* find_option(std::uint8_t code) {
  for (const auto& entry : kCatalogue) {
    if (entry.code == code) return &entry;
  }
  return nullptr;
}

std::uint64_t type_maximum(OptionType type) {
  switch (type) {
    case T::U8: return 0xff;
    case T::U16:
    case T::U16List: return 0xffff;
    case T::U32: return 0xffffffff;
    default: return 0;
  }
}

bool type_may_be_split(OptionType type) { return type == T::DomainList || type == T::Routes; }

std::string catalogue_markdown() {
  std::string table = "| name | code | type | value | defined in |\n|---|---|---|---|---|\n";
  for (const auto& entry : kCatalogue) {
    std::string value{type_syntax(entry.type)};
    if (const std::uint64_t maximum = type_maximum(entry.type); maximum != 0) {
      value += " " + std::to_string(entry.minimum) + "-" + std::to_string(maximum);
    }
    table += "| `" + std::string{entry.name} + "` | " + std::to_string(entry.code) + " | " +
             std::string{type_name(entry.type)} + " | " + value + " | " +
             std::string{entry.reference} + " |\n";
  }
  return table;
}

}  // namespace landlord::config
