// Client classes kept with the lease (lease::Lease::classes, engine/lease_classes.hpp). A client
// behind a relay renews by unicast at T1 (RFC 2131 §4.4.5): no giaddr, no option 82, and often
// without the options that made it a member. Its renewal's ACK still gets the options and lease
// time of the classes its grant matched, unless the renewal itself contradicts one.
#include <gtest/gtest.h>

#include "engine_yaml.hpp"

namespace landlord::engine::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

// `port7`: relay facts only (circuit-id and the relay's network); `uefi`: option 93 with a
// lease time of its own; `lab-macs`: the hardware address, which every message carries.
constexpr std::string_view kConfig = R"(
server: {interfaces: [veth-local]}
classes:
  - name: port7
    match: {giaddr: 198.18.1.0/24, circuit-id: "eth0/7"}
    options: {domain-name: port7.test, ntp-servers: 198.18.1.123}
  - name: uefi
    match: {client-architecture: 7}
    options: {boot-file: ipxe.efi}
    lease: {time: 10m}
  - name: lab-macs
    match: {hardware-address: "02:00:00:00:00"}
    options: {dns-servers: 198.18.0.77}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    pools: [198.18.0.100-198.18.0.150]
  - subnet: 198.18.1.0/24
    pools: [198.18.1.100-198.18.1.103]
)";

Bytes circuit(std::string_view id) {
  Bytes info{1, static_cast<std::uint8_t>(id.size())};
  info.insert(info.end(), id.begin(), id.end());
  return info;
}

wire::Message relayed(wire::Message message, std::string_view circuit_id) {
  message.giaddr = kRelayAddress;
  message.options.set(option::kRelayAgentInfo, circuit(circuit_id));
  return message;
}

wire::Message with_architecture(wire::Message message, std::uint16_t architecture) {
  message.options.set(93, Bytes{static_cast<std::uint8_t>(architecture >> 8), static_cast<std::uint8_t>(architecture)});
  return message;
}

// DISCOVER and REQUEST through the relay on circuit `circuit_id`: the ACK.
Outcome relayed_grant(Harness& harness, std::uint8_t client, std::string_view circuit_id) {
  const Outcome offer =
      harness.send(relayed(client_message(MessageType::Discover, client), circuit_id), from_relay(kRelayAddress));
  EXPECT_EQ(reply_type(offer), MessageType::Offer);
  if (!offer.reply) return offer;
  auto request = relayed(client_message(MessageType::Request, client), circuit_id);
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  return harness.send(request, from_relay(kRelayAddress));
}

std::optional<std::string_view> domain_of(const Outcome& outcome) {
  return outcome.reply->message.options.get_text(option::kDomainName);
}

TEST(LeaseClasses, GrantRecordsTheClassesItMatchedInConfigOrder) {
  Harness harness{load_yaml(kConfig)};
  const Outcome ack = relayed_grant(harness, 1, "eth0/7");
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(domain_of(ack), "port7.test");
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].classes, "port7,lab-macs");
  EXPECT_EQ(harness.engine.find(ack.reply->message.yiaddr)->classes, "port7,lab-macs");
  // A client in no class: nothing recorded.
  auto other = client_message(MessageType::Discover, 1);
  other.chaddr[4] = 9;  // not 02:00:00:00:00
  const Outcome offer = harness.send(other);
  auto request = client_message(MessageType::Request, 1);
  request.chaddr[4] = 9;
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  const Outcome plain = harness.send(request);
  ASSERT_EQ(reply_type(plain), MessageType::Ack);
  EXPECT_EQ(plain.mutations.at(0).classes, "");
}

// RFC 2131 §4.4.5 through a relay: the unicast T1 renewal carries neither giaddr nor option 82.
TEST(LeaseClasses, UnicastRenewalKeepsTheRelayKeyedClass) {
  Harness harness{load_yaml(kConfig)};
  const Outcome ack = relayed_grant(harness, 1, "eth0/7");
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  const Ipv4 address = ack.reply->message.yiaddr;
  harness.now += std::chrono::minutes{30};
  for (int renewal = 0; renewal < 2; ++renewal) {  // kept again by the renewal's own record
    SCOPED_TRACE(renewal);
    const Outcome renewed = harness.renew(1, address);
    ASSERT_EQ(reply_type(renewed), MessageType::Ack);
    EXPECT_EQ(domain_of(renewed), "port7.test");
    EXPECT_EQ(renewed.reply->message.options.get_ipv4(option::kNtpServers), (Ipv4{198, 18, 1, 123}));
    EXPECT_EQ(renewed.mutations.at(0).classes, "port7,lab-macs");
    harness.now += std::chrono::minutes{30};
  }
}

// A rebind through the relay shows the relay's facts again: they are judged afresh.
TEST(LeaseClasses, RelayedRebindOnAnotherCircuitLeavesTheClass) {
  Harness harness{load_yaml(kConfig)};
  const Outcome ack = relayed_grant(harness, 1, "eth0/7");
  const Ipv4 address = ack.reply->message.yiaddr;
  harness.now += std::chrono::minutes{53};
  auto rebind = relayed(client_message(MessageType::Request, 1), "eth0/8");
  rebind.ciaddr = address;
  const Outcome rebound = harness.send(rebind, from_relay(kRelayAddress));
  ASSERT_EQ(reply_type(rebound), MessageType::Ack);
  EXPECT_FALSE(domain_of(rebound).has_value());
  EXPECT_EQ(rebound.mutations.at(0).classes, "lab-macs");
  // And the next unicast renewal does not get it back.
  harness.now += std::chrono::minutes{30};
  const Outcome renewed = harness.renew(1, address);
  EXPECT_FALSE(domain_of(renewed).has_value());
}

// A class on an option the renewal leaves out keeps its lease time; one it contradicts does not.
TEST(LeaseClasses, OptionLeftOutKeepsTheClassOptionContradictingItDropsIt) {
  Harness harness{load_yaml(kConfig)};
  const Outcome offer = harness.send(with_architecture(client_message(MessageType::Discover, 2), 7));
  auto select = with_architecture(client_message(MessageType::Request, 2), 7);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  const Outcome ack = harness.send(select);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(ack.reply->message.options.get_u32(option::kLeaseTime), 600u);
  const Ipv4 address = ack.reply->message.yiaddr;

  harness.now += std::chrono::minutes{5};
  const Outcome renewed = harness.renew(2, address);  // no option 93
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  EXPECT_EQ(renewed.reply->message.options.get_u32(option::kLeaseTime), 600u);
  EXPECT_EQ(renewed.mutations.at(0).lease_time, std::chrono::minutes{10});
  EXPECT_EQ(renewed.mutations.at(0).classes, "uefi,lab-macs");

  harness.now += std::chrono::minutes{5};
  auto as_bios = with_architecture(client_message(MessageType::Request, 2), 0);
  as_bios.ciaddr = address;
  const Outcome bios = harness.send(as_bios, local_unicast(address));
  ASSERT_EQ(reply_type(bios), MessageType::Ack);
  EXPECT_EQ(bios.reply->message.options.get_u32(option::kLeaseTime), 3600u);
  EXPECT_EQ(bios.mutations.at(0).classes, "lab-macs");
}

// INFORM (§4.3.5) from a client about its own bound address: the same classes as its renewal.
TEST(LeaseClasses, InformAboutTheOwnLeaseGetsTheStoredClasses) {
  Harness harness{load_yaml(kConfig)};
  const Ipv4 address = relayed_grant(harness, 1, "eth0/7").reply->message.yiaddr;
  auto inform = client_message(MessageType::Inform, 1);
  inform.ciaddr = address;
  EXPECT_EQ(domain_of(harness.send(inform, local_unicast(address))), "port7.test");
  // Another client informing from that address gets no class of the holder's.
  auto stranger = client_message(MessageType::Inform, 3);
  stranger.ciaddr = address;
  EXPECT_FALSE(domain_of(harness.send(stranger, local_unicast(address))).has_value());
}

// The stored classes only extend the holder's bound lease: once it ended, the next grant (even
// to the same client, of the same address) matches afresh.
TEST(LeaseClasses, EndedLeaseDoesNotPassItsClassesOn) {
  Harness harness{load_yaml(kConfig)};
  const Outcome offer = harness.send(with_architecture(client_message(MessageType::Discover, 2), 7));
  const Ipv4 address = offer.reply->message.yiaddr;
  auto select = with_architecture(client_message(MessageType::Request, 2), 7);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, address);
  const Outcome first = harness.send(select);
  ASSERT_EQ(first.mutations.at(0).classes, "uefi,lab-macs");
  ASSERT_EQ(harness.release(2, address).mutations.size(), 1u);
  const Outcome again = harness.discover(2);  // no option 93 this time
  ASSERT_EQ(again.reply->message.yiaddr, address);
  EXPECT_EQ(again.reply->message.options.get_u32(option::kLeaseTime), 3600u);
  const Outcome ack = harness.select(2, address);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(ack.reply->message.options.get_u32(option::kLeaseTime), 3600u);
  EXPECT_EQ(ack.mutations.at(0).classes, "lab-macs");
}

// A class removed from the configuration (SIGHUP) is no longer applied from the record.
TEST(LeaseClasses, ClassNoLongerConfiguredIsDropped) {
  Harness harness{load_yaml(kConfig)};
  const Ipv4 address = relayed_grant(harness, 1, "eth0/7").reply->message.yiaddr;
  std::string without_port7(kConfig);
  const auto from = without_port7.find("  - name: port7");
  const auto to = without_port7.find("  - name: uefi");
  without_port7.erase(from, to - from);
  harness.engine.reconfigure(load_yaml(without_port7));
  const Outcome renewed = harness.renew(1, address);
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  EXPECT_FALSE(domain_of(renewed).has_value());
  EXPECT_EQ(renewed.mutations.at(0).classes, "lab-macs");
}

// A restarted server reads the classes back from the store (Engine::restore): same answer.
TEST(LeaseClasses, RestoredLeaseKeepsItsClasses) {
  Harness first{load_yaml(kConfig)};
  const Outcome ack = relayed_grant(first, 1, "eth0/7");
  Harness second{load_yaml(kConfig)};
  second.now = first.now + std::chrono::minutes{30};
  second.engine.restore(ack.mutations.at(0));
  const Outcome renewed = second.renew(1, ack.reply->message.yiaddr);
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  EXPECT_EQ(domain_of(renewed), "port7.test");
}

}  // namespace
}  // namespace landlord::engine::testing
