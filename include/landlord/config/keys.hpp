#pragma once
// Every key the configuration file accepts, map by map. The loader checks each map against
// these lists (unknown keys are errors), and the landlord.yaml(5) man page is tested against
// them, so the reference cannot drift from what is parsed.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace landlord::config::keys {

using KeyList = std::span<const std::string_view>;

inline constexpr std::string_view kTopLevel[] = {"server",  "store",   "lease",  "options", "classes",
                                                 "subnets", "control", "events", "peers",
                                                 "log",     "ddns"};
inline constexpr std::string_view kServer[] = {"interfaces", "listen", "server-id",
                                               "authoritative", "user",
                                               "discover-max-wait", "classless-default-route"};
inline constexpr std::string_view kStore[] = {"type",          "path",      "url",
                                              "sync-interval", "batch-max", "batch-wait", "batch-linger",
                                              "max-clock-skew", "sync-notify", "timeout"};
inline constexpr std::string_view kLease[] = {"time", "renew", "rebind", "offer-hold",
                                              "decline-hold", "min", "max"};
// An `options:` map takes any name of the option catalogue (config/option_catalogue.hpp, checked
// against docs/configuration.md); the man page documents these common ones and the BOOTP header
// fields, and keys_test checks that each one is a catalogue name or a header field.
inline constexpr std::string_view kOptions[] = {
    "routers", "dns-servers", "domain-name", "interface-mtu", "broadcast-address",
    "ntp-servers", "tftp-server-name", "boot-file-name", "domain-search",
    "classless-static-routes", "ms-classless-static-routes", "custom",
    "next-server", "boot-file", "server-hostname"};
inline constexpr std::string_view kCustomOption[] = {"code", "text", "ip",  "ips",
                                                     "u8",   "u16",  "u32", "hex"};
inline constexpr std::string_view kSubnet[] = {"subnet",  "pools",        "relays",     "options",
                                               "lease",   "reservations", "interfaces", "offer-ping",
                                               "admission", "primary", "ddns"};
inline constexpr std::string_view kAdmission[] = {
    "verify-chaddr",  "client-rate",    "client-burst",      "relay-rate",
    "relay-burst",    "circuit-rate",   "circuit-burst",     "circuit-leases",
    "remote-leases",  "relay-leases",   "mac-prefix-length", "mac-prefix-leases",
    "source-offers",  "source-leases"};
inline constexpr std::string_view kReservation[] = {"mac",     "client-id", "circuit-id", "remote-id",
                                                    "address", "hostname",  "options"};
inline constexpr std::string_view kPool[] = {"range", "options", "classes", "lease"};
inline constexpr std::string_view kPoolLease[] = {"shrink-above", "to"};
inline constexpr std::string_view kClass[] = {"name", "match", "options", "lease"};
inline constexpr std::string_view kClassMatch[] = {
    "vendor-class", "user-class", "client-architecture", "circuit-id", "remote-id",
    "hardware-address", "giaddr"};
inline constexpr std::string_view kControl[] = {"socket", "listen", "token-file"};
inline constexpr std::string_view kEvents[] = {"exec"};
inline constexpr std::string_view kLog[] = {"level"};
inline constexpr std::string_view kPeers[] = {"servers", "answer-all-after"};
inline constexpr std::string_view kDdns[] = {
    "server",   "key-file", "key-name", "forward-zone", "reverse-zone", "ttl", "ttl-min", "ttl-max",
    "conflict-resolution", "override-client-update", "override-no-update", "tcp", "timeout",
    "max-attempts"};
inline constexpr std::string_view kSubnetDdns[] = {"enabled"};

// One map of the file: its place ("subnets[].lease"; "" for the top level) and its keys.
struct Map {
  std::string_view path;
  KeyList keys;
};

inline constexpr Map kMaps[] = {
    {"", kTopLevel},
    {"server", kServer},
    {"store", kStore},
    {"lease", kLease},
    {"options", kOptions},
    {"options.custom[]", kCustomOption},
    {"classes[]", kClass},
    {"classes[].match", kClassMatch},
    {"classes[].options", kOptions},
    {"classes[].options.custom[]", kCustomOption},
    {"classes[].lease", kLease},
    {"subnets[]", kSubnet},
    {"subnets[].pools[]", kPool},
    {"subnets[].pools[].options", kOptions},
    {"subnets[].pools[].lease", kPoolLease},
    {"subnets[].pools[].options.custom[]", kCustomOption},
    {"subnets[].lease", kLease},
    {"subnets[].options", kOptions},
    {"subnets[].options.custom[]", kCustomOption},
    {"subnets[].admission", kAdmission},
    {"subnets[].ddns", kSubnetDdns},
    {"subnets[].reservations[]", kReservation},
    {"subnets[].reservations[].options", kOptions},
    {"subnets[].reservations[].options.custom[]", kCustomOption},
    {"control", kControl},
    {"events", kEvents},
    {"peers", kPeers},
    {"log", kLog},
    {"ddns", kDdns},
};

// Every key by its full path: "server.listen", "subnets[].reservations[].mac", ...
inline std::vector<std::string> all_key_paths() {
  std::vector<std::string> paths;
  for (const Map& map : kMaps) {
    for (const std::string_view key : map.keys) {
      paths.push_back(map.path.empty() ? std::string{key}
                                       : std::string{map.path} + "." + std::string{key});
    }
  }
  return paths;
}

}  // namespace landlord::config::keys
