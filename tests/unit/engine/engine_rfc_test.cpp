// One test per RFC rule; each names its section.
#include <gtest/gtest.h>

#include "engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

// ---------------------------------------------------------------- RFC 2131 §4.1 reply routing

struct RoutingCase {
  const char* name;
  MessageType reply;  // what the exchange produces
  Ipv4 giaddr, ciaddr;
  bool broadcast_bit;
  bool relay_port_suboption;
  Route route;
  Ipv4 destination;  // 0 = the offered yiaddr
  std::uint16_t port;
};

class Rfc2131Section41Routing : public ::testing::TestWithParam<RoutingCase> {};

TEST_P(Rfc2131Section41Routing, ReplyGoesWhereTheTableSays) {
  const RoutingCase& c = GetParam();
  Harness harness;
  wire::Message message;
  Ingress ingress = local_broadcast();
  if (c.reply == MessageType::Offer) {
    message = client_message(MessageType::Discover, 1);
  } else if (c.reply == MessageType::Nak) {
    message = client_message(MessageType::Request, 1);  // INIT-REBOOT for a wrong address
    message.options.set_ipv4(option::kRequestedAddress, Ipv4{10, 0, 0, 1});
  } else {  // ACK to a renewal of a bound lease
    const Ipv4 address = harness.dora(1);
    message = client_message(MessageType::Request, 1);
    ingress = local_unicast(address);
  }
  message.giaddr = c.giaddr;
  message.ciaddr = c.ciaddr;
  if (c.broadcast_bit) message.flags = wire::kBroadcastFlag;
  if (!c.giaddr.is_zero()) {
    ingress = from_relay(c.giaddr, c.relay_port_suboption ? 1067 : kServerPort);
    message.options.set_ipv4(option::kSubnetSelection, Ipv4{198, 18, 0, 0});
    if (c.relay_port_suboption) {
      message.options.set(option::kRelayAgentInfo, std::vector<std::uint8_t>{1, 1, 7, 19, 0});
    }
  }
  const Outcome outcome = harness.send(message, ingress);
  ASSERT_TRUE(outcome.reply) << c.name << ": " << outcome.event.reason;
  ASSERT_EQ(outcome.reply->message.type(), c.reply) << c.name << ": " << outcome.event.reason;
  EXPECT_EQ(outcome.reply->route, c.route) << c.name;
  const Ipv4 expected = c.destination.is_zero() ? outcome.reply->message.yiaddr : c.destination;
  EXPECT_EQ(outcome.reply->destination, expected) << c.name;
  EXPECT_EQ(outcome.reply->port, c.port) << c.name;
}

const Ipv4 kLeased{198, 18, 0, 100};  // the first pool address: what dora(1) gets

INSTANTIATE_TEST_SUITE_P(
    Table, Rfc2131Section41Routing,
    ::testing::Values(RoutingCase{"giaddr: to the relay's server port",
                                  MessageType::Offer,
                                  kRelayAddress,
                                  {},
                                  false,
                                  false,
                                  Route::Relay,
                                  kRelayAddress,
                                  kServerPort},
                      RoutingCase{"giaddr beats the broadcast bit",
                                  MessageType::Offer,
                                  kRelayAddress,
                                  {},
                                  true,
                                  false,
                                  Route::Relay,
                                  kRelayAddress,
                                  kServerPort},
                      RoutingCase{"RFC 8357 relay port: back to the relay's source port",
                                  MessageType::Offer,
                                  kRelayAddress,
                                  {},
                                  false,
                                  true,
                                  Route::Relay,
                                  kRelayAddress,
                                  1067},
                      RoutingCase{"NAK without giaddr: broadcast",
                                  MessageType::Nak,
                                  {},
                                  {},
                                  false,
                                  false,
                                  Route::Broadcast,
                                  kBroadcast,
                                  kClientPort},
                      RoutingCase{"NAK with giaddr: to the relay",
                                  MessageType::Nak,
                                  kRelayAddress,
                                  {},
                                  false,
                                  false,
                                  Route::Relay,
                                  kRelayAddress,
                                  kServerPort},
                      RoutingCase{"ciaddr: unicast to ciaddr",
                                  MessageType::Ack,
                                  {},
                                  kLeased,
                                  true,
                                  false,
                                  Route::Ciaddr,
                                  kLeased,
                                  kClientPort},
                      RoutingCase{"broadcast bit: broadcast",
                                  MessageType::Offer,
                                  {},
                                  {},
                                  true,
                                  false,
                                  Route::Broadcast,
                                  kBroadcast,
                                  kClientPort},
                      RoutingCase{"otherwise: to yiaddr at chaddr",
                                  MessageType::Offer,
                                  {},
                                  {},
                                  false,
                                  false,
                                  Route::DirectToClient,
                                  {},
                                  kClientPort}),
    CaseName());

TEST(Rfc2131Section432, NakThroughARelaySetsTheBroadcastBit) {
  Harness harness;
  auto message = client_message(MessageType::Request, 1);
  message.giaddr = kRelayAddress;
  message.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 7});  // wrong link
  const Outcome outcome = harness.send(message, from_relay(kRelayAddress));
  ASSERT_EQ(reply_type(outcome), MessageType::Nak);
  EXPECT_TRUE(outcome.reply->message.broadcast());
}

// ------------------------------------------------------------ RFC 2131 §4.2 client identity

TEST(Rfc2131Section42Identity, ClientIdentifierWinsOverChaddr) {
  Harness harness;
  const auto with_id = [](std::uint8_t mac_last, std::uint8_t id) {
    auto message = client_message(MessageType::Discover, mac_last);
    message.options.set(option::kClientId, std::vector<std::uint8_t>{0, id});
    return message;
  };
  const Ipv4 first = harness.send(with_id(1, 7)).reply->message.yiaddr;
  // Same chaddr, different option 61: another client, another address.
  EXPECT_NE(harness.send(with_id(1, 8)).reply->message.yiaddr, first);
  // Different chaddr, same option 61: the same client, the same address.
  EXPECT_EQ(harness.send(with_id(2, 7)).reply->message.yiaddr, first);
  const std::uint8_t id7[] = {0, 7};
  EXPECT_EQ(harness.engine.find(ClientKey::from(ClientId(id7), mac(2)))->address, first);
}

TEST(Rfc2131Section42Identity, WithoutOption61TheKeyIsHtypePlusChaddr) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  ASSERT_NE(harness.engine.find(key(1)), std::nullopt);
  EXPECT_EQ(harness.engine.find(key(1))->address, address);
  auto other_type = client_message(MessageType::Discover, 1);
  other_type.htype = 6;  // IEEE 802: same bytes, another hardware type, another client
  EXPECT_NE(harness.send(other_type).reply->message.yiaddr, address);
}

// -------------------------------------------------- RFC 2131 §4.3.1 offer and allocation order

struct AllocationCase {
  const char* name;
  std::uint8_t client;
  std::optional<Ipv4> requested;
  Ipv4 expected;
};

class Rfc2131Section431AllocationOrder : public ::testing::TestWithParam<AllocationCase> {};

// Setup shared by every row: client 1 holds .100 (bound); client 2 held .101 and it expired;
// client 3 was offered .102. Client 0x99 has a reservation for .150 (inside the pool).
TEST_P(Rfc2131Section431AllocationOrder, OfferFollowsTheOrder) {
  const AllocationCase& c = GetParam();
  Harness harness;
  ASSERT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 100}));
  ASSERT_EQ(harness.dora(2), (Ipv4{198, 18, 0, 101}));
  harness.advance(2h);  // both expire
  ASSERT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 100}));
  ASSERT_EQ(harness.discover(3).reply->message.yiaddr, (Ipv4{198, 18, 0, 102}));
  const Outcome offer = harness.discover(c.client, c.requested);
  ASSERT_EQ(reply_type(offer), MessageType::Offer) << c.name;
  EXPECT_EQ(offer.reply->message.yiaddr, c.expected) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Rfc2131Section431AllocationOrder,
    ::testing::Values(AllocationCase{"reservation first, even over a requested address", 0x99,
                                     Ipv4{198, 18, 0, 120}, Ipv4{198, 18, 0, 150}},
                      AllocationCase{"current lease before the requested address", 1,
                                     Ipv4{198, 18, 0, 120}, Ipv4{198, 18, 0, 100}},
                      AllocationCase{"most recent lease after expiry (affinity)", 2, std::nullopt,
                                     Ipv4{198, 18, 0, 101}},
                      AllocationCase{"a pending offer is the current lease", 3,
                                     Ipv4{198, 18, 0, 130}, Ipv4{198, 18, 0, 102}},
                      AllocationCase{"requested address when free", 4, Ipv4{198, 18, 0, 120},
                                     Ipv4{198, 18, 0, 120}},
                      AllocationCase{"requested address bound to another: next free", 4,
                                     Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 103}},
                      AllocationCase{"requested address whose lease expired: not allocated", 4,
                                     Ipv4{198, 18, 0, 101}, Ipv4{198, 18, 0, 101}},
                      AllocationCase{"requested address outside the pools: next free", 4,
                                     Ipv4{198, 18, 0, 5}, Ipv4{198, 18, 0, 103}},
                      AllocationCase{"requested address reserved for another: next free", 4,
                                     Ipv4{198, 18, 0, 150}, Ipv4{198, 18, 0, 103}},
                      AllocationCase{"no preference: lowest clean pool address", 4, std::nullopt,
                                     Ipv4{198, 18, 0, 103}}),
    CaseName());

// §4.3.1: an address whose lease expired or was released is "not allocated". A new client that
// asks for it (option 50) is offered it and granted it; the previous holder, coming back, gets
// another address. Affinity for the previous holder holds only while nobody asks.
TEST(Rfc2131Section431, EndedLeaseIsNotAnAllocationTheRequesterGetsIt) {
  Harness harness;
  const Ipv4 expired = harness.dora(1);
  const Ipv4 released = harness.dora(2);
  ASSERT_EQ(harness.release(2, released).event.kind, EventKind::Release);
  harness.advance(2h);  // client 1's lease expires
  ASSERT_EQ(harness.engine.find(expired)->state, lease::LeaseState::Expired);
  // Nobody asks: the clean addresses go first, the ended leases stay their holders'.
  const Ipv4 clean = harness.dora(3);
  EXPECT_NE(clean, expired);
  EXPECT_NE(clean, released);
  for (const auto& [requester, wanted] : {std::pair{4, expired}, std::pair{5, released}}) {
    const Outcome offer = harness.discover(static_cast<std::uint8_t>(requester), wanted);
    ASSERT_EQ(reply_type(offer), MessageType::Offer);
    EXPECT_EQ(offer.reply->message.yiaddr, wanted);
    const Outcome ack = harness.select(static_cast<std::uint8_t>(requester), wanted);
    ASSERT_EQ(reply_type(ack), MessageType::Ack);
    // A change of holder: the record takes a new fencing token.
    EXPECT_EQ(ack.mutations.at(0).fencing_token, 2u);
  }
  // The previous holders come back to other addresses.
  EXPECT_NE(harness.dora(1), expired);
  EXPECT_NE(harness.dora(2), released);
}

// An offer to another client, a bound lease and a decline hold are allocations: the requester
// gets another address.
TEST(Rfc2131Section431, OfferedBoundOrDeclinedAddressIsStillAllocated) {
  Harness harness;
  const Ipv4 bound = harness.dora(1);
  const Ipv4 offered = harness.discover(2).reply->message.yiaddr;
  const Ipv4 declined = harness.dora(3);
  ASSERT_EQ(harness.decline(3, declined).event.kind, EventKind::Decline);
  std::uint8_t newcomer = 4;  // one per address: a client's own offer would come first
  for (const Ipv4 wanted : {bound, offered, declined}) {
    const Outcome offer = harness.discover(newcomer++, wanted);
    ASSERT_EQ(reply_type(offer), MessageType::Offer);
    EXPECT_NE(offer.reply->message.yiaddr, wanted);
  }
}

TEST(Rfc2131Section431, ReservedAddressInsideThePoolIsNeverHandedToAnotherClient) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 149}, Ipv4{198, 18, 0, 150}}};
  Harness harness(config);
  EXPECT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 149}));
  EXPECT_EQ(harness.discover(2, Ipv4{198, 18, 0, 150}).event.reason,
            "pool exhausted: no free address in the subnet");
  EXPECT_EQ(reply_type(harness.select(2, Ipv4{198, 18, 0, 150})), MessageType::Nak);
  EXPECT_EQ(harness.dora(0x99), (Ipv4{198, 18, 0, 150}));
}

TEST(Rfc2131Section431, ReservationByClientIdentifierOutsideThePool) {
  Harness harness;
  auto message = client_message(MessageType::Discover, 5);
  message.options.set(option::kClientId, std::vector<std::uint8_t>{0xff, 0, 0, 0, 1});
  const Outcome offer = harness.send(message);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 20}));
}

TEST(Rfc2131Section431, ReservationByChaddrHoldsWhenTheClientAlsoSendsOption61) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 0x99);
  discover.options.set(option::kClientId, std::vector<std::uint8_t>{1, 2, 0, 0, 0, 0, 0x99});
  const Outcome offer = harness.send(discover);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 150}));
  auto request = client_message(MessageType::Request, 0x99);
  request.options.set(option::kClientId, std::vector<std::uint8_t>{1, 2, 0, 0, 0, 0, 0x99});
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 150});
  const Outcome ack = harness.send(request);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(ack.mutations.at(0).hostname, "printer");
}

TEST(Rfc2131Section431, OfferIsAnInMemoryHoldNotAMutation) {
  Harness harness;
  const Outcome offer = harness.discover(1);
  EXPECT_TRUE(offer.mutations.empty());
  EXPECT_EQ(offer.event.kind, EventKind::Offer);
  const Ipv4 address = offer.reply->message.yiaddr;
  ASSERT_NE(harness.engine.find(address), std::nullopt);
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Offered);
  // While held, nobody else gets it.
  EXPECT_NE(harness.discover(2).reply->message.yiaddr, address);
  // The hold ends after offer_hold without a write; the address is free again.
  EXPECT_EQ(harness.engine.next_deadline(), harness.now + 30s);
  EXPECT_TRUE(harness.advance(31s).empty());
  EXPECT_EQ(harness.engine.find(address), std::nullopt);
  EXPECT_EQ(harness.discover(3).reply->message.yiaddr, address);
}

// ------------------------------------------------------------ RFC 2131 §4.3.2 DHCPREQUEST

TEST(Rfc2131Section432Selecting, RequestNamingUsIsAcknowledgedAndWritten) {
  Harness harness;
  const Ipv4 address = harness.discover(1).reply->message.yiaddr;
  const Outcome ack = harness.select(1, address);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(ack.reply->message.yiaddr, address);
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].state, lease::LeaseState::Bound);
  EXPECT_EQ(ack.mutations[0].granted_at, harness.now);
  EXPECT_EQ(ack.event.kind, EventKind::Grant);
}

TEST(Rfc2131Section432Selecting, RequestNamingAnotherServerReleasesOurHoldSilently) {
  Harness harness;
  const Ipv4 address = harness.discover(1).reply->message.yiaddr;
  const Outcome outcome = harness.select(1, Ipv4{198, 18, 0, 250}, kOtherServer);
  EXPECT_FALSE(outcome.reply);
  EXPECT_TRUE(outcome.mutations.empty());
  EXPECT_EQ(harness.engine.find(address), std::nullopt);
  EXPECT_EQ(harness.discover(2).reply->message.yiaddr, address);
}

TEST(Rfc2131Section432Selecting, RequestForAnAddressHeldByAnotherIsNaked) {
  Harness harness;
  const Ipv4 taken = harness.dora(1);
  const Outcome outcome = harness.select(2, taken);
  ASSERT_EQ(reply_type(outcome), MessageType::Nak);
  EXPECT_TRUE(outcome.mutations.empty());
  EXPECT_EQ(harness.engine.find(taken)->client, key(1));
}

TEST(Rfc2131Section432Selecting, LapsedOfferIsStillGrantedWhenTheAddressIsFree) {
  Harness harness;
  const Ipv4 address = harness.discover(1).reply->message.yiaddr;
  harness.advance(5min);  // the hold ended; nobody took the address
  EXPECT_EQ(reply_type(harness.select(1, address)), MessageType::Ack);
}

struct InitRebootCase {
  const char* name;
  bool authoritative;
  std::uint8_t client;
  Ipv4 requested;
  std::optional<MessageType> reply;  // nullopt = silence
};

class Rfc2131Section432InitReboot : public ::testing::TestWithParam<InitRebootCase> {};

// Setup: client 1 holds .100. Client 9 is unknown to the server.
TEST_P(Rfc2131Section432InitReboot, AnswersPerRule) {
  const InitRebootCase& c = GetParam();
  config::Config config = make_config();
  config.server.authoritative = c.authoritative;
  Harness harness(config);
  ASSERT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 100}));
  const Outcome outcome = harness.init_reboot(c.client, c.requested);
  EXPECT_EQ(reply_type(outcome), c.reply) << c.name << ": " << outcome.event.reason;
  if (c.reply == MessageType::Ack) {
    EXPECT_EQ(outcome.reply->message.yiaddr, c.requested) << c.name;
    EXPECT_EQ(outcome.mutations.size(), 1u) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Rfc2131Section432InitReboot,
    ::testing::Values(
        InitRebootCase{"own lease: ACK", true, 1, Ipv4{198, 18, 0, 100}, MessageType::Ack},
        InitRebootCase{"own lease, not authoritative: ACK", false, 1, Ipv4{198, 18, 0, 100},
                       MessageType::Ack},
        InitRebootCase{"wrong link: NAK", true, 1, Ipv4{10, 1, 2, 3}, MessageType::Nak},
        InitRebootCase{"known client, wrong link, not authoritative: NAK", false, 1,
                       Ipv4{10, 1, 2, 3}, MessageType::Nak},
        InitRebootCase{"another client's lease: NAK", true, 9, Ipv4{198, 18, 0, 100},
                       MessageType::Nak},
        InitRebootCase{"unknown client, free address, authoritative: ACK (as Kea)", true, 9,
                       Ipv4{198, 18, 0, 140}, MessageType::Ack},
        InitRebootCase{"unknown client, not authoritative: silence", false, 9,
                       Ipv4{198, 18, 0, 140}, std::nullopt},
        InitRebootCase{"unknown client, wrong link, not authoritative: silence", false, 9,
                       Ipv4{10, 1, 2, 3}, std::nullopt},
        InitRebootCase{"a second address for a client with a lease here: NAK", true, 1,
                       Ipv4{198, 18, 0, 140}, MessageType::Nak}),
    CaseName());

struct ExtensionCase {
  const char* name;
  bool rebinding;
  bool authoritative;
  std::uint8_t client;
  Ipv4 ciaddr;
  std::optional<MessageType> reply;
};

class Rfc2131Section432Extension : public ::testing::TestWithParam<ExtensionCase> {};

// Setup: client 1 holds .100. §4.3.2: RENEWING is unicast with ciaddr, REBINDING broadcast.
// Beyond the reply's type: an ACK extends ciaddr itself for the subnet's lease time (1 h, T1
// 0.5, T2 0.875) from now and writes exactly that record; a NAK or silence writes nothing and
// leaves client 1's lease as it was.
TEST_P(Rfc2131Section432Extension, AnswersPerRule) {
  const ExtensionCase& c = GetParam();
  config::Config config = make_config();
  config.server.authoritative = c.authoritative;
  Harness harness(config);
  const Ipv4 held{198, 18, 0, 100};
  ASSERT_EQ(harness.dora(1), held);
  const lease::Lease before = *harness.engine.find(held);
  harness.advance(40min);
  const Outcome outcome =
      c.rebinding ? harness.rebind(c.client, c.ciaddr) : harness.renew(c.client, c.ciaddr);
  ASSERT_EQ(reply_type(outcome), c.reply) << c.name << ": " << outcome.event.reason;
  if (c.reply == MessageType::Ack) {
    const wire::Message& ack = outcome.reply->message;
    EXPECT_EQ(ack.yiaddr, c.ciaddr) << c.name;
    EXPECT_EQ(ack.options.get_u32(option::kLeaseTime), 3600u) << c.name;
    EXPECT_EQ(ack.options.get_u32(option::kRenewalTime), 1800u) << c.name;
    EXPECT_EQ(ack.options.get_u32(option::kRebindingTime), 3150u) << c.name;
    ASSERT_EQ(outcome.mutations.size(), 1u) << c.name;
    const lease::Lease& written = outcome.mutations[0];
    EXPECT_EQ(written.address, c.ciaddr) << c.name;
    EXPECT_EQ(written.client, key(c.client)) << c.name;
    EXPECT_EQ(written.state, lease::LeaseState::Bound) << c.name;
    EXPECT_EQ(written.granted_at, harness.now) << c.name;
    EXPECT_EQ(written.lease_time, Duration{1h}) << c.name;
    EXPECT_EQ(written.last_extension,
              c.rebinding ? lease::Extension::Rebinding : lease::Extension::Renewing)
        << c.name;
    EXPECT_EQ(harness.engine.find(c.ciaddr)->expires_at(), harness.now + 1h) << c.name;
  } else {
    EXPECT_TRUE(outcome.mutations.empty()) << c.name;
    if (outcome.reply) {
      EXPECT_TRUE(outcome.reply->message.yiaddr.is_zero()) << c.name;
      EXPECT_FALSE(outcome.reply->message.options.has(option::kLeaseTime)) << c.name;
    }
  }
  if (c.reply != MessageType::Ack || c.ciaddr != held) {  // client 1's lease is untouched
    const lease::Lease after = *harness.engine.find(held);
    EXPECT_EQ(after.client, key(1)) << c.name;
    EXPECT_EQ(after.state, lease::LeaseState::Bound) << c.name;
    EXPECT_EQ(after.expires_at(), before.expires_at()) << c.name;
    EXPECT_EQ(after.fencing_token, before.fencing_token) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Rfc2131Section432Extension,
    ::testing::Values(ExtensionCase{"renewing own lease: ACK", false, true, 1,
                                    Ipv4{198, 18, 0, 100}, MessageType::Ack},
                      ExtensionCase{"rebinding own lease: ACK", true, true, 1,
                                    Ipv4{198, 18, 0, 100}, MessageType::Ack},
                      ExtensionCase{"renewing another client's lease: NAK", false, true, 2,
                                    Ipv4{198, 18, 0, 100}, MessageType::Nak},
                      ExtensionCase{"rebinding another client's lease: NAK", true, false, 2,
                                    Ipv4{198, 18, 0, 100}, MessageType::Nak},
                      ExtensionCase{"renewing an unknown lease, not authoritative: NAK", false,
                                    false, 2, Ipv4{198, 18, 0, 140}, MessageType::Nak},
                      ExtensionCase{"rebinding an unknown lease, not authoritative: silence", true,
                                    false, 2, Ipv4{198, 18, 0, 140}, std::nullopt},
                      ExtensionCase{"rebinding an unknown free address, authoritative: ACK", true,
                                    true, 2, Ipv4{198, 18, 0, 140}, MessageType::Ack},
                      ExtensionCase{"rebinding with an address of another link: NAK", true, true, 2,
                                    Ipv4{198, 18, 1, 100}, MessageType::Nak}),
    CaseName());

TEST(Rfc2131Section432, RenewingAndRebindingAreRecordedAsSuch) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  EXPECT_EQ(harness.engine.find(address)->last_extension, lease::Extension::None);
  harness.advance(30min);
  const Outcome renewed = harness.renew(1, address);
  EXPECT_EQ(renewed.event.kind, EventKind::Renew);
  EXPECT_EQ(renewed.mutations.at(0).last_extension, lease::Extension::Renewing);
  harness.advance(53min);
  const Outcome rebound = harness.rebind(1, address);
  EXPECT_EQ(rebound.event.kind, EventKind::Rebind);
  EXPECT_EQ(rebound.mutations.at(0).last_extension, lease::Extension::Rebinding);
  EXPECT_EQ(harness.engine.counters().renewals, 1u);
  EXPECT_EQ(harness.engine.counters().rebinds, 1u);
}

// ------------------------------------------------------------ RFC 2131 §4.3.3 DHCPDECLINE

TEST(Rfc2131Section433Decline, DeclinedAddressLeavesServiceForTheDeclineHold) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  const Outcome outcome = harness.decline(1, address);
  EXPECT_FALSE(outcome.reply);
  ASSERT_EQ(outcome.mutations.size(), 1u);
  EXPECT_EQ(outcome.mutations[0].state, lease::LeaseState::Declined);
  EXPECT_EQ(outcome.mutations[0].expires_at(), harness.now + 10min);
  EXPECT_EQ(outcome.event.kind, EventKind::Decline);
  // Not offered again, not even to the client that declined it.
  EXPECT_NE(harness.discover(1).reply->message.yiaddr, address);
  EXPECT_NE(harness.discover(2, address).reply->message.yiaddr, address);
}

TEST(Rfc2131Section433Decline, DeclineFromAnotherClientIsIgnored) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  const Outcome outcome = harness.decline(2, address);
  EXPECT_TRUE(outcome.mutations.empty());
  EXPECT_EQ(outcome.event.kind, EventKind::Ignore);
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Bound);
}

// ------------------------------------------------------------ RFC 2131 §4.3.4 DHCPRELEASE

TEST(Rfc2131Section434Release, ReleasedAddressIsFreeAndRemembered) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  harness.advance(10min);
  const Outcome outcome = harness.release(1, address);
  EXPECT_FALSE(outcome.reply);
  ASSERT_EQ(outcome.mutations.size(), 1u);
  EXPECT_EQ(outcome.mutations[0].state, lease::LeaseState::Released);
  EXPECT_EQ(outcome.mutations[0].expires_at(), harness.now);
  // The client comes back to the same address (affinity), and no longer holds a deadline.
  EXPECT_EQ(harness.engine.next_deadline(), std::nullopt);
  EXPECT_EQ(harness.discover(1).reply->message.yiaddr, address);
}

TEST(Rfc2131Section434Release, ReleaseOfAnotherClientsLeaseIsIgnored) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  const Outcome outcome = harness.release(2, address);
  EXPECT_TRUE(outcome.mutations.empty());
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Bound);
}

// ------------------------------------------------------------ RFC 2131 §4.3.5 DHCPINFORM

TEST(Rfc2131Section435Inform, AckCarriesOptionsButNoLease) {
  Harness harness;
  auto message = client_message(MessageType::Inform, 1);
  const Ipv4 configured{198, 18, 0, 9};  // set by hand on the client
  message.ciaddr = configured;
  const Outcome outcome = harness.send(message, local_unicast(configured));
  ASSERT_EQ(reply_type(outcome), MessageType::Ack);
  const wire::Message& ack = outcome.reply->message;
  EXPECT_TRUE(ack.yiaddr.is_zero());
  EXPECT_EQ(ack.ciaddr, configured);
  EXPECT_FALSE(ack.options.has(option::kLeaseTime));
  EXPECT_FALSE(ack.options.has(option::kRenewalTime));
  EXPECT_FALSE(ack.options.has(option::kRebindingTime));
  EXPECT_TRUE(ack.options.has(option::kRouters));
  EXPECT_EQ(outcome.reply->route, Route::Ciaddr);
  EXPECT_EQ(outcome.reply->destination, configured);
  EXPECT_TRUE(outcome.mutations.empty());
  EXPECT_EQ(harness.engine.find(configured), std::nullopt);
  EXPECT_EQ(harness.engine.counters().informs, 1u);
}

// ------------------------------------------------------------ RFC 2131 Table 3 header fields

TEST(Rfc2131Table3, OfferAckAndNakFieldsAreCopiedOrZeroed) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 1);
  discover.xid = 0xdeadbeef;
  discover.secs = 9;
  discover.hops = 1;
  discover.flags = wire::kBroadcastFlag;
  discover.siaddr = Ipv4{1, 2, 3, 4};
  const wire::Message offer = harness.send(discover).reply->message;
  EXPECT_EQ(offer.op, wire::Op::BootReply);
  EXPECT_EQ(offer.htype, discover.htype);
  EXPECT_EQ(offer.hlen, discover.hlen);
  EXPECT_EQ(offer.hops, 0);
  EXPECT_EQ(offer.xid, 0xdeadbeefu);
  EXPECT_EQ(offer.secs, 0);
  EXPECT_TRUE(offer.ciaddr.is_zero());
  EXPECT_EQ(offer.yiaddr, (Ipv4{198, 18, 0, 100}));
  EXPECT_TRUE(offer.siaddr.is_zero());
  EXPECT_EQ(offer.flags, wire::kBroadcastFlag);
  EXPECT_EQ(offer.giaddr, discover.giaddr);
  EXPECT_EQ(offer.chaddr, discover.chaddr);

  harness.select(1, offer.yiaddr);
  auto renewal = client_message(MessageType::Request, 1);
  renewal.ciaddr = offer.yiaddr;
  const wire::Message ack = harness.send(renewal, local_unicast(offer.yiaddr)).reply->message;
  EXPECT_EQ(ack.type(), MessageType::Ack);
  EXPECT_EQ(ack.ciaddr, offer.yiaddr);  // ACK: ciaddr from the REQUEST
  EXPECT_EQ(ack.yiaddr, offer.yiaddr);

  const wire::Message nak = harness.init_reboot(2, offer.yiaddr).reply->message;
  EXPECT_EQ(nak.type(), MessageType::Nak);
  EXPECT_TRUE(nak.ciaddr.is_zero());
  EXPECT_TRUE(nak.yiaddr.is_zero());
  EXPECT_TRUE(nak.siaddr.is_zero());
  EXPECT_TRUE(nak.options.has(option::kMessage));
  for (const std::uint8_t code : {option::kLeaseTime, option::kRenewalTime, option::kRebindingTime,
                                  option::kSubnetMask, option::kRouters}) {
    EXPECT_FALSE(nak.options.has(code)) << int{code};
  }
}

// Order: 53, 54, 51, 58, 59, 1, configured options in the client's option 55 order, the other
// configured options, then the echoes: 118 (RFC 3011), 61 (RFC 6842), 82 last (RFC 3046).
TEST(Rfc2131Section431Options, FixedOptionsThenRequestedOrderThenTheRest) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 1);
  discover.options.set(
      option::kParameterRequestList,
      std::vector<std::uint8_t>{option::kDomainName, option::kSubnetMask, option::kDnsServers});
  discover.options.set(option::kClientId, std::vector<std::uint8_t>{1, 2, 0, 0, 0, 0, 1});
  discover.options.set(option::kRelayAgentInfo, std::vector<std::uint8_t>{1, 2, 0xab, 0xcd});
  discover.giaddr = kRelayAddress;
  discover.options.set_ipv4(option::kSubnetSelection, Ipv4{198, 18, 0, 0});
  const wire::Message offer = harness.send(discover, from_relay(kRelayAddress)).reply->message;
  const std::vector<std::uint8_t> expected = {
      option::kMessageType,     option::kServerId,      option::kLeaseTime,
      option::kRenewalTime,     option::kRebindingTime, option::kSubnetMask,
      option::kDomainName,      option::kDnsServers,    option::kRouters,
      option::kSubnetSelection, option::kClientId,      option::kRelayAgentInfo};
  EXPECT_EQ(codes(offer), expected);
  EXPECT_EQ(offer.options.get_ipv4(option::kServerId), kServerAddress);
  EXPECT_EQ(offer.options.get_u32(option::kLeaseTime), 3600u);
  EXPECT_EQ(offer.options.get_u32(option::kRenewalTime), 1800u);    // 50 %
  EXPECT_EQ(offer.options.get_u32(option::kRebindingTime), 3150u);  // 87.5 %
  EXPECT_EQ(offer.options.get_ipv4(option::kSubnetMask), (Ipv4{255, 255, 255, 0}));
}

TEST(Rfc2131Section431Options, ServerIdComesFromTheConfigWhenSet) {
  config::Config config = make_config();
  config.server.server_id = Ipv4{198, 18, 0, 254};
  Harness harness(config);
  const Outcome offer = harness.discover(1);
  EXPECT_EQ(offer.reply->message.options.get_ipv4(option::kServerId), (Ipv4{198, 18, 0, 254}));
  // A SELECTING REQUEST must name that id to be ours.
  EXPECT_FALSE(harness.select(1, offer.reply->message.yiaddr).reply);
  EXPECT_EQ(reply_type(harness.select(1, offer.reply->message.yiaddr, Ipv4{198, 18, 0, 254})),
            MessageType::Ack);
}

TEST(Rfc2131Section432, SubnetLeaseTimesOverrideTheDefaults) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 1);
  discover.giaddr = kRelayAddress;
  const wire::Message offer = harness.send(discover, from_relay(kRelayAddress)).reply->message;
  EXPECT_EQ(offer.options.get_u32(option::kLeaseTime), 600u);
  EXPECT_EQ(offer.options.get_u32(option::kRenewalTime), 120u);
  EXPECT_EQ(offer.options.get_u32(option::kRebindingTime), 525u);
}

// Option 57 is the datagram the client accepts (576 at least, RFC 2131 §2); the reply's DHCP
// message leaves room for 28 bytes of IP and UDP headers and never exceeds a 1500-byte MTU.
TEST(Rfc2132Section910, ReplySizeFollowsOption57WithinLimits) {
  Harness harness;
  const auto size_for = [&](std::optional<std::uint16_t> max) {
    auto discover = client_message(MessageType::Discover, 1);
    if (max) discover.options.set_u16(option::kMaxMessageSize, *max);
    return harness.send(discover).reply->max_size;
  };
  EXPECT_EQ(size_for(std::nullopt), 548);
  EXPECT_EQ(size_for(300), 548);
  EXPECT_EQ(size_for(1000), 972);
  EXPECT_EQ(size_for(1500), 1472);
  EXPECT_EQ(size_for(9000), 1472);
}

// ------------------------------------------------------------ RFC 6842 client identifier echo

TEST(Rfc6842, ClientIdentifierIsEchoedInOfferAckAndNak) {
  Harness harness;
  const std::vector<std::uint8_t> id = {1, 2, 0, 0, 0, 0, 1};
  auto discover = client_message(MessageType::Discover, 1);
  discover.options.set(option::kClientId, id);
  const wire::Message offer = harness.send(discover).reply->message;
  auto request = client_message(MessageType::Request, 1);
  request.options.set(option::kClientId, id);
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.yiaddr);
  const wire::Message ack = harness.send(request).reply->message;
  auto bad = client_message(MessageType::Request, 2);
  bad.options.set(option::kClientId, std::vector<std::uint8_t>{9, 9});
  bad.options.set_ipv4(option::kRequestedAddress, Ipv4{10, 0, 0, 1});
  const wire::Message nak = harness.send(bad).reply->message;
  for (const wire::Message* reply : {&offer, &ack}) {
    const auto echoed = reply->options.get(option::kClientId);
    EXPECT_EQ(std::vector<std::uint8_t>(echoed.begin(), echoed.end()), id);
  }
  EXPECT_EQ(nak.type(), MessageType::Nak);
  EXPECT_EQ(nak.options.get(option::kClientId).size(), 2u);
  // Without option 61 in the request, none in the reply.
  EXPECT_FALSE(harness.discover(3).reply->message.options.has(option::kClientId));
}

// ------------------------------------------------------------ RFC 3046 relay agent information

TEST(Rfc3046, RelayAgentInformationIsEchoedUnchangedAndLast) {
  Harness harness;
  const std::vector<std::uint8_t> info = {1, 3, 'e', 't', '1', 2, 2, 0xbe, 0xef};
  auto discover = client_message(MessageType::Discover, 1);
  discover.giaddr = kRelayAddress;
  discover.options.set(option::kRelayAgentInfo, info);
  discover.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 1, 101});
  const Outcome outcome = harness.send(discover, from_relay(kRelayAddress));
  ASSERT_EQ(reply_type(outcome), MessageType::Offer);
  const auto echoed = outcome.reply->message.options.get(option::kRelayAgentInfo);
  EXPECT_EQ(std::vector<std::uint8_t>(echoed.begin(), echoed.end()), info);
  EXPECT_EQ(codes(outcome.reply->message).back(), option::kRelayAgentInfo);
}

// ------------------------------------------------------------ subnet selection

TEST(Rfc3011, SubnetSelectionOptionChoosesTheSubnet) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 1);
  discover.options.set_ipv4(option::kSubnetSelection, Ipv4{198, 18, 1, 0});
  const Outcome outcome = harness.send(discover);  // arrives on the local link
  ASSERT_EQ(reply_type(outcome), MessageType::Offer);
  EXPECT_EQ(outcome.reply->message.yiaddr, (Ipv4{198, 18, 1, 100}));
  // §3: the option comes back unchanged in the reply.
  EXPECT_EQ(outcome.reply->message.options.get_ipv4(option::kSubnetSelection),
            (Ipv4{198, 18, 1, 0}));
  EXPECT_FALSE(harness.discover(2).reply->message.options.has(option::kSubnetSelection));
  discover.options.set_ipv4(option::kSubnetSelection, Ipv4{10, 9, 9, 9});
  const Outcome unknown = harness.send(discover);
  EXPECT_FALSE(unknown.reply);
  EXPECT_EQ(unknown.event.reason, "no subnet for the subnet-selection option (RFC 3011)");
}

TEST(Rfc3527, LinkSelectionSubOptionBeatsOption118AndGiaddr) {
  Harness harness;
  auto discover = client_message(MessageType::Discover, 1);
  discover.giaddr = kServerAddress;  // giaddr on the local subnet...
  discover.options.set_ipv4(option::kSubnetSelection, Ipv4{198, 18, 0, 0});
  // ...but the relay says the client's link is 198.18.1.0/24 (sub-option 5).
  discover.options.set(option::kRelayAgentInfo, std::vector<std::uint8_t>{5, 4, 198, 18, 1, 0});
  const Outcome outcome = harness.send(discover, from_relay(kServerAddress));
  ASSERT_EQ(reply_type(outcome), MessageType::Offer);
  EXPECT_EQ(outcome.reply->message.yiaddr, (Ipv4{198, 18, 1, 100}));
  EXPECT_EQ(outcome.reply->destination, kServerAddress);  // still answered through giaddr
}

TEST(Rfc2131Section42SubnetSelection, GiaddrInsideOrListedSelectsTheSubnet) {
  Harness harness;
  for (const Ipv4 relay : {kRelayAddress, kListedRelay}) {
    auto discover = client_message(MessageType::Discover, relay == kRelayAddress ? 1 : 2);
    discover.giaddr = relay;
    const Outcome outcome = harness.send(discover, from_relay(relay));
    ASSERT_EQ(reply_type(outcome), MessageType::Offer);
    EXPECT_TRUE((Cidr{Ipv4{198, 18, 1, 0}, 24}.contains(outcome.reply->message.yiaddr)));
  }
  auto stray = client_message(MessageType::Discover, 3);
  stray.giaddr = Ipv4{10, 0, 0, 1};
  const Outcome outcome = harness.send(stray, from_relay(stray.giaddr));
  EXPECT_FALSE(outcome.reply);
  EXPECT_EQ(outcome.event.reason, "no subnet for the relay address (giaddr)");
}

TEST(Rfc2131Section42SubnetSelection, IngressInterfaceByAddressOrByName) {
  Harness harness;
  Ingress by_name;
  by_name.interface_name = "veth-local";
  by_name.to_broadcast = true;
  const Outcome named = harness.send(client_message(MessageType::Discover, 1), by_name);
  ASSERT_EQ(reply_type(named), MessageType::Offer);
  EXPECT_EQ(named.reply->message.yiaddr, (Ipv4{198, 18, 0, 100}));
  Ingress elsewhere;
  elsewhere.interface_name = "eth9";
  elsewhere.interface_address = Ipv4{10, 1, 1, 1};
  elsewhere.to_broadcast = true;
  const Outcome ignored = harness.send(client_message(MessageType::Discover, 2), elsewhere);
  EXPECT_FALSE(ignored.reply);
  EXPECT_EQ(ignored.event.reason, "no subnet for the ingress interface");
  EXPECT_EQ(harness.engine.counters().ignored, 1u);
}

// ------------------------------------------------------------ messages a server never answers

TEST(Rfc2131Section41Ignored, BootReplyAndServerMessageTypesFromAClientAreDropped) {
  Harness harness;
  auto reply = client_message(MessageType::Discover, 1);
  reply.op = wire::Op::BootReply;
  EXPECT_FALSE(harness.send(reply).reply);
  for (const auto type : {MessageType::Offer, MessageType::Ack, MessageType::Nak}) {
    const Outcome outcome = harness.send(client_message(type, 1));
    EXPECT_FALSE(outcome.reply);
    EXPECT_EQ(outcome.event.kind, EventKind::Ignore);
  }
  wire::Message untyped = client_message(MessageType::Discover, 1);
  untyped.options.erase(option::kMessageType);
  EXPECT_FALSE(harness.send(untyped).reply);
  EXPECT_EQ(harness.engine.counters().ignored, 5u);
  EXPECT_EQ(harness.engine.counters().offers, 0u);
}

}  // namespace
}  // namespace landlord::engine::testing
