// Pool starvation defences (engine/admission.hpp) with an injected clock: token buckets, lease
// caps, outstanding offers per source, and the engine's view of which requests are new.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "engine_harness.hpp"
#include "landlord/engine/admission.hpp"

namespace landlord::engine::testing {
namespace {

constexpr Ipv4 kRelay{198, 18, 1, 1};
constexpr std::array<std::uint8_t, 6> kAttackerFrame = {0x02, 0xaa, 0, 0, 0, 1};

// What the "engine" holds, set by hand.
struct Holdings {
  std::set<std::pair<std::uint32_t, std::string>> offered, bound;
  static std::pair<std::uint32_t, std::string> entry(Ipv4 address, const ClientKey& client) {
    return {address.to_uint(), client.raw()};
  }
};

config::Config with_admission(const config::Admission& admission) {
  config::Config config = make_config();
  for (config::Subnet& subnet : config.subnets) subnet.admission = admission;
  return config;
}

config::Admission no_limits() {
  config::Admission admission;
  admission.client = {};
  admission.source_offers = 0;
  return admission;
}

class AdmissionTest : public ::testing::Test {
 protected:
  Holdings holdings;
  TimePoint now = kStart;

  Admission make(const config::Admission& limits) {
    return Admission{with_admission(limits),
                     [this](Ipv4 address, const ClientKey& client) {
                       return holdings.offered.contains(Holdings::entry(address, client));
                     },
                     [this](Ipv4 address, const ClientKey& client) {
                       return holdings.bound.contains(Holdings::entry(address, client));
                     }};
  }

  static Applicant direct(std::uint8_t chaddr_last, std::optional<std::array<std::uint8_t, 6>> frame = std::nullopt) {
    Applicant applicant;
    applicant.hardware = mac(chaddr_last);
    applicant.link = 2;
    applicant.frame_source = frame;
    return applicant;
  }

  static Applicant relayed(std::uint8_t chaddr_last, Ipv4 giaddr, std::span<const std::uint8_t> circuit = {},
                           std::span<const std::uint8_t> remote = {}) {
    Applicant applicant;
    applicant.hardware = mac(chaddr_last);
    applicant.giaddr = giaddr;
    applicant.circuit_id = circuit;
    applicant.remote_id = remote;
    return applicant;
  }

  // Admits and, when admitted, grants `address` (bound from then on).
  bool grant(Admission& admission, const Applicant& applicant, Ipv4 address) {
    if (admission.admit(1, applicant, now)) return false;
    const ClientKey client = ClientKey::from({}, applicant.hardware);
    holdings.bound.insert(Holdings::entry(address, client));
    admission.granted(1, applicant, address, client);
    return true;
  }
};

TEST_F(AdmissionTest, ClientBucketRefillsAtItsRateAndKeysAreIndependent) {
  config::Admission limits = no_limits();
  limits.client = {1.0, 2};
  Admission admission = make(limits);
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  EXPECT_EQ(admission.admit(1, direct(1), now), Refusal::ClientRate);
  EXPECT_FALSE(admission.admit(1, direct(2), now)) << "another client has a bucket of its own";
  now += 500ms;
  EXPECT_EQ(admission.admit(1, direct(1), now), Refusal::ClientRate) << "half a token is not one";
  now += 500ms;
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  now += 1h;  // a full bucket holds `burst`, never more
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  EXPECT_EQ(admission.admit(1, direct(1), now), Refusal::ClientRate);
  EXPECT_EQ(admission.counters().refused[static_cast<std::size_t>(Refusal::ClientRate)], 3u);
}

TEST_F(AdmissionTest, RelayBucketCountsEveryClientBehindOneGiaddrOrOneLink) {
  config::Admission limits = no_limits();
  limits.relay = {10.0, 3};
  Admission admission = make(limits);
  for (std::uint8_t i = 1; i <= 3; ++i) EXPECT_FALSE(admission.admit(1, relayed(i, kRelay), now));
  EXPECT_EQ(admission.admit(1, relayed(4, kRelay), now), Refusal::RelayRate);
  EXPECT_FALSE(admission.admit(1, relayed(4, Ipv4{198, 18, 1, 2}), now)) << "another relay";
  for (std::uint8_t i = 1; i <= 3; ++i) EXPECT_FALSE(admission.admit(1, direct(i), now));
  EXPECT_EQ(admission.admit(1, direct(9), now), Refusal::RelayRate) << "the link is a direct client's relay";
  now += 100ms;  // 10/s: one token back
  EXPECT_FALSE(admission.admit(1, direct(9), now));
}

TEST_F(AdmissionTest, CircuitBucketIsPerCircuitBehindItsRelay) {
  config::Admission limits = no_limits();
  limits.circuit = {1.0, 1};
  Admission admission = make(limits);
  const std::uint8_t port1[] = {'p', '1'}, port2[] = {'p', '2'};
  EXPECT_FALSE(admission.admit(1, relayed(1, kRelay, port1), now));
  EXPECT_EQ(admission.admit(1, relayed(2, kRelay, port1), now), Refusal::CircuitRate);
  EXPECT_FALSE(admission.admit(1, relayed(3, kRelay, port2), now));
  EXPECT_FALSE(admission.admit(1, relayed(4, Ipv4{198, 18, 1, 2}, port1), now)) << "same name, other relay";
  EXPECT_FALSE(admission.admit(1, relayed(5, kRelay), now)) << "no circuit-id: no circuit bucket";
}

TEST_F(AdmissionTest, ARefusedRequestChargesNoBucket) {
  config::Admission limits = no_limits();
  limits.client = {1.0, 1};
  limits.relay = {1.0, 1};
  Admission admission = make(limits);
  EXPECT_FALSE(admission.admit(1, direct(1), now));
  // Client 2 has a token, the link has none: refused, and client 2's token stays.
  EXPECT_EQ(admission.admit(1, direct(2), now), Refusal::RelayRate);
  now += 1s;
  EXPECT_FALSE(admission.admit(1, direct(2), now));
}

TEST_F(AdmissionTest, LeaseCapsHoldPerCircuitRemoteIdRelayAndMacPrefix) {
  config::Admission limits = no_limits();
  limits.circuit_leases = 2;
  limits.remote_leases = 3;
  Admission admission = make(limits);
  const std::uint8_t port1[] = {'p', '1'}, port2[] = {'p', '2'}, modem[] = {'m'};
  EXPECT_TRUE(grant(admission, relayed(1, kRelay, port1, modem), Ipv4{198, 18, 0, 101}));
  EXPECT_TRUE(grant(admission, relayed(2, kRelay, port1, modem), Ipv4{198, 18, 0, 102}));
  EXPECT_EQ(admission.admit(1, relayed(3, kRelay, port1, modem), now), Refusal::CircuitLeases);
  EXPECT_TRUE(grant(admission, relayed(3, kRelay, port2, modem), Ipv4{198, 18, 0, 103}));
  EXPECT_EQ(admission.admit(1, relayed(4, kRelay, port2, modem), now), Refusal::RemoteLeases);

  // A lease that ends makes room, once the key is checked again (at most a second later).
  holdings.bound.erase(Holdings::entry(Ipv4{198, 18, 0, 101}, key(1)));
  EXPECT_EQ(admission.admit(1, relayed(3, kRelay, port1), now), Refusal::CircuitLeases);
  now += 1s;
  EXPECT_FALSE(admission.admit(1, relayed(3, kRelay, port1), now));

  config::Admission per_link = no_limits();
  per_link.relay_leases = 2;
  Admission link = make(per_link);
  EXPECT_TRUE(grant(link, direct(10), Ipv4{198, 18, 0, 110}));
  EXPECT_TRUE(grant(link, direct(11), Ipv4{198, 18, 0, 111}));
  EXPECT_EQ(link.admit(1, direct(12), now), Refusal::RelayLeases);

  config::Admission per_prefix = no_limits();
  per_prefix.mac_prefix_leases = 1;
  per_prefix.mac_prefix_length = 3;
  Admission prefix = make(per_prefix);
  EXPECT_TRUE(grant(prefix, direct(20), Ipv4{198, 18, 0, 120}));
  EXPECT_EQ(prefix.admit(1, direct(21), now), Refusal::MacPrefixLeases) << "02:00:00 is one prefix";
  Applicant other_vendor = direct(22);
  const std::uint8_t bytes[6] = {4, 0, 0, 0, 0, 22};
  other_vendor.hardware = HardwareAddress(HardwareAddress::kEthernet, bytes);
  EXPECT_FALSE(prefix.admit(1, other_vendor, now));
}

TEST_F(AdmissionTest, OutstandingOffersAreCappedPerFrameSourceWhateverTheChaddr) {
  config::Admission limits = no_limits();
  limits.source_offers = 3;
  Admission admission = make(limits);
  for (std::uint8_t i = 1; i <= 3; ++i) {
    ASSERT_FALSE(admission.admit(1, direct(i, kAttackerFrame), now));
    const Ipv4 address{198, 18, 0, static_cast<std::uint8_t>(100 + i)};
    holdings.offered.insert(Holdings::entry(address, key(i)));
    admission.offered(1, direct(i, kAttackerFrame), address, key(i), now);
  }
  EXPECT_EQ(admission.admit(1, direct(4, kAttackerFrame), now), Refusal::SourceOffers);
  EXPECT_FALSE(admission.admit(1, direct(4), now)) << "another host (its frame source is its chaddr)";
  // An offer taken up (bound now) or lapsed is no longer outstanding.
  holdings.offered.erase(Holdings::entry(Ipv4{198, 18, 0, 101}, key(1)));
  holdings.bound.insert(Holdings::entry(Ipv4{198, 18, 0, 101}, key(1)));
  now += 1s;
  EXPECT_FALSE(admission.admit(1, direct(5, kAttackerFrame), now));
}

TEST_F(AdmissionTest, AddressesAreCappedPerFrameSourceSoANeighbourOnTheLinkIsServed) {
  config::Admission limits = no_limits();
  limits.source_leases = 3;
  limits.relay_leases = 10;  // the link's own cap: the attacker must not fill it
  Admission admission = make(limits);
  constexpr std::array<std::uint8_t, 6> kNeighbourFrame = {0x02, 0xbb, 0, 0, 0, 9};
  // One host, a new random chaddr each time (dhcpstarv): an offer held and two leases ...
  const Ipv4 offered{198, 18, 0, 101};
  ASSERT_FALSE(admission.admit(1, direct(1, kAttackerFrame), now));
  holdings.offered.insert(Holdings::entry(offered, key(1)));
  admission.offered(1, direct(1, kAttackerFrame), offered, key(1), now);
  EXPECT_TRUE(grant(admission, direct(2, kAttackerFrame), Ipv4{198, 18, 0, 102}));
  EXPECT_TRUE(grant(admission, direct(3, kAttackerFrame), Ipv4{198, 18, 0, 103}));
  // ... is its cap: offers count with leases.
  EXPECT_EQ(admission.admit(1, direct(4, kAttackerFrame), now), Refusal::SourceLeases);
  EXPECT_EQ(admission.admit(1, direct(5, kAttackerFrame), now), Refusal::SourceLeases);
  // Another host on the same link is served, under the same link cap.
  EXPECT_TRUE(grant(admission, direct(9, kNeighbourFrame), Ipv4{198, 18, 0, 109}));
  EXPECT_EQ(admission.counters().refused[static_cast<std::size_t>(Refusal::SourceLeases)], 2u);
  // A lease that ends makes room again (checked against the engine at most once a second).
  holdings.bound.erase(Holdings::entry(Ipv4{198, 18, 0, 102}, key(2)));
  EXPECT_EQ(admission.admit(1, direct(6, kAttackerFrame), now), Refusal::SourceLeases) << "not re-checked yet";
  now += 1s;
  EXPECT_FALSE(admission.admit(1, direct(6, kAttackerFrame), now));
}

TEST_F(AdmissionTest, TheSourceLeaseCapIsNotAppliedToRelayedRequests) {
  config::Admission limits = no_limits();
  limits.source_leases = 1;
  Admission admission = make(limits);
  EXPECT_TRUE(grant(admission, relayed(1, kRelay), Ipv4{198, 18, 0, 101}));
  EXPECT_TRUE(grant(admission, relayed(2, kRelay), Ipv4{198, 18, 0, 102})) << "a relay's LAN is many hosts";
}

TEST_F(AdmissionTest, NoLimitsMeansEveryRequestPasses) {
  Admission admission = make(no_limits());
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(admission.admit(1, direct(1, kAttackerFrame), now));
  EXPECT_EQ(admission.counters().admitted, 1000u);
}

TEST_F(AdmissionTest, CountsSaysWhetherOffersAndGrantsAreCountedInASubnet) {
  // handle_admitted builds the client's key only when counts() says it will be used.
  const Applicant local = direct(1, kAttackerFrame);
  const Applicant behind_relay = relayed(1, kRelay);
  EXPECT_FALSE(make(no_limits()).counts(1, local, true));
  EXPECT_FALSE(make(no_limits()).counts(1, local, false));
  const Admission defaults = make(config::Admission{});
  EXPECT_TRUE(defaults.counts(1, local, true)) << "outstanding offers are capped per source by default";
  EXPECT_FALSE(defaults.counts(1, behind_relay, true)) << "a relayed request has no source";
  EXPECT_FALSE(defaults.counts(1, local, false)) << "the defaults cap no lease";
  config::Admission leases = no_limits();
  leases.circuit_leases = 2;
  const Admission capped = make(leases);
  EXPECT_TRUE(capped.counts(1, behind_relay, true)) << "an OFFER holds its address against the cap";
  EXPECT_TRUE(capped.counts(1, behind_relay, false));
  EXPECT_FALSE(capped.counts(0, behind_relay, false)) << "no subnet";
  EXPECT_FALSE(capped.counts(99, behind_relay, false)) << "unknown subnet";
}

TEST_F(AdmissionTest, IdleKeysAreForgottenSoRandomAddressesCannotGrowTheTables) {
  config::Admission limits = no_limits();
  limits.client = {10.0, 1};  // a key is idle (full) again 100 ms after its request
  Admission admission = make(limits);
  std::size_t most = 0;
  for (std::uint32_t i = 0; i < 200'000; ++i) {
    Applicant applicant;
    const std::uint8_t bytes[6] = {2, 1, static_cast<std::uint8_t>(i >> 16), static_cast<std::uint8_t>(i >> 8),
                                   static_cast<std::uint8_t>(i), 0};
    applicant.hardware = HardwareAddress(HardwareAddress::kEthernet, bytes);
    ASSERT_FALSE(admission.admit(1, applicant, now));
    now += 1ms;  // 1000 new addresses a second
    most = std::max(most, admission.tracked_keys());
  }
  EXPECT_LT(most, 10'000u) << "a key idle for 100 ms is swept";
  EXPECT_EQ(admission.counters().forgotten, 0u);
}

// ---- the engine's side: which requests would give a new address

TEST(RequestFacts, OnlyRequestsForAnAddressTheClientDoesNotHoldAreNew) {
  Harness harness;
  const auto facts = [&](const wire::Message& message, const Ingress& ingress = local_broadcast()) {
    return harness.engine.request_facts(message, ingress);
  };
  const auto discover = client_message(MessageType::Discover, 1);
  EXPECT_EQ(facts(discover).subnet_id, 1u);
  EXPECT_TRUE(facts(discover).new_address);
  const Outcome offer = harness.send(discover);
  const Ipv4 offered = offer.reply->message.yiaddr;
  EXPECT_FALSE(facts(discover).new_address) << "a retransmitted DISCOVER gets the same offer";

  auto select = client_message(MessageType::Request, 1);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, offered);
  EXPECT_FALSE(facts(select).new_address) << "the REQUEST for its offer";
  auto other = select;
  other.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 177});
  EXPECT_TRUE(facts(other).new_address) << "a REQUEST for an address never offered to it";
  ASSERT_EQ(reply_type(harness.send(select)), MessageType::Ack);

  auto renew = client_message(MessageType::Request, 1);
  renew.ciaddr = offered;
  EXPECT_FALSE(facts(renew, local_unicast(offered)).new_address) << "renewing";
  EXPECT_FALSE(facts(renew).new_address) << "rebinding";
  auto reboot = client_message(MessageType::Request, 1);
  reboot.options.set_ipv4(option::kRequestedAddress, offered);
  EXPECT_FALSE(facts(reboot).new_address) << "INIT-REBOOT of its own lease";
  auto stranger = renew;
  stranger.chaddr[5] = 2;
  EXPECT_TRUE(facts(stranger, local_unicast(offered)).new_address) << "someone else's address";
  EXPECT_EQ(facts(client_message(MessageType::Decline, 1)).subnet_id, 0u) << "only DISCOVER and REQUEST";
}

// handle() given request_facts() skips choosing the subnet again: it must decide exactly as
// handle() alone, on every path (a subnet, a relay, no subnet, states of a REQUEST).
TEST(RequestFacts, HandleGivenTheFactsDecidesAsHandleAlone) {
  Harness alone, given;
  int replies = 0;
  const auto both = [&](const wire::Message& message, const Ingress& ingress) {
    const Outcome expected = alone.engine.handle(message, ingress, alone.now);
    const RequestFacts facts = given.engine.request_facts(message, ingress);
    const Outcome got = given.engine.handle(message, ingress, given.now, facts);
    SCOPED_TRACE(::testing::Message() << "xid " << message.xid);
    EXPECT_EQ(reply_type(got), reply_type(expected));
    EXPECT_EQ(got.event.kind, expected.event.kind);
    EXPECT_EQ(got.event.address, expected.event.address);
    EXPECT_EQ(got.event.reason, expected.event.reason);
    EXPECT_EQ(got.mutations.size(), expected.mutations.size());
    if (expected.reply) ++replies;
    return expected;
  };
  const Ipv4 offered = both(client_message(MessageType::Discover, 1), local_broadcast()).event.address;
  both(client_message(MessageType::Discover, 2), local_broadcast());
  auto relayed = client_message(MessageType::Discover, 4);
  relayed.giaddr = kListedRelay;  // subnet 2, by its relays list
  EXPECT_EQ(reply_type(both(relayed, from_relay(relayed.giaddr))), MessageType::Offer);
  auto lost = client_message(MessageType::Discover, 5);
  lost.giaddr = Ipv4{198, 19, 200, 1};  // no subnet for this relay: ignored for the same reason
  both(lost, from_relay(lost.giaddr));
  auto select = client_message(MessageType::Request, 1);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, offered);
  EXPECT_EQ(reply_type(both(select, local_broadcast())), MessageType::Ack);
  auto reboot = client_message(MessageType::Request, 2);
  reboot.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 150});  // the printer's
  EXPECT_EQ(reply_type(both(reboot, local_broadcast())), MessageType::Nak);
  auto renew = client_message(MessageType::Request, 1);
  renew.ciaddr = offered;
  EXPECT_EQ(reply_type(both(renew, local_unicast(offered))), MessageType::Ack);
  both(client_message(MessageType::Inform, 3), local_broadcast());  // facts not chosen
  EXPECT_GE(replies, 6);
}

// The server's path for one request (server/admission_gate.cpp): facts, admission, engine.
Admitted run(Harness& harness, Admission& admission, const wire::Message& message,
             const Ingress& ingress = local_broadcast(),
             std::optional<std::array<std::uint8_t, 6>> frame = std::nullopt) {
  return handle_admitted(harness.engine, admission, harness.engine.request_facts(message, ingress), message,
                         ingress, applicant_of(message, ingress, frame), harness.now);
}

Admission::Holds engine_holds(Harness& harness, lease::LeaseState state) {
  return [&harness, state](Ipv4 address, const ClientKey& client) {
    const auto record = harness.engine.find(address);
    return record && record->client == client && record->state == state;
  };
}

// A host on the link sending DISCOVERs with a new chaddr each time from one frame source,
// beside a legitimate client.
TEST(HandleAdmitted, OneHostCannotPinThePoolWithOfferHolds) {
  config::Admission limits;
  limits.source_offers = 4;
  Harness harness{with_admission(limits)};
  Admission admission{with_admission(limits), engine_holds(harness, lease::LeaseState::Offered),
                      engine_holds(harness, lease::LeaseState::Bound)};
  int offers = 0;
  for (int i = 0; i < 150; ++i) {  // more than the pool's 100 addresses
    auto message = client_message(MessageType::Discover, static_cast<std::uint8_t>(i));
    if (run(harness, admission, message, local_broadcast(), kAttackerFrame).outcome.reply) ++offers;
  }
  EXPECT_EQ(offers, 4);
  EXPECT_EQ(admission.counters().refused[static_cast<std::size_t>(Refusal::SourceOffers)], 146u);
  const auto legitimate = client_message(MessageType::Discover, 200);
  const Admitted admitted =
      run(harness, admission, legitimate, local_broadcast(), std::array<std::uint8_t, 6>{2, 0, 0, 0, 0, 200});
  EXPECT_EQ(reply_type(admitted.outcome), MessageType::Offer);
}

TEST(HandleAdmitted, AHoldersRenewalsNeverMeetALimit) {
  config::Admission strict;
  strict.client = {0.001, 1};
  strict.relay = {0.001, 1};
  Harness harness{with_admission(strict)};
  Admission admission{with_admission(strict), engine_holds(harness, lease::LeaseState::Offered),
                      engine_holds(harness, lease::LeaseState::Bound)};
  ASSERT_TRUE(run(harness, admission, client_message(MessageType::Discover, 1)).outcome.reply);
  EXPECT_EQ(run(harness, admission, client_message(MessageType::Discover, 2)).refusal, Refusal::RelayRate)
      << "the link's bucket is empty";
  const Ipv4 address = harness.engine.find(key(1))->address;
  auto select = client_message(MessageType::Request, 1);
  select.options.set_ipv4(option::kServerId, kServerAddress);
  select.options.set_ipv4(option::kRequestedAddress, address);
  ASSERT_EQ(reply_type(run(harness, admission, select).outcome), MessageType::Ack);
  for (int i = 0; i < 20; ++i) {
    auto renew = client_message(MessageType::Request, 1);
    renew.ciaddr = address;
    EXPECT_EQ(reply_type(run(harness, admission, renew, local_unicast(address)).outcome), MessageType::Ack);
    EXPECT_EQ(reply_type(run(harness, admission, renew).outcome), MessageType::Ack) << "rebinding";
    auto reboot = client_message(MessageType::Request, 1);
    reboot.options.set_ipv4(option::kRequestedAddress, address);
    EXPECT_EQ(reply_type(run(harness, admission, reboot).outcome), MessageType::Ack) << "INIT-REBOOT";
    harness.now += 1min;
  }
}

}  // namespace
}  // namespace landlord::engine::testing
