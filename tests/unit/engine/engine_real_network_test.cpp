// Two things a real network does to a DHCP server:
// - RFC 3442 clients ignore `routers` once they get classless static routes (121, and 249 on
//   Windows): the reply adds the default route via the first router unless one is there;
// - ISC dhcrelay on the router also relays the unicast renewal it forwards: the relayed copy
//   of a renewal just answered is dropped as a duplicate, not read as a rebind.
#include <gtest/gtest.h>

#include "engine_yaml.hpp"

namespace landlord::engine::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes option_of(const Outcome& outcome, std::uint8_t code) {
  const auto value = outcome.reply->message.options.get(code);
  return {value.begin(), value.end()};
}

// ------------------------------------------------------------------ RFC 3442 default route

std::string routes_config(std::string_view server, std::string_view subnet_options) {
  return "server: {interfaces: [veth-local]" + std::string(server) + "}\n" +
         "classes:\n"
         "  - name: branch\n"
         "    match: {hardware-address: \"02:00:00:00:00:42\"}\n"
         "    options: {classless-static-routes: \"198.18.4.0/22 via 198.18.0.253\"}\n"
         "subnets:\n"
         "  - subnet: 198.18.0.0/24\n"
         "    interfaces: [veth-local]\n"
         "    options: {" + std::string(subnet_options) + "}\n"
         "    pools: [198.18.0.100-198.18.0.150]\n";
}

constexpr std::string_view kRoutesAndRouters =
    R"(routers: [198.18.0.1, 198.18.0.2], classless-static-routes: "198.18.2.0/24 via 198.18.0.254",)"
    R"( ms-classless-static-routes: "198.18.2.0/24 via 198.18.0.254")";

// RFC 3442 §"DHCP Client Behavior": with 121 the client ignores option 3, so 0.0.0.0/0 via the
// first router is added to 121 and 249 (the configured route first, as written).
TEST(Rfc3442DefaultRoute, AddedViaTheFirstRouterWhenTheRoutesLackOne) {
  Harness harness{load_yaml(routes_config("", kRoutesAndRouters))};
  const Outcome offer = harness.discover(1);
  const Bytes expected{24, 198, 18, 2, 198, 18, 0, 254, 0, 198, 18, 0, 1};
  EXPECT_EQ(option_of(offer, 121), expected);
  EXPECT_EQ(option_of(offer, 249), expected);
  EXPECT_EQ(option_of(offer, option::kRouters), (Bytes{198, 18, 0, 1, 198, 18, 0, 2}));
  const Outcome ack = harness.select(1, offer.reply->message.yiaddr);
  EXPECT_EQ(option_of(ack, 121), expected);
}

TEST(Rfc3442DefaultRoute, RoutesWithTheirOwnDefaultAreSentAsConfigured) {
  Harness harness{load_yaml(routes_config(
      "", R"(routers: 198.18.0.1, classless-static-routes: ["198.18.2.0/24 via 198.18.0.254", "0.0.0.0/0 via 198.18.0.9"])"))};
  EXPECT_EQ(option_of(harness.discover(1), 121), (Bytes{24, 198, 18, 2, 198, 18, 0, 254, 0, 198, 18, 0, 9}));
}

TEST(Rfc3442DefaultRoute, NothingAddedWithoutRoutersOrWhenTurnedOff) {
  Harness no_router{load_yaml(routes_config("", R"(classless-static-routes: "198.18.2.0/24 via 198.18.0.254")"))};
  EXPECT_EQ(option_of(no_router.discover(1), 121), (Bytes{24, 198, 18, 2, 198, 18, 0, 254}));
  Harness off{load_yaml(routes_config(", classless-default-route: false", kRoutesAndRouters))};
  const Outcome offer = off.discover(1);
  EXPECT_EQ(option_of(offer, 121), (Bytes{24, 198, 18, 2, 198, 18, 0, 254}));
  EXPECT_EQ(option_of(offer, 249), (Bytes{24, 198, 18, 2, 198, 18, 0, 254}));
  // Routers alone: no 121 appears.
  Harness routers_only{load_yaml(routes_config("", "routers: 198.18.0.1"))};
  EXPECT_FALSE(routers_only.discover(1).reply->message.options.has(121));
}

// Scopes combine per code: the routes of a class, the router of the subnet.
TEST(Rfc3442DefaultRoute, RoutesAndRouterFromDifferentScopes) {
  Harness harness{load_yaml(routes_config("", "routers: 198.18.0.1"))};
  const Outcome offer = harness.discover(0x42);
  EXPECT_EQ(option_of(offer, 121), (Bytes{22, 198, 18, 4, 198, 18, 0, 253, 0, 198, 18, 0, 1}));
  EXPECT_FALSE(offer.reply->message.options.has(249));
}

// ------------------------------------------------------------------ relayed renewal copies

// A client behind the relay kRelayAddress (198.18.1.1), bound on subnet 198.18.1.0/24.
Ipv4 relayed_client(Harness& harness, std::uint8_t client) {
  auto discover = client_message(MessageType::Discover, client);
  discover.giaddr = kRelayAddress;
  const Outcome offer = harness.send(discover, from_relay(kRelayAddress));
  EXPECT_EQ(reply_type(offer), MessageType::Offer);
  auto request = client_message(MessageType::Request, client);
  request.giaddr = kRelayAddress;
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  EXPECT_EQ(reply_type(harness.send(request, from_relay(kRelayAddress))), MessageType::Ack);
  return offer.reply->message.yiaddr;
}

wire::Message renewal(std::uint8_t client, Ipv4 address, std::uint32_t xid) {
  auto message = client_message(MessageType::Request, client);
  message.ciaddr = address;
  message.xid = xid;
  return message;
}

wire::Message relayed_copy(wire::Message message) {
  message.giaddr = kRelayAddress;
  message.hops = 1;
  return message;
}

// RFC 2131 §4.3.2 reads a REQUEST with ciaddr and giaddr as REBINDING. The copy of a renewal
// that dhcrelay sends on is not one: no reply, no record, no rebind, the fencing token kept.
TEST(RelayedRenewalCopy, IsDroppedAsADuplicateNotReadAsARebind) {
  Harness harness{make_config()};
  const Ipv4 address = relayed_client(harness, 1);
  harness.now += std::chrono::minutes{2};
  const Outcome renewed = harness.send(renewal(1, address, 0xabc), local_unicast(address));
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  ASSERT_EQ(renewed.mutations.size(), 1u);
  const lease::FencingToken token = renewed.mutations[0].fencing_token;

  harness.now += std::chrono::milliseconds{3};
  const Outcome copy = harness.send(relayed_copy(renewal(1, address, 0xabc)), from_relay(kRelayAddress));
  EXPECT_FALSE(copy.reply.has_value());
  EXPECT_TRUE(copy.mutations.empty());
  EXPECT_EQ(copy.event.kind, EventKind::Ignore);
  EXPECT_EQ(harness.engine.counters().duplicates, 1u);
  EXPECT_EQ(harness.engine.counters().rebinds, 0u);
  EXPECT_EQ(harness.engine.counters().renewals, 1u);
  const auto record = harness.engine.find(address);
  EXPECT_EQ(record->fencing_token, token);
  EXPECT_EQ(record->last_extension, lease::Extension::Renewing);
}

TEST(RelayedRenewalCopy, ARealRebindIsStillARebind) {
  Harness harness{make_config()};
  const Ipv4 address = relayed_client(harness, 1);
  harness.now += std::chrono::minutes{2};
  ASSERT_EQ(reply_type(harness.send(renewal(1, address, 0xabc), local_unicast(address))), MessageType::Ack);
  // Another exchange (new xid) through the relay: a rebind.
  harness.now += std::chrono::milliseconds{3};
  const Outcome other_xid = harness.send(relayed_copy(renewal(1, address, 0xabd)), from_relay(kRelayAddress));
  EXPECT_EQ(reply_type(other_xid), MessageType::Ack);
  EXPECT_EQ(harness.engine.counters().rebinds, 1u);
  // The same xid, but past the window: a rebind as well.
  ASSERT_EQ(reply_type(harness.send(renewal(1, address, 0xabe), local_unicast(address))), MessageType::Ack);
  harness.now += kRenewalCopyWindow + std::chrono::milliseconds{1};
  EXPECT_EQ(reply_type(harness.send(relayed_copy(renewal(1, address, 0xabe)), from_relay(kRelayAddress))),
            MessageType::Ack);
  EXPECT_EQ(harness.engine.counters().rebinds, 2u);
  // Another client's relayed request with the same xid is its own.
  const Ipv4 second = relayed_client(harness, 2);
  ASSERT_EQ(reply_type(harness.send(renewal(1, address, 0xac0), local_unicast(address))), MessageType::Ack);
  EXPECT_EQ(reply_type(harness.send(relayed_copy(renewal(2, second, 0xac0)), from_relay(kRelayAddress))),
            MessageType::Ack);
  EXPECT_EQ(harness.engine.counters().duplicates, 0u);
}

// A client that retransmits its unicast renewal (same xid: its ACK was lost) is answered again.
TEST(RelayedRenewalCopy, ADirectRetransmissionIsAnswered) {
  Harness harness{make_config()};
  const Ipv4 address = relayed_client(harness, 1);
  harness.now += std::chrono::minutes{2};
  ASSERT_EQ(reply_type(harness.send(renewal(1, address, 0xabc), local_unicast(address))), MessageType::Ack);
  harness.now += std::chrono::milliseconds{500};
  const Outcome again = harness.send(renewal(1, address, 0xabc), local_unicast(address));
  EXPECT_EQ(reply_type(again), MessageType::Ack);
  EXPECT_EQ(again.mutations.size(), 1u);
  EXPECT_EQ(harness.engine.counters().duplicates, 0u);
}

}  // namespace
}  // namespace landlord::engine::testing
