// Every error a user can make, with its exact place and message: "FILE:LINE:COLUMN: message".
// Each case is a whole file; all of its errors are expected, in file order, none left out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

struct ErrorCase {
  const char* name;
  const char* yaml;
  std::vector<std::string> expected;
};

void PrintTo(const ErrorCase& error_case, std::ostream* out) { *out << error_case.name; }

#define TYPES "ip, ip-list, ip-pairs, u8, u16, u32, i32, bool, text, u16-list, domain-list, routes, sip-servers, fqdn, sub-options, hex"

std::vector<ErrorCase> error_cases() {
  return {
    {"YamlSyntaxErrorIsReportedAtItsPlace",
     R"(subnets: [1, 2
server: {}
)",
     {"t.yaml:2:7: YAML syntax error: end of sequence flow not found"}},
    {"UnknownKeysSuggestTheNearestValidKey",
     R"(leese: {time: 1h}
subnets:
  - subnet: 198.18.0.0/24
    pool: [198.18.0.10-198.18.0.20]
    frobnicate: 1
)",
     {"t.yaml:1:1: unknown key 'leese'; did you mean 'lease'?",
      "t.yaml:4:5: unknown key 'pool'; did you mean 'pools'?",
      "t.yaml:5:5: unknown key 'frobnicate' in 'subnets'; valid keys: subnet, pools, relays, options, lease, reservations, interfaces, offer-ping, admission, primary, ddns"}},
    {"WrongTypesSayWhatWasExpected",
     R"(server: [lab0]
store: {type: [sqlite]}
subnets:
  - subnet: {a: 1}
    pools: 198.18.0.10-198.18.0.20
)",
     {"t.yaml:1:9: 'server' must be a map (keys: interfaces, listen, server-id, authoritative, user, discover-max-wait, classless-default-route), not a list",
      "t.yaml:2:15: 'type' must be a single value, not a list",
      "t.yaml:4:13: 'subnet' must be a single value, not a map",
      "t.yaml:5:12: 'pools' must be a list ([a, b] or '- ' lines), not a single value"}},
    {"BadValuesAreAllReportedInFileOrder",
     R"(server: {listen: 0.0.0.0:0, server-id: 198.18.0.256, authoritative: maybe}
store: {type: postgres, batch-max: 0, batch-wait: 5s}
lease: {time: 10, renew: 150%, rebind: 87.5}
log: {level: loud}
control: {listen: "127.0.0.1:99999"}
subnets:
  - subnet: 198.18.0.1/24
    pools: [198.18.0.100-198.18.0.50, 198.18.0.x-198.18.0.9]
)",
     {"t.yaml:1:18: 'listen': bad port '0'; use 1-65535",
      "t.yaml:1:40: 'server-id': '198.18.0.256' is not an IPv4 address",
      "t.yaml:1:69: 'authoritative': 'maybe' is not true or false",
      "t.yaml:2:15: unknown store type 'postgres'; use sqlite, postgresql or memory",
      "t.yaml:2:36: 'batch-max': 0 is out of range 1-65536",
      "t.yaml:2:51: 'batch-wait' must be at most 1s: clients retransmit after a few seconds",
      "t.yaml:3:15: 'time': '10' has no unit (is it seconds or milliseconds?); use an integer and a unit: 90s, 10m, 12h, 7d",
      "t.yaml:3:26: 'renew': percentage 150% must be above 0% and below 100%",
      "t.yaml:3:40: 'rebind': '87.5' needs a '%' (87.5%) or a duration unit (87.5s)",
      "t.yaml:4:14: unknown log level 'loud'; use trace, debug, info, warn, error, critical or off",
      "t.yaml:5:19: 'listen': bad port '99999'; use 1-65535",
      "t.yaml:7:13: 'subnet': '198.18.0.1/24' has host bits set; did you mean 198.18.0.0/24?",
      "t.yaml:8:13: 'pools': range 198.18.0.100-198.18.0.50 ends before it starts (first > last)",
      "t.yaml:8:39: 'pools': '198.18.0.x-198.18.0.9' is not an address range (FIRST-LAST, e.g. 198.18.0.100-198.18.0.199)"}},
    {"PostgresqlStoreNeedsAUrlAndASaneSyncInterval",
     R"(store: {type: postgresql, sync-interval: 5ms}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:8: store type postgresql needs 'url' (a libpq connection URI)",
      "t.yaml:1:42: 'sync-interval' must be between 10ms and 10s"}},
    {"PostgresqlClockSkewLimitIsBounded",
     R"(store: {type: postgresql, url: "postgresql:///landlord", max-clock-skew: 1h}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:74: 'max-clock-skew' must be between 10ms and 10m"}},
    {"PostgresqlTimeoutIsBounded",
     R"(store: {type: postgresql, url: "postgresql:///landlord", timeout: 50ms}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:67: 'timeout' must be between 100ms and 1m"}},
    {"PostgresqlTimeoutNeedsAUnit",
     R"(store: {type: postgresql, url: "postgresql:///landlord", timeout: 5}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:67: 'timeout': '5' has no unit (is it seconds or milliseconds?); use an integer and a unit: 90s, 10m, 12h, 7d"}},
    {"TimeoutIsOnlyForPostgresql",
     R"(store: {timeout: 2s, type: sqlite, path: /tmp/l.db}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:18: 'timeout' applies only to store type postgresql, not sqlite"}},
    {"BatchLingerIsBounded",
     R"(store: {type: sqlite, path: /tmp/l.db, batch-linger: 2s}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:54: 'batch-linger' must be at most 1s: clients retransmit after a few seconds"}},
    {"PeersNeedTheServersIdAndASharedStore",
     R"(peers: {servers: [198.18.0.1, 198.18.0.2, 198.18.0.1], answer-all-after: 1500ms}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:1:8: 'peers' needs 'server.server-id': this server's place in 'servers'",
      "t.yaml:1:8: 'peers' needs a store the peers share ('store.type: postgresql'), not sqlite",
      "t.yaml:1:43: 'servers': 198.18.0.1 is listed twice",
      "t.yaml:1:74: 'answer-all-after' must be whole seconds from 0s to 65535s (the 'secs' field)"}},
    {"PeersMustListThisServer",
     R"(server: {server-id: 198.18.0.3}
store: {type: postgresql, url: "postgresql:///landlord"}
peers: {servers: [198.18.0.1]}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:3:8: 'peers.servers' does not list this server's server-id 198.18.0.3",
      "t.yaml:3:18: 'servers' lists one server; peers need at least two"}},
    {"ASubnetsPrimaryMustBeAPeer",
     R"(server: {server-id: 198.18.0.1}
store: {type: postgresql, url: "postgresql:///landlord"}
peers: {servers: [198.18.0.1, 198.18.0.2]}
subnets: [{subnet: 198.18.0.0/24, primary: 198.18.0.3}]
)",
     {"t.yaml:4:44: 'primary' 198.18.0.3 is not one of 'peers.servers'"}},
    {"ASubnetsPrimaryNeedsPeers",
     R"(subnets: [{subnet: 198.18.0.0/24, primary: 198.18.0.1}]
)",
     {"t.yaml:1:44: 'primary' 198.18.0.1 is not one of 'peers.servers' (there is no 'peers' section)"}},
    {"PoolsMustStayInsideTheirSubnet",
     R"(subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.1.10-198.18.1.20, 198.18.0.0-198.18.0.10, 198.18.0.250-198.18.0.255]
)",
     {"t.yaml:3:13: pool 198.18.1.10-198.18.1.20 is outside subnet 1 (198.18.0.0/24)",
      "t.yaml:3:38: pool 198.18.0.0-198.18.0.10 includes the network address 198.18.0.0",
      "t.yaml:3:62: pool 198.18.0.250-198.18.0.255 includes the broadcast address 198.18.0.255"}},
    {"TheServerIdIsNeverLeased",
     R"(server: {server-id: 198.18.0.1}
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.1-198.18.0.50]
    reservations: [{mac: "02:00:00:00:00:01", address: 198.18.0.1}]
)",
     {"t.yaml:4:13: pool 198.18.0.1-198.18.0.50 includes the server's own address 198.18.0.1 (server-id)",
      "t.yaml:5:56: reserved address 198.18.0.1 is the server's own address (server-id)"}},
    {"OverlappingPoolsAndSubnets",
     R"(subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199, 198.18.0.150-198.18.0.160]
  - subnet: 198.18.0.0/25
  - subnet: 198.18.1.0/24
    pools: [198.18.1.10-198.18.1.20]
  - subnet: 198.18.2.0/24
)",
     {"t.yaml:3:40: pool 198.18.0.150-198.18.0.160 overlaps pool 198.18.0.100-198.18.0.199 (line 3)",
      "t.yaml:4:13: subnet 198.18.0.0/25 overlaps subnet 198.18.0.0/24 (line 2)"}},
    {"PoolsOverlappingAcrossSubnets",
     R"(subnets:
  - subnet: 198.18.0.0/23
    pools: [198.18.1.10-198.18.1.20]
  - subnet: 198.18.1.0/24
    pools: [198.18.1.15-198.18.1.30]
)",
     {"t.yaml:4:13: subnet 198.18.1.0/24 overlaps subnet 198.18.0.0/23 (line 2)",
      "t.yaml:5:13: pool 198.18.1.15-198.18.1.30 of subnet 2 (198.18.1.0/24) overlaps pool 198.18.1.10-198.18.1.20 of subnet 1 (198.18.0.0/23) (line 3)"}},
    {"RenewMustPrecedeRebindMustPrecedeExpiry",
     R"(lease: {time: 1h, renew: 40m, rebind: 30m}
subnets:
  - subnet: 198.18.0.0/24
    lease: {time: 20m, rebind: 25m}
  - subnet: 198.18.1.0/24
    lease: {time: 0s}
  - subnet: 198.18.2.0/24
    lease: {time: 1s, renew: 50%, rebind: 87.5%}
)",
     {"t.yaml:1:26: renew (T1) 40m must be shorter than rebind (T2) 30m",
      "t.yaml:4:32: renew (T1) 40m must be shorter than rebind (T2) 25m in subnet 1 (198.18.0.0/24)",
      "t.yaml:4:32: rebind (T2) 25m must be shorter than the lease time 20m in subnet 1 (198.18.0.0/24)",
      "t.yaml:6:19: lease 'time' must be longer than 0s",
      "t.yaml:8:30: renew (T1) comes to 0s (50% of 1s); it must be at least 1s in subnet 3 (198.18.2.0/24)"}},
    {"LeaseMinAndMaxAreLeaseTimesAroundTime",
     R"(lease: {time: 1h, min: 2h, max: 10m}
subnets:
  - subnet: 198.18.0.0/24
    lease: {min: 0s, max: 1500ms}
  - subnet: 198.18.1.0/24
    lease: {time: 30m}
)",
     {"t.yaml:1:24: lease 'min' 2h must not be longer than the lease time 1h",
      "t.yaml:1:33: lease 'max' 10m must not be shorter than the lease time 1h",
      "t.yaml:4:18: lease 'min' must be longer than 0s",
      "t.yaml:4:27: lease 'max' must be whole seconds: clients receive it in seconds",
      // The global min and max merge into the subnet that sets only `time`.
      "t.yaml:6:19: lease 'min' 2h must not be longer than the lease time 30m in subnet 2 (198.18.1.0/24)",
      "t.yaml:6:19: lease 'max' 10m must not be shorter than the lease time 30m in subnet 2 (198.18.1.0/24)"}},
    {"RenewAndRebindMustHoldForEveryGrantableLeaseTime",
     R"(subnets:
  - subnet: 198.18.0.0/24
    lease: {time: 1h, min: 1s}
  - subnet: 198.18.1.0/24
    lease: {time: 1h, renew: 10m, rebind: 20m, min: 15m}
  - subnet: 198.18.2.0/24
    lease: {time: 1h, renew: 50%, rebind: 40m, max: 2h}
  - subnet: 198.18.3.0/24
    lease: {time: 1h, renew: 50%, rebind: 60%, min: 5s}
  - subnet: 198.18.4.0/24
    lease: {time: 1h, renew: 50%, rebind: 87.5%, min: 8s, max: 1d}
)",
     {"t.yaml:3:28: renew (T1) comes to 0s (50% of 1s); it must be at least 1s at lease 'min' 1s in subnet 1 (198.18.0.0/24)",
      "t.yaml:5:53: rebind (T2) 20m must be shorter than the lease time 15m at lease 'min' 15m in subnet 2 (198.18.1.0/24)",
      "t.yaml:7:53: renew (T1) 1h (50% of 2h) must be shorter than rebind (T2) 40m at lease 'max' 2h in subnet 3 (198.18.2.0/24)",
      "t.yaml:9:53: renew (T1) 50% and rebind (T2) 60% are less than 1s apart at lease 'min' 5s; T1 and T2 could meet for a longer lease in subnet 4 (198.18.3.0/24)"}},
    {"StaticRoutesAreCheckedOneByOne",
     R"(options:
  classless-static-routes: ["198.18.2.0/24 via 198.18.0.1", "198.18.3.1/24 via 198.18.0.1"]
  ms-classless-static-routes: []
subnets:
  - subnet: 198.18.0.0/24
    options: {classless-static-routes: 198.18.2.0/24 198.18.0.1, tftp-server-name: ""}
)",
     {"t.yaml:2:61: 'classless-static-routes': route destination '198.18.3.1/24' has host bits set or a bad length (0-32)",
      "t.yaml:3:31: 'ms-classless-static-routes' needs at least one route",
      "t.yaml:6:40: 'classless-static-routes': '198.18.2.0/24 198.18.0.1' is not a route: write DESTINATION/LENGTH via ROUTER, e.g. \"198.18.2.0/24 via 198.18.0.1\" (0.0.0.0/0 for the default route)",
      "t.yaml:6:84: 'tftp-server-name' must not be empty"}},
    {"ClassesAreChecked",
     R"(classes:
  - name: uefi
    match: {client-architecture: [7, 9]}
  - name: uefi
    match: {client-architecture: [7, 70000], vendor-class: ""}
  - name: "no spaces"
    match: {hardware-address: "zz", giaddr: 198.18.0.1/24}
  - name: relay
    match: {circuit-id: "0xzz", remote-id: ""}
  - name: empty
    match: {}
  - name: typo
    match: {user-clas: iPXE}
  - match: {user-class: iPXE}
  - name: timed
    match: {user-class: iPXE}
    lease: {time: 10m, renew: 20m}
subnets:
  - subnet: 198.18.0.0/24
    pools: [{range: 198.18.0.10-198.18.0.20, classes: [uefi, nosuch]}, {range: 198.18.0.30-198.18.0.40, classes: []}]
)",
     {"t.yaml:4:11: class 'uefi' is already defined (line 2)",
      "t.yaml:5:38: 'client-architecture': 70000 is out of range 0-65535",
      "t.yaml:5:60: 'vendor-class' must not be empty",
      "t.yaml:6:11: 'no spaces' is not a class name (1-64 letters, digits, '-', '_')",
      "t.yaml:7:31: 'hardware-address': 'zz' is not a hardware address prefix (1-16 hex bytes, e.g. 52:54:00)",
      "t.yaml:7:45: 'giaddr': '198.18.0.1/24' is not an address or a network in CIDR form without host bits",
      "t.yaml:9:25: 'circuit-id': '0xzz' is not 0x and hex bytes",
      "t.yaml:9:44: 'remote-id': must not be empty",
      "t.yaml:11:12: 'match' needs at least one condition",
      "t.yaml:13:13: unknown key 'user-clas'; did you mean 'user-class'?",
      "t.yaml:14:5: a class is missing required key 'name'",
      "t.yaml:17:31: renew (T1) 20m must be shorter than rebind (T2) 8m45s (87.5% of 10m) in class 'timed'",
      "t.yaml:20:62: unknown class 'nosuch'; defined: uefi, timed",
      "t.yaml:20:114: 'classes' needs at least one class name (leave it out to serve every client)"}},
    {"ReservationsAreCheckedForDuplicatesAndPlace",
     R"(subnets:
  - subnet: 198.18.0.0/24
    reservations:
      - {mac: "02:00:00:00:00:10", address: 198.18.0.10}
      - {mac: "02:00:00:00:00:10", address: 198.18.0.11}
      - {client-id: "01:02", address: 198.18.0.10}
      - {client-id: "01:02", address: 198.18.0.12}
      - {mac: "02:00:00:00:00:13", address: 198.18.1.13}
      - {address: 198.18.0.14}
      - {mac: "02:00:00:00:00:15", client-id: "01:03", address: 198.18.0.15}
      - {mac: "zz", address: 198.18.0.16}
      - {mac: "02:00:00:00:00:17"}
)",
     {"t.yaml:5:15: mac 02:00:00:00:00:10 is already reserved in this subnet (line 4)",
      "t.yaml:6:39: address 198.18.0.10 is already reserved in this subnet (line 4)",
      "t.yaml:7:21: client-id 01:02 is already reserved in this subnet (line 6)",
      "t.yaml:8:45: reserved address 198.18.1.13 is outside subnet 1 (198.18.0.0/24)",
      "t.yaml:9:9: a reservation needs 'mac', 'client-id', 'circuit-id' or 'remote-id' to know its client",
      "t.yaml:10:36: a reservation takes one of 'mac', 'client-id', 'circuit-id' or 'remote-id', not two",
      "t.yaml:11:15: 'mac': 'zz' is not a MAC address (six hex bytes: 02:00:00:00:00:10)",
      "t.yaml:12:9: a reservation is missing required key 'address'"}},
    {"RelaysAndInterfacesSelectOneSubnetEach",
     R"(server: {interfaces: [lab0]}
subnets:
  - subnet: 198.18.0.0/24
    relays: [198.18.5.1, 198.18.1.1]
    interfaces: [lab0, lab1]
  - subnet: 198.18.1.0/24
    relays: [198.18.5.1]
    interfaces: [lab0]
)",
     {"t.yaml:4:26: relay 198.18.1.1 is inside subnet 2 (198.18.1.0/24), which a giaddr there already selects",
      "t.yaml:5:24: interface 'lab1' is not in server 'interfaces'; the server would never hear its clients",
      "t.yaml:7:14: relay 198.18.5.1 already selects subnet 1 (198.18.0.0/24) (line 4)",
      "t.yaml:8:18: interface 'lab0' already selects subnet 1 (198.18.0.0/24) (line 5)"}},
    {"SubnetsAreRequired",
     R"(server: {}
)",
     {"t.yaml:1:1: missing required key 'subnets'"}},
    {"SubnetsMustNotBeEmpty",
     R"(subnets: []
)",
     {"t.yaml:1:10: 'subnets' is empty; add at least one subnet"}},
    {"EachSubnetNeedsItsCidr",
     R"(subnets:
  - pools: [198.18.0.10-198.18.0.20]
)",
     {"t.yaml:2:5: subnet 1 is missing required key 'subnet' (e.g. subnet: 198.18.0.0/24)"}},
    {"DuplicateKeysAreErrors",
     R"(lease: {time: 1h}
lease: {time: 2h}
subnets: [{subnet: 198.18.0.0/24}]
)",
     {"t.yaml:2:1: duplicate key 'lease' (first on line 1)"}},
    {"OptionValuesAreChecked",
     R"(options:
  routers: []
  dns-servers: [198.18.0.999]
  interface-mtu: 20
  domain-search: ["bad..name"]
  custom:
    - {code: 51, u32: 60}
    - {code: 3, ip: 198.18.0.1}
    - {code: 200}
    - {code: 201, text: a, hex: "00"}
    - {code: 202, u8: 300}
subnets: [{subnet: 198.18.0.0/24, options: {routrs: [198.18.0.1]}}]
)",
     {"t.yaml:2:12: 'routers' needs at least one address",
      "t.yaml:3:17: 'dns-servers': '198.18.0.999' is not an IPv4 address",
      "t.yaml:4:18: 'interface-mtu': 20 is out of range 68-65535",
      "t.yaml:5:19: 'domain-search': domain name 'bad..name' has an empty label",
      "t.yaml:7:14: code 51 cannot be configured: option 51 (lease time) is set from 'lease: time'",
      "t.yaml:9:7: a custom option needs exactly one value: " TYPES,
      "t.yaml:10:28: a custom option needs exactly one value: " TYPES,
      "t.yaml:11:23: 'u8': 300 is out of range 0-255",
      "t.yaml:12:45: unknown option 'routrs'; did you mean 'routers'?"}},
    {"CatalogueValuesAreCheckedByType",
     R"(options:
  ntp-server: 198.18.0.1
  ip-forwarding: maybe
  time-offset: 1.5
  default-ip-ttl: 0
  policy-filter: ["198.18.0.0"]
  vendor-specific: [{code: 1, ip: 198.18.0.1}, {code: 1, text: x}, {code: 2, sub-options: []}]
  boot-file: )" "abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789abcdefgh" R"(
  next-server: 0.0.0.0
  client-fqdn: "no spaces.test"
  custom:
    - {code: 230, string: x}
subnets:
  - subnet: 198.18.0.0/24
    pools: [{range: 198.18.0.10-198.18.0.20, options: {routers: nope}}, {options: {}}]
    reservations: [{mac: "02:00:00:00:00:01", address: 198.18.0.5, options: {wpad: x}}]
)",
     {"t.yaml:2:3: unknown option 'ntp-server'; did you mean 'ntp-servers'?",
      "t.yaml:3:18: 'ip-forwarding': 'maybe' is not true or false",
      "t.yaml:4:16: 'time-offset': '1.5' is not a whole number from -2147483648 to 2147483647",
      "t.yaml:5:19: 'default-ip-ttl': 0 is out of range 1-255",
      "t.yaml:6:19: 'policy-filter': '198.18.0.0' is not two addresses \"ADDRESS ADDRESS\"",
      "t.yaml:7:55: sub-option 1 is already set (line 7)",
      "t.yaml:7:78: unknown key 'sub-options' in a 'vendor-specific' sub-option; it takes 'code' and one of: "
      "ip, ip-list, ip-pairs, u8, u16, u32, i32, bool, text, u16-list, domain-list, routes, sip-servers, fqdn, hex",
      "t.yaml:8:14: 'boot-file' is 128 bytes; the `file` field holds at most 127",
      "t.yaml:9:16: 'next-server' must be a server's address, not 0.0.0.0",
      "t.yaml:10:16: 'client-fqdn': domain name 'no spaces.test' has the character ' '; use letters, digits and '-'",
      "t.yaml:12:19: unknown key 'string' in a custom option; it takes 'code' and one of: " TYPES,
      "t.yaml:15:65: 'routers': 'nope' is not an IPv4 address",
      "t.yaml:15:73: a pool written as a map needs 'range' (e.g. range: 198.18.0.100-198.18.0.199)",
      "t.yaml:16:78: unknown option 'wpad'; see the option names in docs/configuration.md, or give it by code under 'custom'"}},
    {"EmptyFile",
     R"(
)",
     {"t.yaml:1:1: the file is empty; it needs at least 'subnets'"}},
    {"FileMustBeAMap",
     R"(- a
- b
)",
     {"t.yaml:1:1: the file must be a map of sections (server, store, lease, subnets, ...), not a list"}},
  };
}

class ConfigErrors : public testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrors, ReportsEveryErrorAtItsPlace) {
  const ErrorCase& error_case = GetParam();
  const auto loaded = load_string(error_case.yaml, "t.yaml");
  ASSERT_FALSE(loaded.has_value()) << "expected errors, the file loaded";
  std::vector<std::string> actual;
  for (const auto& error : loaded.error()) actual.push_back(error.to_string());
  EXPECT_EQ(actual, error_case.expected) << format_errors(loaded.error());
}

INSTANTIATE_TEST_SUITE_P(Loader, ConfigErrors, testing::ValuesIn(error_cases()),
                         [](const testing::TestParamInfo<ErrorCase>& param_info) { return std::string{param_info.param.name}; });

TEST(ConfigErrorsAtPlaces, LineAndColumnAreOneBased) {
  const auto loaded = load_string("subnets:\n  - subnet: 198.18.0.0/33\n", "site.yaml");
  ASSERT_FALSE(loaded.has_value());
  ASSERT_EQ(loaded.error().size(), 1u);
  const ConfigError& error = loaded.error()[0];
  EXPECT_EQ(error.file, "site.yaml");
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.column, 13);  // the value, not its key
  EXPECT_NE(error.message.find("'198.18.0.0/33' is not a subnet"), std::string::npos) << error.message;
}

TEST(ConfigErrorsAtPlaces, ControlRefusesTcpOffLoopbackWithoutAToken) {
  const auto loaded = load_string(R"(subnets: [{subnet: 198.18.0.0/24}]
control:
  listen: 0.0.0.0:80
  socket: relative.sock
  token-file: ""
  frobnicate: 1
)", "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(format_errors(loaded.error()),
            "t.yaml:3:11: 'listen' 0.0.0.0 needs 'token-file': every request on TCP, loopback "
            "included, must carry its bearer token (the UNIX 'socket' needs none)\n"
            "t.yaml:4:11: 'socket' must be an absolute path\n"
            "t.yaml:5:15: 'token-file' must be an absolute path\n"
            "t.yaml:6:3: unknown key 'frobnicate' in 'control'; valid keys: socket, listen, token-file\n");
}

TEST(ConfigErrorsAtPlaces, EventsExecMustBeAnAbsolutePath) {
  const auto loaded = load_string("subnets: [{subnet: 198.18.0.0/24}]\nevents: {exec: on-lease.sh}\n", "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(format_errors(loaded.error()), "t.yaml:2:16: 'exec' must be an absolute path\n");
  const auto good = load_string("subnets: [{subnet: 198.18.0.0/24}]\nevents: {exec: /usr/local/bin/on-lease}\n", "t.yaml");
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good->events.exec, "/usr/local/bin/on-lease");
}

// Every local user reaches 127.0.0.1, those the UNIX socket's mode keeps out too (issue #31).
TEST(ConfigErrorsAtPlaces, ControlRefusesTcpOnLoopbackWithoutAToken) {
  const auto loaded = load_string("subnets: [{subnet: 198.18.0.0/24}]\ncontrol:\n  listen: 127.0.0.1:8067\n", "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(format_errors(loaded.error()),
            "t.yaml:3:11: 'listen' 127.0.0.1 needs 'token-file': every request on TCP, loopback "
            "included, must carry its bearer token (the UNIX 'socket' needs none)\n");
  EXPECT_TRUE(load_string("subnets: [{subnet: 198.18.0.0/24}]\ncontrol: {socket: /run/l.sock}\n", "t.yaml"));
}

TEST(ConfigErrorsAtPlaces, ControlAcceptsTcpOffLoopbackWithAToken) {
  const auto loaded = load_string(
      "subnets: [{subnet: 198.18.0.0/24}]\ncontrol: {listen: 198.18.0.1, token-file: /etc/t}\n",
      "t.yaml");
  EXPECT_TRUE(loaded.has_value()) << format_errors(loaded.error());
}

TEST(ConfigErrorsAtPlaces, AnEmptyValuePointsAtItsKey) {
  const auto loaded = load_string("subnets:\n  - subnet:\n    pools: []\n", "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  ASSERT_EQ(loaded.error().size(), 1u);
  EXPECT_EQ(loaded.error()[0].to_string(), "t.yaml:2:5: 'subnet' needs a value");
}

TEST(ConfigErrorsAtPlaces, ATypoFarFromAnyKeyListsTheValidKeys) {
  const auto loaded = load_string("subnets: [{subnet: 198.18.0.0/24}]\nzzzzzz: 1\n", "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error()[0].to_string(),
            "t.yaml:2:1: unknown key 'zzzzzz' in 'the file'; valid keys: server, store, lease, options, classes, "
            "subnets, control, events, peers, log, ddns");
}

TEST(ConfigErrorsAtPlaces, AGlobalTimerConflictIsReportedOnceNotPerSubnet) {
  // The subnet sets no timer of its own, so its merged values fail for the same reason: one error.
  const auto loaded = load_string(
      "lease: {renew: 40m, rebind: 30m}\nsubnets:\n  - subnet: 198.18.0.0/24\n    lease: {offer-hold: 5s}\n",
      "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  ASSERT_EQ(loaded.error().size(), 1u) << format_errors(loaded.error());
  EXPECT_EQ(loaded.error()[0].to_string(), "t.yaml:1:16: renew (T1) 40m must be shorter than rebind (T2) 30m");
}

TEST(ConfigErrorsAtPlaces, LoadFileNamesTheFileAsGiven) {
  const auto path = std::filesystem::temp_directory_path() / ("landlord-config-test-" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream file{path};
    file << "subnets:\n  - subnet: 198.18.0.0/24\n    pools: [198.18.1.1-198.18.1.9]\n";
  }
  const auto loaded = load_file(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(loaded.has_value());
  ASSERT_EQ(loaded.error().size(), 1u);
  EXPECT_EQ(loaded.error()[0].to_string(),
            path.string() + ":3:13: pool 198.18.1.1-198.18.1.9 is outside subnet 1 (198.18.0.0/24)");
}

// Damaged versions of the full example (a line deleted, the file cut short): whatever the damage,
// the loader returns a Config or errors, never crashes, and every error has a place.
TEST(ConfigErrorsAtPlaces, DamagedFilesNeverCrashAndEveryErrorHasAPlace) {
  std::ifstream file{std::string{LANDLORD_SOURCE_DIR} + "/config/landlord.yaml"};
  std::stringstream contents;
  contents << file.rdbuf();
  const std::string full = contents.str();
  ASSERT_FALSE(full.empty());
  std::vector<std::string> variants;
  std::size_t line_start = 0;
  while (line_start < full.size()) {
    const std::size_t line_end = std::min(full.find('\n', line_start), full.size());
    variants.push_back(full.substr(0, line_start) + full.substr(std::min(line_end + 1, full.size())));
    line_start = line_end + 1;
  }
  for (std::size_t cut = 0; cut < full.size(); cut += 5) variants.push_back(full.substr(0, cut));
  std::size_t rejected = 0;
  for (const auto& variant : variants) {
    const auto loaded = load_string(variant, "damaged.yaml");
    if (loaded) continue;
    ++rejected;
    for (const auto& error : loaded.error()) {
      EXPECT_GE(error.line, 1) << error.to_string() << "\n--- in ---\n" << variant;
      EXPECT_GE(error.column, 1) << error.to_string();
      EXPECT_FALSE(error.message.empty());
    }
  }
  EXPECT_GT(rejected, variants.size() / 2);  // most cuts break the file; the test saw errors
}

}  // namespace
}  // namespace landlord::config
