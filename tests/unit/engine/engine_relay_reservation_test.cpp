// Reservations keyed by the relay agent's circuit-id or remote-id (RFC 3046 option 82, sub-
// options 1 and 2), as ISPs key a subscriber by its port or line rather than its MAC.
#include <gtest/gtest.h>

#include "engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

const Ipv4 kByCircuit{198, 18, 1, 50};
const Ipv4 kByRemote{198, 18, 1, 51};
const Ipv4 kLocalByCircuit{198, 18, 0, 60};

std::vector<std::uint8_t> bytes(std::string_view text) { return {text.begin(), text.end()}; }

// Subnet 2 (behind the relay): circuit-id "port-7" -> .50, remote-id 0xbeef -> .51.
// Subnet 1 (the server's own link): circuit-id "port-9" -> .60.
config::Config relay_keyed_config() {
  config::Config config = make_config();
  config::Reservation by_circuit;
  by_circuit.address = kByCircuit;
  by_circuit.circuit_id = bytes("port-7");
  by_circuit.hostname = "subscriber-7";
  config::Reservation by_remote;
  by_remote.address = kByRemote;
  by_remote.remote_id = {0xbe, 0xef};
  config.subnets[1].reservations = {by_circuit, by_remote};
  config::Reservation local;
  local.address = kLocalByCircuit;
  local.circuit_id = bytes("port-9");
  config.subnets[0].reservations.push_back(local);
  return config;
}

std::vector<std::uint8_t> agent_info(std::string_view circuit, std::vector<std::uint8_t> remote = {}) {
  std::vector<std::uint8_t> info;
  if (!circuit.empty()) {
    info.push_back(1);
    info.push_back(static_cast<std::uint8_t>(circuit.size()));
    info.insert(info.end(), circuit.begin(), circuit.end());
  }
  if (!remote.empty()) {
    info.push_back(2);
    info.push_back(static_cast<std::uint8_t>(remote.size()));
    info.insert(info.end(), remote.begin(), remote.end());
  }
  return info;
}

wire::Message relayed(MessageType type, std::uint8_t client, const std::vector<std::uint8_t>& info) {
  auto message = client_message(type, client);
  message.giaddr = kRelayAddress;
  if (!info.empty()) message.options.set(option::kRelayAgentInfo, info);
  return message;
}

Outcome relayed_dora(Harness& harness, std::uint8_t client, const std::vector<std::uint8_t>& info) {
  const Outcome offer = harness.send(relayed(MessageType::Discover, client, info), from_relay(kRelayAddress));
  EXPECT_EQ(reply_type(offer), MessageType::Offer);
  if (!offer.reply) return offer;
  auto request = relayed(MessageType::Request, client, info);
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  return harness.send(request, from_relay(kRelayAddress));
}

TEST(Rfc3046Reservations, TheCircuitIdOrRemoteIdSelectsTheReservedAddress) {
  Harness harness(relay_keyed_config());
  const Outcome by_circuit = relayed_dora(harness, 1, agent_info("port-7"));
  ASSERT_EQ(reply_type(by_circuit), MessageType::Ack);
  EXPECT_EQ(by_circuit.reply->message.yiaddr, kByCircuit);
  EXPECT_EQ(by_circuit.mutations.at(0).hostname, "subscriber-7");
  const Outcome by_remote = relayed_dora(harness, 2, agent_info("port-1", {0xbe, 0xef}));
  EXPECT_EQ(by_remote.reply->message.yiaddr, kByRemote);
  // Both present: the circuit-id is looked up first.
  harness.release(1, kByCircuit);
  EXPECT_EQ(relayed_dora(harness, 3, agent_info("port-7", {0xbe, 0xef})).reply->message.yiaddr, kByCircuit);
}

TEST(Rfc3046Reservations, WithoutAMatchingKeyTheClientGetsAPoolAddress) {
  Harness harness(relay_keyed_config());
  const Ipv4 none = relayed_dora(harness, 1, {}).reply->message.yiaddr;
  const Ipv4 other = relayed_dora(harness, 2, agent_info("port-8")).reply->message.yiaddr;
  for (const Ipv4 address : {none, other}) {
    EXPECT_TRUE(Ipv4(198, 18, 1, 100) <= address && address <= Ipv4(198, 18, 1, 103)) << address.to_string();
  }
}

// RFC 3046 §2.1: option 82 is the relay's. A client on the server's own link (no giaddr) that
// writes one of its own does not get the reservation.
TEST(Rfc3046Reservations, OptionEightyTwoCountsOnlyFromARelay) {
  Harness harness(relay_keyed_config());
  auto discover = client_message(MessageType::Discover, 1);
  discover.options.set(option::kRelayAgentInfo, agent_info("port-9"));
  const Outcome offer = harness.send(discover);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_NE(offer.reply->message.yiaddr, kLocalByCircuit);
  // Asking for the address outright does not get it either: it is reserved for another.
  const Outcome asked = harness.discover(2, kLocalByCircuit);
  EXPECT_NE(asked.reply->message.yiaddr, kLocalByCircuit);
}

// RFC 2131 §4.3.2 RENEWING: the client unicasts to the server, past the relay, so without option
// 82; it keeps its reserved address. A rebind through the relay carries option 82 again.
TEST(Rfc3046Reservations, AUnicastRenewalWithoutOptionEightyTwoKeepsTheReservation) {
  Harness harness(relay_keyed_config());
  ASSERT_EQ(relayed_dora(harness, 1, agent_info("port-7")).reply->message.yiaddr, kByCircuit);
  const Outcome renewal = harness.renew(1, kByCircuit);
  ASSERT_EQ(reply_type(renewal), MessageType::Ack);
  EXPECT_EQ(renewal.reply->message.yiaddr, kByCircuit);
  auto rebind = relayed(MessageType::Request, 1, agent_info("port-7"));
  rebind.ciaddr = kByCircuit;
  rebind.xid += 1;  // a new exchange: at once with the renewal's xid it would be the relay's copy
  EXPECT_EQ(reply_type(harness.send(rebind, from_relay(kRelayAddress))), MessageType::Ack);
  // Another client renewing "on" the reserved address is NAKed.
  EXPECT_EQ(reply_type(harness.renew(2, kByCircuit)), MessageType::Nak);
}

// A new device on the same port: the reservation follows the port, once the old device's lease
// has ended (a reservation never takes an address another client still holds).
TEST(Rfc3046Reservations, ANewDeviceOnThePortGetsTheAddressOnceTheOldLeaseEnds) {
  Harness harness(relay_keyed_config());
  ASSERT_EQ(relayed_dora(harness, 1, agent_info("port-7")).reply->message.yiaddr, kByCircuit);
  EXPECT_NE(relayed_dora(harness, 2, agent_info("port-7")).reply->message.yiaddr, kByCircuit);
  harness.release(1, kByCircuit);
  harness.release(2, harness.engine.find(key(2))->address);
  EXPECT_EQ(relayed_dora(harness, 2, agent_info("port-7")).reply->message.yiaddr, kByCircuit);
}

}  // namespace
}  // namespace landlord::engine::testing
