// Options and boot fields in replies, from a loaded YAML config: the most specific scope wins
// (reservation → pool → subnet → top level), option 12 from a reservation's hostname, the BOOTP
// header fields of a network boot, and a 576-octet reply that still carries every option.
#include <gtest/gtest.h>

#include "engine_yaml.hpp"

namespace landlord::engine::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Subnet 198.18.0.0/24 on the harness's link: a plain pool, a pool with options of its own,
// a reservation with options and one with a hostname only.
constexpr std::string_view kScopes = R"(
server: {interfaces: [veth-local]}
options:
  dns-servers: 198.18.0.53
  ntp-servers: 198.18.0.123
  next-server: 198.18.0.2
  boot-file: global.efi
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    options: {dns-servers: 198.18.0.54, routers: 198.18.0.1, boot-file: subnet.efi}
    pools:
      - 198.18.0.100-198.18.0.100
      - range: 198.18.0.200-198.18.0.200
        options: {dns-servers: 198.18.0.55, server-hostname: pool-boot}
    reservations:
      - mac: "02:00:00:00:00:07"
        address: 198.18.0.7
        hostname: printer
        options: {dns-servers: 198.18.0.56, next-server: 198.18.0.3}
      - mac: "02:00:00:00:00:08"
        address: 198.18.0.8
        hostname: scanner
        options: {host-name: scanner-override}
      - mac: "02:00:00:00:00:09"
        address: 198.18.0.9
        hostname: camera
)";

Ipv4 dns_of(const Outcome& outcome) { return *outcome.reply->message.options.get_ipv4(option::kDnsServers); }

std::string text_of(const std::array<std::uint8_t, 128>& field) { return reinterpret_cast<const char*>(field.data()); }
std::string text_of(const std::array<std::uint8_t, 64>& field) { return reinterpret_cast<const char*>(field.data()); }

TEST(OptionScopes, MostSpecificScopeWinsPerCode) {
  Harness harness{load_yaml(kScopes)};
  // The plain pool: the subnet's value over the top level's; top-level-only options still come.
  const Outcome plain = harness.discover(1);
  ASSERT_EQ(plain.reply->message.yiaddr, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(dns_of(plain), (Ipv4{198, 18, 0, 54}));
  EXPECT_EQ(plain.reply->message.options.get_ipv4(option::kNtpServers), (Ipv4{198, 18, 0, 123}));
  // The pool with options: its value over the subnet's, for the address it holds.
  const Outcome pooled = harness.discover(2);
  ASSERT_EQ(pooled.reply->message.yiaddr, (Ipv4{198, 18, 0, 200}));
  EXPECT_EQ(dns_of(pooled), (Ipv4{198, 18, 0, 55}));
  EXPECT_EQ(pooled.reply->message.options.get_ipv4(option::kRouters), (Ipv4{198, 18, 0, 1}));
  // The reservation: over pool and subnet, in the OFFER and the ACK.
  const Outcome reserved = harness.discover(7);
  ASSERT_EQ(reserved.reply->message.yiaddr, (Ipv4{198, 18, 0, 7}));
  EXPECT_EQ(dns_of(reserved), (Ipv4{198, 18, 0, 56}));
  const Outcome ack = harness.select(7, Ipv4{198, 18, 0, 7});
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(dns_of(ack), (Ipv4{198, 18, 0, 56}));
  EXPECT_EQ(ack.reply->message.options.get_ipv4(option::kNtpServers), (Ipv4{198, 18, 0, 123}));
}

TEST(OptionScopes, InformGetsTheScopesOfItsOwnAddress) {
  Harness harness{load_yaml(kScopes)};
  auto message = client_message(MessageType::Inform, 7);
  message.ciaddr = Ipv4{198, 18, 0, 7};
  const Outcome reserved = harness.send(message, local_unicast(message.ciaddr));
  EXPECT_EQ(dns_of(reserved), (Ipv4{198, 18, 0, 56}));
  message = client_message(MessageType::Inform, 3);
  message.ciaddr = Ipv4{198, 18, 0, 200};
  EXPECT_EQ(dns_of(harness.send(message, local_unicast(message.ciaddr))), (Ipv4{198, 18, 0, 55}));
}

// RFC 2132 §3.14: a reservation's hostname goes to its client as option 12, unless the
// reservation's own options set host-name; another client never gets it.
TEST(Rfc2132Section314, ReservationHostnameIsOption12) {
  Harness harness{load_yaml(kScopes)};
  EXPECT_EQ(harness.discover(9).reply->message.options.get_text(option::kHostname), "camera");
  EXPECT_EQ(harness.discover(8).reply->message.options.get_text(option::kHostname), "scanner-override");
  EXPECT_FALSE(harness.discover(1).reply->message.options.has(option::kHostname));
  // Someone else asking for the reserved address is not given the reservation's options.
  const Outcome other = harness.discover(4, Ipv4{198, 18, 0, 9});
  EXPECT_NE(other.reply->message.yiaddr, (Ipv4{198, 18, 0, 9}));
  EXPECT_FALSE(other.reply->message.options.has(option::kHostname));
}

// RFC 2131 §2 / Table 3: siaddr is the next server of a network boot, `file` the boot file and
// `sname` the server's name; each from the most specific scope that sets it. A NAK has none.
TEST(Rfc2131Table3, BootFieldsComeFromTheMostSpecificScope) {
  Harness harness{load_yaml(kScopes)};
  const wire::Message plain = harness.discover(1).reply->message;
  EXPECT_EQ(plain.siaddr, (Ipv4{198, 18, 0, 2}));  // top level
  EXPECT_EQ(text_of(plain.file), "subnet.efi");    // subnet over top level
  EXPECT_EQ(text_of(plain.sname), "");
  const wire::Message pooled = harness.discover(2).reply->message;
  EXPECT_EQ(text_of(pooled.sname), "pool-boot");
  EXPECT_EQ(text_of(pooled.file), "subnet.efi");
  const wire::Message reserved = harness.discover(7).reply->message;
  EXPECT_EQ(reserved.siaddr, (Ipv4{198, 18, 0, 3}));
  const wire::Message ack = harness.select(7, Ipv4{198, 18, 0, 7}).reply->message;
  EXPECT_EQ(ack.siaddr, (Ipv4{198, 18, 0, 3}));
  EXPECT_EQ(text_of(ack.file), "subnet.efi");

  const wire::Message nak = harness.init_reboot(5, Ipv4{198, 18, 0, 7}).reply->message;
  ASSERT_EQ(nak.type(), MessageType::Nak);
  EXPECT_TRUE(nak.siaddr.is_zero());
  EXPECT_EQ(text_of(nak.file), "");
}

// The built reply keeps the boot file in `file`: options that overflow go to sname only.
TEST(Rfc2132Section93, ANamedFileIsNotOverloaded) {
  config::Config config = load_yaml(kScopes);
  // 250 + 50 bytes do not fit the options field of a 576-octet reply beside the rest.
  config.subnets[0].options.push_back({option::kDomainName, Bytes(250, 'd')});
  config.subnets[0].options.push_back({17, Bytes(50, 'r')});
  Harness harness{config};
  const Outcome offer = harness.discover(1);
  Bytes buffer(offer.reply->max_size);
  const auto built = wire::build(offer.reply->message, buffer);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->overload, 2);  // sname only
  const auto parsed = wire::parse(std::span<const std::uint8_t>(buffer).first(built->size));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(text_of(parsed->file), "subnet.efi");
  EXPECT_EQ(parsed->options.get(option::kDomainName).size(), 250u);
  EXPECT_EQ(parsed->options.get(17).size(), 50u);
}

// RFC 2131 §2 and RFC 3396: a client that sends no option 57 gets at most 576 octets; a
// 190-byte domain name that no field holds whole still arrives, split across the options field
// and `file`, with every other requested option.
TEST(Rfc3396, A576OctetReplyCarriesA190ByteDomainName) {
  config::Config config = load_yaml(R"(
server: {interfaces: [veth-local]}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    pools: [198.18.0.100-198.18.0.199]
    options:
      routers: 198.18.0.1
      dns-servers: [198.18.0.53, 198.18.0.54, 198.18.0.55]
      ntp-servers: [198.18.0.123, 198.18.0.124]
      tftp-server-name: a-rather-long-tftp-server-name.lab.test
      root-path: /srv/nfs/a/rather/long/root/path/for/diskless/clients/that/takes/room
      domain-search: [lab.test, corp.lab.test, eng.lab.test]
)");
  config.subnets[0].options.push_back({option::kDomainName, Bytes(190, 'd')});
  Harness harness{config};
  auto discover = client_message(MessageType::Discover, 1);
  // 15 asked for last: the options before it leave 104 bytes of the options field, `file` has
  // 127 and `sname` 63, so it fits no field whole.
  discover.options.set(option::kParameterRequestList, Bytes{1, 3, 6, 42, 66, 17, 119, 15});
  const Outcome offer = harness.send(discover);
  ASSERT_EQ(offer.reply->max_size, 548u);  // 576 less IP and UDP headers
  Bytes buffer(offer.reply->max_size);
  const auto built = wire::build(offer.reply->message, buffer);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->omitted, 0u);
  EXPECT_NE(built->overload, 0);
  const auto parsed = wire::parse(std::span<const std::uint8_t>(buffer).first(built->size));
  ASSERT_TRUE(parsed);
  for (const std::uint8_t code : offer.reply->message.options.codes()) {
    const auto sent = offer.reply->message.options.get(code);
    const auto received = parsed->options.get(code);
    EXPECT_EQ(Bytes(received.begin(), received.end()), Bytes(sent.begin(), sent.end())) << int{code};
  }
  EXPECT_EQ(parsed->options.get(option::kDomainName).size(), 190u);
}

// ------------------------------------------------------------------ client classes

constexpr std::string_view kClasses = R"(
server: {interfaces: [veth-local]}
classes:
  - name: uefi
    match: {client-architecture: [7, 9]}
    options: {boot-file: ipxe.efi, dns-servers: 198.18.0.60}
    lease: {time: 10m}
  - name: ipxe
    match: {user-class: iPXE}
    options: {boot-file: menu.ipxe}
  - name: phones
    match: {vendor-class: "Cisco Systems", hardware-address: "02:00:00:00:00"}
  - name: relayed
    match: {giaddr: 198.18.1.0/24, circuit-id: "eth0/7", remote-id: "0x0a0b"}
    options: {domain-name: port7.test}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    options: {dns-servers: 198.18.0.54, boot-file: default.0}
    pools:
      - {range: 198.18.0.100-198.18.0.100, classes: [phones]}
      - {range: 198.18.0.150-198.18.0.151, classes: [uefi, ipxe], options: {dns-servers: 198.18.0.55, domain-name: pool.test}}
      - 198.18.0.200-198.18.0.200
    reservations:
      - {mac: "02:00:00:00:00:07", address: 198.18.0.7, options: {dns-servers: 198.18.0.56}}
  - subnet: 198.18.1.0/24
    pools: [198.18.1.100-198.18.1.103]
)";

wire::Message with_architecture(wire::Message message, std::uint16_t architecture) {
  message.options.set(93, Bytes{static_cast<std::uint8_t>(architecture >> 8), static_cast<std::uint8_t>(architecture)});
  return message;
}

TEST(ClientClasses, PoolsServeTheirClassesOnly) {
  Harness harness{load_yaml(kClasses)};
  // No class: only the open pool.
  EXPECT_EQ(harness.discover(1).reply->message.yiaddr, (Ipv4{198, 18, 0, 200}));
  // UEFI (option 93 = 7): the pool kept for uefi and ipxe.
  const Outcome uefi = harness.send(with_architecture(client_message(MessageType::Discover, 2), 7));
  EXPECT_EQ(uefi.reply->message.yiaddr, (Ipv4{198, 18, 0, 150}));
  // A phone: vendor class prefix AND hardware prefix; its pool, not the others.
  auto phone = client_message(MessageType::Discover, 3);
  phone.options.set_text(option::kVendorClass, "Cisco Systems, Inc. IP Phone");
  EXPECT_EQ(harness.send(phone).reply->message.yiaddr, (Ipv4{198, 18, 0, 100}));
  // The open pool is exhausted; a classless client is refused the class pools.
  EXPECT_FALSE(harness.discover(4).reply);
  // A client asking for an address of a pool not kept for it does not get it.
  const Outcome asks = harness.discover(5, Ipv4{198, 18, 0, 151});
  EXPECT_FALSE(asks.reply);
  // iPXE (RFC 3004 list or a bare string) shares the uefi pool.
  auto ipxe = client_message(MessageType::Discover, 6);
  ipxe.options.set(77, Bytes{4, 'i', 'P', 'X', 'E'});
  EXPECT_EQ(harness.send(ipxe).reply->message.yiaddr, (Ipv4{198, 18, 0, 151}));
}

TEST(ClientClasses, AllConditionsOfAMatchMustHold) {
  Harness harness{load_yaml(kClasses)};
  // Vendor class right, hardware prefix wrong (02:00:00:00:01:xx is not 02:00:00:00:00).
  auto phone = client_message(MessageType::Discover, 3);
  phone.chaddr[4] = 1;
  phone.options.set_text(option::kVendorClass, "Cisco Systems, Inc. IP Phone");
  EXPECT_EQ(harness.send(phone).reply->message.yiaddr, (Ipv4{198, 18, 0, 200}));
}

// Precedence: reservation → class (in class order) → pool → subnet; a class's lease time.
TEST(ClientClasses, ClassOptionsComeBetweenReservationAndPool) {
  Harness harness{load_yaml(kClasses)};
  const Outcome uefi = harness.send(with_architecture(client_message(MessageType::Discover, 2), 7));
  const wire::Message& offer = uefi.reply->message;
  EXPECT_EQ(offer.options.get_ipv4(option::kDnsServers), (Ipv4{198, 18, 0, 60}));  // class over pool
  EXPECT_EQ(offer.options.get_text(option::kDomainName), "pool.test");            // pool over subnet
  EXPECT_EQ(text_of(offer.file), "ipxe.efi");
  EXPECT_EQ(offer.options.get_u32(option::kLeaseTime), 600u);  // the class's lease time
  EXPECT_EQ(offer.options.get_u32(option::kRenewalTime), 300u);
  // iPXE and UEFI at once: the first class in the file that sets boot-file wins.
  auto both = with_architecture(client_message(MessageType::Discover, 8), 7);
  both.options.set_text(77, "iPXE");
  EXPECT_EQ(text_of(harness.send(both).reply->message.file), "ipxe.efi");
  // The reservation over the class.
  const Outcome reserved = harness.send(with_architecture(client_message(MessageType::Discover, 7), 7));
  EXPECT_EQ(reserved.reply->message.yiaddr, (Ipv4{198, 18, 0, 7}));
  EXPECT_EQ(reserved.reply->message.options.get_ipv4(option::kDnsServers), (Ipv4{198, 18, 0, 56}));
  EXPECT_EQ(text_of(reserved.reply->message.file), "ipxe.efi");  // the class's, the reservation sets none
  // No class: the subnet's lease time and boot file.
  const Outcome plain = harness.discover(1);
  EXPECT_EQ(plain.reply->message.options.get_u32(option::kLeaseTime), 3600u);
  EXPECT_EQ(text_of(plain.reply->message.file), "default.0");
}

// RFC 3046: relay agent circuit-id and remote-id, with the giaddr of the relay.
TEST(ClientClasses, RelayAgentIdsAndGiaddrMatch) {
  Harness harness{load_yaml(kClasses)};
  auto relayed = client_message(MessageType::Discover, 9);
  relayed.giaddr = kRelayAddress;
  relayed.options.set(option::kRelayAgentInfo, Bytes{1, 6, 'e', 't', 'h', '0', '/', '7', 2, 2, 0x0a, 0x0b});
  EXPECT_EQ(harness.send(relayed, from_relay(kRelayAddress)).reply->message.options.get_text(option::kDomainName),
            "port7.test");
  relayed.options.set(option::kRelayAgentInfo, Bytes{1, 6, 'e', 't', 'h', '0', '/', '8', 2, 2, 0x0a, 0x0b});
  EXPECT_FALSE(harness.send(relayed, from_relay(kRelayAddress)).reply->message.options.has(option::kDomainName));
}

// A REQUEST for an address of a pool the client's classes may not use is refused (NAK).
TEST(ClientClasses, RequestOutsideTheClientsPoolsIsNaked) {
  Harness harness{load_yaml(kClasses)};
  EXPECT_EQ(reply_type(harness.init_reboot(1, Ipv4{198, 18, 0, 150})), MessageType::Nak);
  auto uefi = with_architecture(client_message(MessageType::Request, 2), 7);
  uefi.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 150});
  EXPECT_EQ(reply_type(harness.send(uefi)), MessageType::Ack);
}

// RFC 2131 §4.4.5: a client renews by unicast at T1 without giaddr, option 82 or (often) the
// options that put it in its class: its own lease in a class's pool is still extended.
TEST(ClientClasses, OwnLeaseIsRenewedWithoutTheClassesMatch) {
  Harness harness{load_yaml(kClasses)};
  auto discover = with_architecture(client_message(MessageType::Discover, 2), 7);
  const Ipv4 address = harness.send(discover).reply->message.yiaddr;
  ASSERT_EQ(address, (Ipv4{198, 18, 0, 150}));
  auto select = with_architecture(client_message(MessageType::Request, 2), 7);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, address);
  ASSERT_EQ(reply_type(harness.send(select)), MessageType::Ack);
  EXPECT_EQ(reply_type(harness.renew(2, address)), MessageType::Ack);  // no option 93
  // Another client without the class still cannot take an address of that pool.
  EXPECT_EQ(reply_type(harness.init_reboot(3, Ipv4{198, 18, 0, 151})), MessageType::Nak);
}

}  // namespace
}  // namespace landlord::engine::testing
