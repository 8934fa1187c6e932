// Loading valid files: defaults, merging, option bytes, and every example in config/.
#include <gtest/gtest.h>

#include <filesystem>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

Config load_ok(std::string_view yaml) {
  auto loaded = load_string(yaml, "test.yaml");
  if (!loaded) {
    ADD_FAILURE() << format_errors(loaded.error());
    return Config{};
  }
  return std::move(*loaded);
}

const OptionValue* find_option(const Subnet& subnet, std::uint8_t code) {
  for (const auto& option : subnet.options) {
    if (option.code == code) return &option;
  }
  return nullptr;
}

TEST(Loader, MinimalFileTakesEveryDefault) {
  const Config config = load_ok("subnets:\n  - subnet: 198.18.0.0/24\n");
  EXPECT_EQ(config.source, "test.yaml");
  EXPECT_TRUE(config.server.interfaces.empty());
  EXPECT_EQ(config.server.listen.address, Ipv4{});
  EXPECT_EQ(config.server.listen.port, 67);
  EXPECT_FALSE(config.server.server_id.has_value());
  EXPECT_TRUE(config.server.authoritative);
  EXPECT_TRUE(config.server.classless_default_route);
  EXPECT_EQ(config.store.type, StoreSection::Type::Sqlite);
  EXPECT_EQ(config.store.path, "/var/lib/landlord/leases.db");
  EXPECT_EQ(config.store.batch_max, 256u);
  EXPECT_EQ(config.store.batch_wait, 2ms);
  EXPECT_EQ(config.store.batch_linger, 8ms);
  EXPECT_EQ(config.lease.time, 1h);
  EXPECT_EQ(config.lease.renew_duration(), 30min);
  EXPECT_EQ(config.lease.rebind_duration(), 52min + 30s);
  EXPECT_EQ(config.lease.offer_hold, 30s);
  EXPECT_EQ(config.lease.decline_hold, 10min);
  EXPECT_FALSE(config.control.enabled);
  EXPECT_FALSE(config.control.listen.has_value());
  EXPECT_EQ(config.log.level, "info");
  ASSERT_EQ(config.subnets.size(), 1u);
  const Subnet& subnet = config.subnets[0];
  EXPECT_EQ(subnet.id, 1u);
  EXPECT_EQ(subnet.subnet.to_string(), "198.18.0.0/24");
  EXPECT_TRUE(subnet.pools.empty());
  EXPECT_TRUE(subnet.options.empty());
  EXPECT_EQ(subnet.lease.time, 1h);
}

TEST(Loader, ReadsTheDocumentedExample) {
  const Config config = load_ok(R"(
server:
  interfaces: [lab0]
  listen: 0.0.0.0:6767
  server-id: 198.18.0.1
  authoritative: false
  classless-default-route: false
store: {type: memory, path: /tmp/x.db, batch-max: 64, batch-wait: 5ms, batch-linger: 3ms}
lease: {time: 1h, renew: 50%, rebind: 87.5%, offer-hold: 20s, decline-hold: 1h}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [lab0]
    pools: [198.18.0.100-198.18.0.199, 198.18.0.210-198.18.0.250]
    relays: [198.18.5.1]
    options: {routers: [198.18.0.1], dns-servers: [198.18.0.53], domain-name: lab.test}
    lease: {time: 10m}
    reservations:
      - {mac: "02:00:00:00:00:10", address: 198.18.0.10, hostname: printer}
      - {client-id: "01:02:00:00:00:00:11", address: 198.18.0.11}
  - subnet: 198.18.2.0/24
control: {listen: 127.0.0.1, token-file: /etc/t}
log: {level: debug}
)");
  EXPECT_EQ(config.server.interfaces, std::vector<std::string>{"lab0"});
  EXPECT_EQ(config.server.listen.port, 6767);
  EXPECT_EQ(config.server.server_id, Ipv4(198, 18, 0, 1));
  EXPECT_FALSE(config.server.authoritative);
  EXPECT_FALSE(config.server.classless_default_route);
  EXPECT_EQ(config.store.type, StoreSection::Type::Memory);
  EXPECT_EQ(config.store.path, "/tmp/x.db");
  EXPECT_EQ(config.store.batch_max, 64u);
  EXPECT_EQ(config.store.batch_wait, 5ms);
  EXPECT_EQ(config.store.batch_linger, 3ms);
  EXPECT_EQ(config.lease.offer_hold, 20s);
  EXPECT_EQ(config.lease.decline_hold, 1h);
  ASSERT_TRUE(config.control.listen.has_value());
  EXPECT_EQ(config.control.listen->address, Ipv4(127, 0, 0, 1));
  EXPECT_EQ(config.control.listen->port, 8067);
  EXPECT_TRUE(config.control.enabled);
  EXPECT_EQ(config.control.socket, "/run/landlord/control.sock");
  ASSERT_TRUE(config.control.token_file.has_value());  // a TCP listener needs one (issue #31)
  EXPECT_EQ(*config.control.token_file, "/etc/t");
  EXPECT_EQ(config.log.level, "debug");

  ASSERT_EQ(config.subnets.size(), 2u);
  const Subnet& first = config.subnets[0];
  EXPECT_EQ(first.id, 1u);
  EXPECT_EQ(config.subnets[1].id, 2u);
  EXPECT_EQ(first.interfaces, std::vector<std::string>{"lab0"});
  ASSERT_EQ(first.pools.size(), 2u);
  EXPECT_EQ(first.pools[0].first, Ipv4(198, 18, 0, 100));
  EXPECT_EQ(first.pools[1].last, Ipv4(198, 18, 0, 250));
  EXPECT_EQ(first.relays, std::vector<Ipv4>{Ipv4(198, 18, 5, 1)});

  ASSERT_EQ(first.options.size(), 3u);  // in the order the file gives them
  EXPECT_EQ(first.options[0].code, 3);
  EXPECT_EQ(first.options[0].value, (Bytes{198, 18, 0, 1}));
  EXPECT_EQ(first.options[1].code, 6);
  EXPECT_EQ(first.options[1].value, (Bytes{198, 18, 0, 53}));
  EXPECT_EQ(first.options[2].code, 15);
  EXPECT_EQ(first.options[2].value, (Bytes{'l', 'a', 'b', '.', 't', 'e', 's', 't'}));

  ASSERT_EQ(first.reservations.size(), 2u);
  EXPECT_EQ(first.reservations[0].mac->to_string(), "02:00:00:00:00:10");
  EXPECT_FALSE(first.reservations[0].client_id.has_value());
  EXPECT_EQ(first.reservations[0].address, Ipv4(198, 18, 0, 10));
  EXPECT_EQ(first.reservations[0].hostname, "printer");
  EXPECT_EQ(first.reservations[1].client_id->to_string(), "01:02:00:00:00:00:11");
  EXPECT_FALSE(first.reservations[1].mac.has_value());

  // The subnet's lease merges over the defaults; the other subnet has the defaults.
  EXPECT_EQ(first.lease.time, 10min);
  EXPECT_EQ(first.lease.renew_duration(), 5min);
  EXPECT_EQ(first.lease.rebind_duration(), 8min + 45s);
  EXPECT_EQ(first.lease.offer_hold, 20s);
  EXPECT_EQ(first.lease.decline_hold, 1h);
  EXPECT_EQ(config.subnets[1].lease.time, 1h);
  EXPECT_EQ(config.lease.time, 1h);  // the global defaults stay as written
}

TEST(Loader, SubnetLeaseOverridesMergeKeyByKey) {
  const Config config = load_ok(R"(
lease: {time: 4h, renew: 30m, rebind: 3h, offer-hold: 10s}
subnets:
  - subnet: 198.18.0.0/24
    lease: {time: 5h}
  - subnet: 198.18.1.0/24
    lease: {renew: 1h, decline-hold: 1m}
  - subnet: 198.18.2.0/24
    lease: {time: 1h, renew: 25%, rebind: 75%}
)");
  ASSERT_EQ(config.subnets.size(), 3u);
  const LeaseTimes& time_only = config.subnets[0].lease;
  EXPECT_EQ(time_only.time, 5h);
  EXPECT_EQ(time_only.renew_duration(), 30min);  // the fixed defaults still apply
  EXPECT_EQ(time_only.rebind_duration(), 3h);
  EXPECT_EQ(time_only.offer_hold, 10s);

  const LeaseTimes& renew_only = config.subnets[1].lease;
  EXPECT_EQ(renew_only.time, 4h);
  EXPECT_EQ(renew_only.renew_duration(), 1h);
  EXPECT_EQ(renew_only.rebind_duration(), 3h);
  EXPECT_EQ(renew_only.decline_hold, 1min);

  const LeaseTimes& percentages = config.subnets[2].lease;
  EXPECT_EQ(percentages.renew_duration(), 15min);
  EXPECT_EQ(percentages.rebind_duration(), 45min);
}

// lease min/max bound the lease time a client asks for (option 51); unset, they are `time`.
TEST(Loader, LeaseMinAndMaxBoundTheRequestedLeaseTime) {
  const Config config = load_ok(R"(
lease: {time: 1h, min: 10m, max: 4h}
subnets:
  - subnet: 198.18.0.0/24
  - subnet: 198.18.1.0/24
    lease: {max: 2h}
  - subnet: 198.18.2.0/24
    lease: {time: 30m, min: 30m, max: 30m}
)");
  const LeaseTimes& global = config.lease;
  EXPECT_EQ(global.min, 10min);
  EXPECT_EQ(global.max, 4h);
  EXPECT_EQ(global.granted(std::nullopt), 1h);
  EXPECT_EQ(global.granted(2h), 2h);
  EXPECT_EQ(global.granted(1min), 10min);
  EXPECT_EQ(global.granted(100h), 4h);
  EXPECT_EQ(global.granted(90min + 500ms), 90min);  // whole seconds, as on the wire
  // T1/T2 percentages follow the granted lease time.
  EXPECT_EQ(global.renew_duration(2h), 1h);
  EXPECT_EQ(global.rebind_duration(2h), 1h + 45min);
  ASSERT_EQ(config.subnets.size(), 3u);
  EXPECT_EQ(config.subnets[0].lease.granted(100h), 4h);    // the defaults
  EXPECT_EQ(config.subnets[1].lease.granted(100h), 2h);    // merged key by key
  EXPECT_EQ(config.subnets[1].lease.granted(1min), 10min);
  EXPECT_EQ(config.subnets[2].lease.granted(100h), 30min);

  const Config without = load_ok("subnets:\n  - subnet: 198.18.0.0/24\n");
  EXPECT_FALSE(without.lease.min);
  EXPECT_FALSE(without.lease.max);
  EXPECT_EQ(without.lease.granted(5h), 1h);  // no range: a request changes nothing
  EXPECT_EQ(without.lease.granted(1s), 1h);
}

// Options by name for network boot and routes: TFTP server (66), boot file (67), classless
// static routes (121) and the same for older Windows (249), one route or a list.
TEST(Loader, EncodesBootAndRouteOptionsByName) {
  const Config config = load_ok(R"(
subnets:
  - subnet: 198.18.0.0/24
    options:
      tftp-server-name: tftp.lab.test
      boot-file-name: pxelinux.0
      classless-static-routes: ["198.18.2.0/24 via 198.18.0.254", "0.0.0.0/0 via 198.18.0.1"]
      ms-classless-static-routes: 198.18.2.0/24 via 198.18.0.254
)");
  const Subnet& subnet = config.subnets.at(0);
  ASSERT_NE(find_option(subnet, 66), nullptr);
  EXPECT_EQ(find_option(subnet, 66)->value, (Bytes{'t', 'f', 't', 'p', '.', 'l', 'a', 'b', '.', 't', 'e', 's', 't'}));
  ASSERT_NE(find_option(subnet, 67), nullptr);
  EXPECT_EQ(find_option(subnet, 67)->value, (Bytes{'p', 'x', 'e', 'l', 'i', 'n', 'u', 'x', '.', '0'}));
  ASSERT_NE(find_option(subnet, 121), nullptr);
  EXPECT_EQ(find_option(subnet, 121)->value,
            (Bytes{24, 198, 18, 2, 198, 18, 0, 254, 0, 198, 18, 0, 1}));
  ASSERT_NE(find_option(subnet, 249), nullptr);
  EXPECT_EQ(find_option(subnet, 249)->value, (Bytes{24, 198, 18, 2, 198, 18, 0, 254}));
}

TEST(Loader, DefaultOptionsMergeIntoEverySubnetAndTheSubnetWins) {
  const Config config = load_ok(R"(
options: {dns-servers: [198.18.0.53, 198.18.0.54], domain-name: lab.test}
subnets:
  - subnet: 198.18.0.0/24
    options: {domain-name: other.test, routers: 198.18.0.1}
  - subnet: 198.18.1.0/24
)");
  const Subnet& own = config.subnets[0];
  ASSERT_EQ(own.options.size(), 3u);
  EXPECT_EQ(own.options[0].code, 15);
  EXPECT_EQ(own.options[0].value, (Bytes{'o', 't', 'h', 'e', 'r', '.', 't', 'e', 's', 't'}));
  EXPECT_EQ(own.options[1].code, 3);
  EXPECT_EQ(own.options[1].value, (Bytes{198, 18, 0, 1}));  // one address without a list
  EXPECT_EQ(own.options[2].code, 6);
  EXPECT_EQ(own.options[2].value, (Bytes{198, 18, 0, 53, 198, 18, 0, 54}));

  const Subnet& inherited = config.subnets[1];
  ASSERT_EQ(inherited.options.size(), 2u);
  EXPECT_EQ(inherited.options[0].code, 6);
  EXPECT_EQ(inherited.options[1].code, 15);
}

TEST(Loader, EncodesEveryNamedAndCustomOption) {
  const Config config = load_ok(R"(
subnets:
  - subnet: 198.18.0.0/24
    options:
      ntp-servers: [198.18.0.123]
      broadcast-address: 198.18.0.255
      interface-mtu: 9000
      domain-search: [lab.test]
      custom:
        - {code: 66, text: tftp}
        - {code: 150, ip: 198.18.0.2}
        - {code: 151, ips: [198.18.0.3, 198.18.0.4]}
        - {code: 152, u8: 200}
        - {code: 153, u16: 513}
        - {code: 154, u32: 16909060}
        - {code: 252, hex: "de:ad:be:ef"}
        - {code: 80, hex: ""}
)");
  const Subnet& subnet = config.subnets[0];
  const std::pair<std::uint8_t, Bytes> expected[] = {
      {42, {198, 18, 0, 123}},
      {28, {198, 18, 0, 255}},
      {26, {0x23, 0x28}},
      {119, {3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0}},
      {66, {'t', 'f', 't', 'p'}},
      {150, {198, 18, 0, 2}},
      {151, {198, 18, 0, 3, 198, 18, 0, 4}},
      {152, {200}},
      {153, {2, 1}},
      {154, {1, 2, 3, 4}},
      {252, {0xde, 0xad, 0xbe, 0xef}},
      {80, {}},
  };
  ASSERT_EQ(subnet.options.size(), std::size(expected));
  for (std::size_t index = 0; index < std::size(expected); ++index) {
    EXPECT_EQ(subnet.options[index].code, expected[index].first) << index;
    EXPECT_EQ(subnet.options[index].value, expected[index].second) << index;
  }
  EXPECT_EQ(find_option(subnet, 1), nullptr);  // the subnet mask is implied, never configured
}

TEST(Loader, ClassesPoolsAndScopedOptions) {
  const Config config = load_ok(R"(
lease: {time: 1h}
options: {next-server: 198.18.0.2, boot-file: global.0}
classes:
  - name: uefi
    match: {client-architecture: [7, 9], giaddr: 198.18.2.0/24}
    options: {boot-file: ipxe.efi, ntp-servers: 198.18.0.123}
    lease: {time: 10m}
  - name: phones
    match: {vendor-class: Cisco, hardware-address: "00:1b:54", circuit-id: eth0/1, remote-id: "0x0a0b"}
subnets:
  - subnet: 198.18.0.0/24
    options: {server-hostname: boot.lab.test}
    pools:
      - 198.18.0.10-198.18.0.19
      - {range: 198.18.0.20-198.18.0.29, classes: [phones, uefi]}
      - {range: 198.18.0.30-198.18.0.39, options: {dns-servers: 198.18.0.53}}
    reservations:
      - {mac: "02:00:00:00:00:01", address: 198.18.0.5, hostname: printer, options: {next-server: 198.18.0.3}}
)");
  ASSERT_EQ(config.classes.size(), 2u);
  const ClientClass& uefi = config.classes[0];
  EXPECT_EQ(uefi.name, "uefi");
  EXPECT_EQ(uefi.match.client_architectures, (std::vector<std::uint16_t>{7, 9}));
  EXPECT_EQ(uefi.match.giaddr, Cidr::parse("198.18.2.0/24"));
  EXPECT_EQ(uefi.boot.boot_file, "ipxe.efi");
  EXPECT_EQ(uefi.options, (std::vector<OptionValue>{{42, {198, 18, 0, 123}}}));
  ASSERT_TRUE(uefi.lease.has_value());
  EXPECT_EQ(uefi.lease->time, 10min);
  const ClientClass& phones = config.classes[1];
  EXPECT_EQ(phones.match.vendor_class_prefix, "Cisco");
  EXPECT_EQ(phones.match.hardware_prefix, (Bytes{0x00, 0x1b, 0x54}));
  EXPECT_EQ(phones.match.circuit_id, (Bytes{'e', 't', 'h', '0', '/', '1'}));
  EXPECT_EQ(phones.match.remote_id, (Bytes{0x0a, 0x0b}));
  EXPECT_FALSE(phones.lease.has_value());

  const Subnet& subnet = config.subnets[0];
  EXPECT_EQ(subnet.pools.size(), 3u);
  ASSERT_EQ(subnet.pool_scopes.size(), 2u);  // the plain range has no scope
  EXPECT_EQ(subnet.pool_scopes[0].classes, 0b11u);
  EXPECT_TRUE(subnet.pool_scopes[0].options.empty());
  EXPECT_EQ(subnet.pool_scopes[1].classes, 0u);
  EXPECT_EQ(subnet.pool_scopes[1].options, (std::vector<OptionValue>{{6, {198, 18, 0, 53}}}));
  // Boot fields merge field by field over the top level.
  EXPECT_EQ(subnet.boot.next_server, (Ipv4{198, 18, 0, 2}));
  EXPECT_EQ(subnet.boot.boot_file, "global.0");
  EXPECT_EQ(subnet.boot.server_hostname, "boot.lab.test");
  // A reservation's hostname is its option 12 (RFC 2132 §3.14).
  const Reservation& printer = subnet.reservations.at(0);
  EXPECT_EQ(printer.boot.next_server, (Ipv4{198, 18, 0, 3}));
  EXPECT_EQ(printer.options, (std::vector<OptionValue>{{12, {'p', 'r', 'i', 'n', 't', 'e', 'r'}}}));
}

TEST(Loader, EveryExampleConfigLoadsWithoutErrors) {
  const std::filesystem::path directory = std::filesystem::path{LANDLORD_SOURCE_DIR} / "config";
  std::size_t examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    if (entry.path().extension() != ".yaml") continue;
    ++examples;
    const auto loaded = load_file(entry.path().string());
    EXPECT_TRUE(loaded.has_value()) << format_errors(loaded.error());
    if (loaded) {
      EXPECT_FALSE(loaded->subnets.empty()) << entry.path();
    }
  }
  EXPECT_GE(examples, 3u);  // landlord.yaml, lab.yaml, loopback.yaml at least
}

TEST(Loader, LabAndLoopbackExamplesSayWhatTheirUsersExpect) {
  const std::filesystem::path directory = std::filesystem::path{LANDLORD_SOURCE_DIR} / "config";
  const auto lab = load_file((directory / "lab.yaml").string());
  ASSERT_TRUE(lab.has_value()) << format_errors(lab.error());
  EXPECT_EQ(lab->server.server_id, Ipv4(198, 18, 0, 1));
  EXPECT_EQ(lab->server.interfaces, std::vector<std::string>{"ll-srv0"});
  ASSERT_EQ(lab->subnets.size(), 2u);
  EXPECT_EQ(lab->subnets[0].subnet.to_string(), "198.18.0.0/24");
  EXPECT_EQ(lab->subnets[0].pools[0].first, Ipv4(198, 18, 0, 100));
  EXPECT_EQ(lab->subnets[0].pools[0].last, Ipv4(198, 18, 0, 199));
  EXPECT_EQ(lab->subnets[1].subnet.to_string(), "198.18.2.0/24");
  EXPECT_EQ(lab->subnets[1].relays, std::vector<Ipv4>{Ipv4(198, 18, 1, 2)});

  const auto loopback = load_file((directory / "loopback.yaml").string());
  ASSERT_TRUE(loopback.has_value()) << format_errors(loopback.error());
  EXPECT_EQ(loopback->server.listen.address, Ipv4(127, 0, 0, 1));
  EXPECT_EQ(loopback->server.listen.port, 6767);
  EXPECT_EQ(loopback->subnets[0].relays, std::vector<Ipv4>{Ipv4(127, 0, 0, 1)});
  EXPECT_EQ(loopback->subnets[0].lease.time, 20s);
}

TEST(Loader, UnreadableFileIsOneErrorWithoutAPlace) {
  const auto loaded = load_file("/nonexistent/landlord.yaml");
  ASSERT_FALSE(loaded.has_value());
  ASSERT_EQ(loaded.error().size(), 1u);
  EXPECT_EQ(loaded.error()[0].line, 0);
  EXPECT_EQ(loaded.error()[0].to_string(),
            "/nonexistent/landlord.yaml: cannot open: No such file or directory");
}

TEST(Loader, FormatErrorsPrintsOneLinePerError) {
  const std::vector<ConfigError> errors = {{"a.yaml", 3, 5, "first"}, {"a.yaml", 10, 1, "second"}};
  EXPECT_EQ(format_errors(errors), "a.yaml:3:5: first\na.yaml:10:1: second\n");
  EXPECT_EQ(format_errors({}), "");
}

TEST(Loader, ControlTakesASocketAndATcpListenerWithAToken) {
  const Config config = load_ok(R"(subnets: [{subnet: 198.18.0.0/24}]
control:
  socket: /tmp/landlord-test.sock
  listen: 198.18.0.1:9000
  token-file: /etc/landlord/token
)");
  EXPECT_TRUE(config.control.enabled);
  EXPECT_EQ(config.control.socket, "/tmp/landlord-test.sock");
  ASSERT_TRUE(config.control.listen.has_value());
  EXPECT_EQ(config.control.listen->address, Ipv4(198, 18, 0, 1));
  EXPECT_EQ(config.control.listen->port, 9000);
  EXPECT_EQ(config.control.token_file, "/etc/landlord/token");
}

TEST(Loader, ReadsAPostgresqlStore) {
  const Config config = load_ok(R"(subnets: [{subnet: 198.18.0.0/24}]
store:
  type: postgresql
  url: "postgresql:///landlord?host=/run/postgresql"
  sync-interval: 250ms
  max-clock-skew: 250ms
)");
  EXPECT_EQ(config.store.max_clock_skew, 250ms);
  EXPECT_EQ(config.store.type, StoreSection::Type::Postgresql);
  EXPECT_EQ(config.store.url, "postgresql:///landlord?host=/run/postgresql");
  EXPECT_EQ(config.store.sync_interval, 250ms);
  EXPECT_EQ(config.store.poll_interval(), 250ms);
  EXPECT_FALSE(config.store.sync_notify);
  EXPECT_EQ(config.store.timeout, 5s);  // the default
  EXPECT_STREQ(to_string(config.store.type), "postgresql");
}

TEST(Loader, ReadsAPostgresqlStoresTimeout) {
  const auto timeout = [](const std::string& value) {
    return load_ok("subnets: [{subnet: 198.18.0.0/24}]\nstore: {type: postgresql, url: \"postgresql:///l\", timeout: " +
                   value + "}\n").store.timeout;
  };
  EXPECT_EQ(timeout("750ms"), 750ms);
  EXPECT_EQ(timeout("100ms"), 100ms);
  EXPECT_EQ(timeout("1m"), 60s);
  EXPECT_EQ(timeout("2s500ms"), 2500ms);
}

// sync-notify: polling stays, as the fallback, every 1 s unless sync-interval says otherwise.
TEST(Loader, SyncNotifyMakesTheDefaultPollTheFallback) {
  const auto store = [](const std::string& keys) {
    return load_ok("subnets: [{subnet: 198.18.0.0/24}]\nstore: {type: postgresql, url: \"postgresql:///l\"" +
                   keys + "}\n").store;
  };
  EXPECT_EQ(store("").poll_interval(), 100ms);
  EXPECT_FALSE(store("").sync_notify);
  EXPECT_TRUE(store(", sync-notify: true").sync_notify);
  EXPECT_EQ(store(", sync-notify: true").poll_interval(), 1s);
  EXPECT_EQ(store(", sync-notify: true, sync-interval: 200ms").poll_interval(), 200ms);
  EXPECT_EQ(store(", sync-notify: false").poll_interval(), 100ms);
}

TEST(Loader, ReadsPeersThatSplitClients) {
  const Config config = load_ok(R"(subnets: [{subnet: 198.18.0.0/24}]
server: {server-id: 198.18.0.2}
store: {type: postgresql, url: "postgresql:///landlord"}
peers:
  servers: [198.18.0.1, 198.18.0.2]
  answer-all-after: 5s
)");
  ASSERT_EQ(config.peers.servers.size(), 2u);
  EXPECT_EQ(config.peers.servers[1], (Ipv4{198, 18, 0, 2}));
  EXPECT_EQ(config.peers.answer_all_after, 5s);
  EXPECT_TRUE(config.peers.enabled());
  EXPECT_FALSE(load_ok("subnets: [{subnet: 198.18.0.0/24}]\n").peers.enabled());
}

TEST(Loader, ReadsASubnetsPrimaryPeer) {
  const Config config = load_ok(R"(server: {server-id: 198.18.0.2}
store: {type: postgresql, url: "postgresql:///landlord"}
peers: {servers: [198.18.0.1, 198.18.0.2]}
subnets:
  - {subnet: 198.18.0.0/24, primary: 198.18.0.1}
  - {subnet: 198.18.1.0/24}
)");
  EXPECT_EQ(config.subnets[0].primary, (Ipv4{198, 18, 0, 1}));
  EXPECT_EQ(config.subnets[1].primary, std::nullopt);
}

TEST(Loader, AnEmptyControlSectionTurnsTheSocketOn) {
  const Config config = load_ok("subnets: [{subnet: 198.18.0.0/24}]\ncontrol: {}\n");
  EXPECT_TRUE(config.control.enabled);
  EXPECT_EQ(config.control.socket, "/run/landlord/control.sock");
  EXPECT_FALSE(config.control.listen.has_value());
}

}  // namespace
}  // namespace landlord::config
