// The simulated client against RFC 2131 §4.4, one transition at a time. Each row names the
// section it checks; time is a parameter, so a lease of an hour runs in no time.
#include "landlord/sim/client.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;
using test::Server;
using wire::MessageType;

constexpr Ipv4 kOffered{198, 18, 0, 100};

// A client driven to a given state by real replies, so each test starts from a reachable state.
struct Harness {
  Client client{test::identity(0x10), Timing{}, 7};
  Server server;
  TimePoint now = test::kEpoch;
  Output out;

  Output step(const Input& input) { return out = client.step(input, now); }
  Output reply(const wire::Message& message) { return step(Received{&message}); }
  Output tick_at(TimePoint when) {
    now = when;
    return step(Tick{});
  }

  void to_selecting() { step(Start{}); }
  void to_requesting() {
    to_selecting();
    reply(server.offer(client.identity(), client.xid(), kOffered));
  }
  void to_bound(std::uint32_t lease_s = 3600, std::optional<std::uint32_t> t1 = std::nullopt,
                std::optional<std::uint32_t> t2 = std::nullopt) {
    to_requesting();
    reply(server.ack(client.identity(), client.xid(), kOffered, lease_s, t1, t2));
  }
  void to_renewing() {
    to_bound();
    tick_at(client.t1_at());
  }
  void to_rebinding() {
    to_renewing();
    tick_at(client.t2_at());
  }
  void to_rebooting() {
    to_bound();
    step(Reboot{});
  }
};

bool has_event(const Output& out, Event::Kind kind) {
  for (const Event& event : out.event_list()) {
    if (event.kind == kind) return true;
  }
  return false;
}

struct TransitionRow {
  const char* section;
  const char* what;
  std::function<void(Harness&)> setup;
  std::function<void(Harness&)> input;
  ClientState expected_state;
  std::optional<MessageType> expected_sent;
  Destination expected_destination = Destination::Broadcast;
};

class Transition : public ::testing::TestWithParam<TransitionRow> {};

TEST_P(Transition, FollowsFigure5) {
  const TransitionRow& row = GetParam();
  Harness h;
  row.setup(h);
  row.input(h);
  EXPECT_EQ(h.client.state(), row.expected_state) << row.section << ": " << row.what;
  if (row.expected_sent) {
    ASSERT_TRUE(h.out.transmission) << row.section << ": " << row.what;
    EXPECT_EQ(h.out.transmission->message.type(), row.expected_sent);
    EXPECT_EQ(h.out.transmission->destination, row.expected_destination);
    EXPECT_EQ(h.out.transmission->message.op, wire::Op::BootRequest);
    EXPECT_EQ(h.out.transmission->message.hardware_address(), h.client.identity().hardware);
  } else {
    EXPECT_FALSE(h.out.transmission) << row.section << ": " << row.what;
  }
}

const auto kNoSetup = [](Harness&) {};
const auto kOffer = [](Harness& h) {
  h.reply(h.server.offer(h.client.identity(), h.client.xid(), kOffered));
};
const auto kAck = [](Harness& h) {
  h.reply(h.server.ack(h.client.identity(), h.client.xid(),
                       h.client.address().is_zero() ? kOffered : h.client.address(), 3600));
};
const auto kNak = [](Harness& h) { h.reply(h.server.nak(h.client.identity(), h.client.xid())); };

INSTANTIATE_TEST_SUITE_P(
    Rfc2131, Transition,
    ::testing::Values(
        TransitionRow{"§4.4.1", "power on: INIT -> SELECTING with a broadcast DISCOVER", kNoSetup,
                      [](Harness& h) { h.step(Start{}); }, ClientState::Selecting,
                      MessageType::Discover},
        TransitionRow{"§4.4.1", "OFFER: SELECTING -> REQUESTING with a broadcast REQUEST",
                      [](Harness& h) { h.to_selecting(); }, kOffer, ClientState::Requesting,
                      MessageType::Request},
        TransitionRow{"§4.4.1", "ACK: REQUESTING -> BOUND", [](Harness& h) { h.to_requesting(); },
                      kAck, ClientState::Bound, std::nullopt},
        TransitionRow{"§4.4.1", "NAK: REQUESTING -> INIT, discovery restarts",
                      [](Harness& h) { h.to_requesting(); }, kNak, ClientState::Selecting,
                      MessageType::Discover},
        TransitionRow{"§4.4.1", "an ACK in SELECTING is ignored",
                      [](Harness& h) { h.to_selecting(); }, kAck, ClientState::Selecting,
                      std::nullopt},
        TransitionRow{"§4.4.1", "a second OFFER in REQUESTING is ignored",
                      [](Harness& h) { h.to_requesting(); }, kOffer, ClientState::Requesting,
                      std::nullopt},
        TransitionRow{"§4.4.5", "T1: BOUND -> RENEWING, REQUEST unicast to the server",
                      [](Harness& h) { h.to_bound(); },
                      [](Harness& h) { h.tick_at(h.client.t1_at()); }, ClientState::Renewing,
                      MessageType::Request, Destination::ServerUnicast},
        TransitionRow{"§4.4.5", "ACK: RENEWING -> BOUND", [](Harness& h) { h.to_renewing(); }, kAck,
                      ClientState::Bound, std::nullopt},
        TransitionRow{"§4.4.5", "NAK: RENEWING -> INIT", [](Harness& h) { h.to_renewing(); }, kNak,
                      ClientState::Selecting, MessageType::Discover},
        TransitionRow{"§4.4.5", "T2: RENEWING -> REBINDING, REQUEST broadcast",
                      [](Harness& h) { h.to_renewing(); },
                      [](Harness& h) { h.tick_at(h.client.t2_at()); }, ClientState::Rebinding,
                      MessageType::Request},
        TransitionRow{"§4.4.5", "ACK: REBINDING -> BOUND", [](Harness& h) { h.to_rebinding(); },
                      kAck, ClientState::Bound, std::nullopt},
        TransitionRow{"§4.4.5", "NAK: REBINDING -> INIT", [](Harness& h) { h.to_rebinding(); },
                      kNak, ClientState::Selecting, MessageType::Discover},
        TransitionRow{"§4.4.5", "lease expiry: REBINDING -> INIT, discovery restarts",
                      [](Harness& h) { h.to_rebinding(); },
                      [](Harness& h) { h.tick_at(h.client.lease_expiry()); },
                      ClientState::Selecting, MessageType::Discover},
        TransitionRow{"§4.4.2", "restart with a lease: INIT-REBOOT -> REBOOTING, REQUEST broadcast",
                      [](Harness& h) { h.to_bound(); }, [](Harness& h) { h.step(Reboot{}); },
                      ClientState::Rebooting, MessageType::Request},
        TransitionRow{"§4.4.2", "restart without a lease starts from INIT",
                      [](Harness& h) { h.to_selecting(); }, [](Harness& h) { h.step(Reboot{}); },
                      ClientState::Selecting, MessageType::Discover},
        TransitionRow{"§4.4.2", "ACK: REBOOTING -> BOUND", [](Harness& h) { h.to_rebooting(); },
                      kAck, ClientState::Bound, std::nullopt},
        TransitionRow{"§4.4.2", "NAK: REBOOTING -> INIT", [](Harness& h) { h.to_rebooting(); },
                      kNak, ClientState::Selecting, MessageType::Discover},
        TransitionRow{"§4.4.1/§3.1.5", "declined ACK: DECLINE broadcast, back to INIT",
                      [](Harness& h) {
                        h.client.decline_next_ack();
                        h.to_requesting();
                      },
                      kAck, ClientState::Init, MessageType::Decline},
        TransitionRow{"§4.4.6", "departure with a lease: RELEASE unicast to the server",
                      [](Harness& h) { h.to_bound(); }, [](Harness& h) { h.step(Depart{true}); },
                      ClientState::Stopped, MessageType::Release, Destination::ServerUnicast},
        TransitionRow{"§4.4.6", "vanishing: nothing sent, the lease is left to expire",
                      [](Harness& h) { h.to_bound(); }, [](Harness& h) { h.step(Depart{false}); },
                      ClientState::Stopped, std::nullopt}));

// §4.4.1 table 5 ("fields in a DHCPREQUEST" by state): what each REQUEST carries.
TEST(RequestFields, SelectingNamesServerAndAddressWithZeroCiaddr) {
  Harness h;
  h.to_selecting();
  const std::uint32_t xid = h.client.xid();
  h.reply(h.server.offer(h.client.identity(), xid, kOffered));
  const wire::Message& request = h.out.transmission->message;
  EXPECT_EQ(request.xid, xid) << "§4.4.1: the REQUEST keeps the OFFER's xid";
  EXPECT_TRUE(request.ciaddr.is_zero());
  EXPECT_EQ(request.options.get_ipv4(wire::option::kRequestedAddress), kOffered);
  EXPECT_EQ(request.options.get_ipv4(wire::option::kServerId), test::kServerId);
  EXPECT_EQ(request.client_id(), h.client.identity().client_id);
}

TEST(RequestFields, InitRebootAsksForTheOldAddressWithoutServerId) {
  Harness h;
  h.to_rebooting();
  const wire::Message& request = h.out.transmission->message;
  EXPECT_TRUE(request.ciaddr.is_zero());
  EXPECT_EQ(request.options.get_ipv4(wire::option::kRequestedAddress), kOffered);
  EXPECT_FALSE(request.options.has(wire::option::kServerId));
}

TEST(RequestFields, RenewingAndRebindingSetCiaddrOnly) {
  Harness h;
  h.to_renewing();
  const Transmission renew = *h.out.transmission;
  EXPECT_EQ(renew.message.ciaddr, kOffered);
  EXPECT_EQ(renew.server, test::kServerId) << "§4.4.5: unicast to the server of option 54";
  EXPECT_FALSE(renew.message.options.has(wire::option::kRequestedAddress));
  EXPECT_FALSE(renew.message.options.has(wire::option::kServerId));
  h.tick_at(h.client.t2_at());
  const Transmission rebind = *h.out.transmission;
  EXPECT_EQ(rebind.message.ciaddr, kOffered);
  EXPECT_EQ(rebind.destination, Destination::Broadcast);
  EXPECT_FALSE(rebind.message.options.has(wire::option::kRequestedAddress));
  EXPECT_FALSE(rebind.message.options.has(wire::option::kServerId));
}

TEST(RequestFields, DeclineAndReleaseFollowTheTable) {
  Harness declining;
  declining.client.decline_next_ack();
  declining.to_bound();
  const wire::Message& decline = declining.out.transmission->message;
  EXPECT_TRUE(decline.ciaddr.is_zero());
  EXPECT_EQ(decline.options.get_ipv4(wire::option::kRequestedAddress), kOffered);
  EXPECT_EQ(decline.options.get_ipv4(wire::option::kServerId), test::kServerId);

  Harness releasing;
  releasing.to_bound();
  releasing.step(Depart{true});
  const wire::Message& release = releasing.out.transmission->message;
  EXPECT_EQ(release.ciaddr, kOffered);
  EXPECT_EQ(release.options.get_ipv4(wire::option::kServerId), test::kServerId);
  EXPECT_FALSE(release.options.has(wire::option::kRequestedAddress));
}

// §4.4.5: T1 and T2 come from options 58/59, else 0.5 and 0.875 of the lease; the lease runs
// from when the REQUEST was sent (§4.4.1), not when the ACK arrived.
TEST(LeaseTimers, UseOptions58And59) {
  Harness h;
  h.to_requesting();
  const TimePoint sent = h.now;
  h.now += 300ms;
  h.reply(h.server.ack(h.client.identity(), h.client.xid(), kOffered, 1000, 400, 700));
  EXPECT_EQ(h.client.t1_at(), sent + 400s);
  EXPECT_EQ(h.client.t2_at(), sent + 700s);
  EXPECT_EQ(h.client.lease_expiry(), sent + 1000s);
  EXPECT_EQ(h.client.next_deadline(), sent + 400s);
}

TEST(LeaseTimers, DefaultToHalfAndSevenEighths) {
  Harness h;
  h.to_bound(1000);
  EXPECT_EQ(h.client.t1_at(), test::kEpoch + 500s);
  EXPECT_EQ(h.client.t2_at(), test::kEpoch + 875s);
}

TEST(LeaseTimers, InconsistentServerTimersFallBackToDefaults) {
  Harness h;
  h.to_bound(1000, 900, 800);  // T1 > T2: a server fault the auditor reports
  EXPECT_EQ(h.client.t1_at(), test::kEpoch + 500s);
  EXPECT_EQ(h.client.t2_at(), test::kEpoch + 875s);
}

TEST(LeaseTimers, RenewAndRebindFractionsAreReported) {
  Harness h;
  h.to_bound(1000);
  h.tick_at(h.client.t1_at());
  ASSERT_TRUE(has_event(h.out, Event::Kind::RenewStarted));
  EXPECT_DOUBLE_EQ(h.out.events[0].lease_fraction, 0.5);
  h.tick_at(h.client.t2_at());
  ASSERT_TRUE(has_event(h.out, Event::Kind::RebindStarted));
  EXPECT_DOUBLE_EQ(h.out.events[0].lease_fraction, 0.875);
}

TEST(LeaseTimers, RenewedLeaseRunsFromTheRenewal) {
  Harness h;
  h.to_renewing();
  const TimePoint renewed_at = h.now;
  h.now += 1s;
  h.reply(h.server.ack(h.client.identity(), h.client.xid(), kOffered, 3600));
  EXPECT_TRUE(has_event(h.out, Event::Kind::Renewed));
  EXPECT_EQ(h.client.lease_expiry(), renewed_at + 3600s);
  EXPECT_EQ(h.client.next_deadline(), renewed_at + 1800s);
}

// §4.4.5: in RENEWING wait half the time left to T2, in REBINDING half the time left to
// expiry, never less than the minimum (60 s by default).
TEST(Retransmission, RenewingAndRebindingWaitHalfTheRemainingTime) {
  Harness h;
  h.to_renewing();  // lease 3600: T1 1800, T2 3150 -> 1350 s left
  const TimePoint t1 = h.client.t1_at();
  EXPECT_EQ(h.client.next_deadline(), t1 + 675s);
  h.tick_at(t1 + 675s);
  EXPECT_TRUE(has_event(h.out, Event::Kind::Retransmitted));
  EXPECT_EQ(h.out.transmission->destination, Destination::ServerUnicast);
  EXPECT_EQ(h.client.next_deadline(), h.now + 337500ms);
  h.tick_at(h.client.t2_at() - 70s);
  EXPECT_EQ(h.client.next_deadline(), h.now + 60s) << "half of 70 s is below the 60 s floor";
  h.tick_at(*h.client.next_deadline());
  EXPECT_EQ(h.client.next_deadline(), h.client.t2_at()) << "never past T2";
  h.tick_at(h.client.t2_at());
  EXPECT_EQ(h.client.state(), ClientState::Rebinding);
  EXPECT_EQ(h.client.next_deadline(), h.client.t2_at() + 225s);  // (3600 - 3150) / 2
}

TEST(Retransmission, MinimumIsConfigurableForShortLabLeases) {
  Client client(test::identity(0x11), Timing::with_retransmit_base(1s, 2s), 7);
  Server server;
  TimePoint now = test::kEpoch;
  client.step(Start{}, now);
  const auto offer = server.offer(client.identity(), client.xid(), kOffered);
  client.step(Received{&offer}, now);
  const auto ack = server.ack(client.identity(), client.xid(), kOffered, 20);
  client.step(Received{&ack}, now);
  now = client.t1_at();  // 10 s; T2 at 17.5 s
  client.step(Tick{}, now);
  EXPECT_EQ(client.next_deadline(), now + 3750ms);
  now += 3750ms;
  client.step(Tick{}, now);  // 3.75 s left: half is 1.875 s, below the 2 s floor
  EXPECT_EQ(client.next_deadline(), now + 2s);
}

// §4.1: 4 s, 8 s, 16 s, ... 64 s, each randomised by ±1 s; retransmissions keep the xid.
TEST(Retransmission, ExponentialBackoffWithJitter) {
  Harness h;
  h.to_selecting();
  const std::uint32_t xid = h.client.xid();
  for (std::int64_t nominal_s : {4, 8, 16, 32, 64, 64, 64}) {
    const Duration wait = *h.client.next_deadline() - h.now;
    EXPECT_GE(wait, Duration{nominal_s * 1000 - 1000});
    EXPECT_LE(wait, Duration{nominal_s * 1000 + 1000});
    h.tick_at(*h.client.next_deadline());
    ASSERT_TRUE(h.out.transmission);
    EXPECT_TRUE(h.out.transmission->retransmission);
    EXPECT_EQ(h.out.transmission->message.xid, xid);
  }
}

// §2: `secs` counts from the first DISCOVER of the acquisition, as real clients fill it (peers
// answer a DISCOVER outside their hash buckets once it is old enough).
TEST(Retransmission, SecsCountsFromTheFirstDiscover) {
  Harness h;
  h.to_selecting();
  ASSERT_TRUE(h.out.transmission);
  EXPECT_EQ(h.out.transmission->message.secs, 0);
  const TimePoint started = h.now;
  for (int retransmission = 0; retransmission < 3; ++retransmission) {
    h.tick_at(*h.client.next_deadline());
    ASSERT_TRUE(h.out.transmission);
    const auto waited_s = std::chrono::duration_cast<std::chrono::seconds>(h.now - started).count();
    EXPECT_GT(waited_s, 0);
    EXPECT_EQ(h.out.transmission->message.secs, waited_s);
  }
}

TEST(Retransmission, BaseScalesTheWholeSchedule) {
  const Timing timing = Timing::with_retransmit_base(500ms, 60s);
  EXPECT_EQ(timing.retransmit_max, 8s);
  EXPECT_EQ(timing.jitter, 125ms);
}

// §3.1.5: no ACK or NAK after the retransmissions: back to INIT.
TEST(Retransmission, RequestingGivesUpAndRestarts) {
  Harness h;
  h.to_requesting();
  for (int i = 1; i < Timing{}.request_attempts; ++i) {
    h.tick_at(*h.client.next_deadline());
    EXPECT_EQ(h.client.state(), ClientState::Requesting);
  }
  h.tick_at(*h.client.next_deadline());
  EXPECT_TRUE(has_event(h.out, Event::Kind::GaveUp));
  EXPECT_EQ(h.client.state(), ClientState::Selecting);
  EXPECT_EQ(h.out.transmission->message.type(), MessageType::Discover);
}

// §3.1.5: after a DECLINE, wait at least 10 s before restarting.
TEST(Decline, RestartsDiscoveryAfterTenSeconds) {
  Harness h;
  h.client.decline_next_ack();
  h.to_bound();
  EXPECT_TRUE(has_event(h.out, Event::Kind::Declined));
  EXPECT_EQ(h.client.next_deadline(), h.now + 10s);
  h.tick_at(h.now + 9s);
  EXPECT_FALSE(h.out.transmission);
  h.tick_at(h.now + 1s);
  EXPECT_EQ(h.client.state(), ClientState::Selecting);
  // Only the first address is declined: the next ACK binds.
  h.reply(h.server.offer(h.client.identity(), h.client.xid(), kOffered));
  h.reply(h.server.ack(h.client.identity(), h.client.xid(), kOffered, 3600));
  EXPECT_EQ(h.client.state(), ClientState::Bound);
}

TEST(Replies, ForeignXidOrChaddrIsIgnored) {
  Harness h;
  h.to_selecting();
  h.reply(h.server.offer(h.client.identity(), h.client.xid() + 1, kOffered));
  EXPECT_EQ(h.client.state(), ClientState::Selecting);
  h.reply(h.server.offer(test::identity(0x99), h.client.xid(), kOffered));
  EXPECT_EQ(h.client.state(), ClientState::Selecting);
}

TEST(Replies, RenewalWithAnotherAddressIsReported) {
  Harness h;
  h.to_renewing();
  h.reply(h.server.ack(h.client.identity(), h.client.xid(), Ipv4{198, 18, 0, 200}, 3600));
  ASSERT_TRUE(has_event(h.out, Event::Kind::AddressChanged));
  EXPECT_EQ(h.out.events[0].expected_address, kOffered);
  EXPECT_EQ(h.out.events[0].address, (Ipv4{198, 18, 0, 200}));
}

TEST(Replies, AckWithoutLeaseTimeIsIgnored) {
  Harness h;
  h.to_requesting();
  wire::Message ack = h.server.ack(h.client.identity(), h.client.xid(), kOffered, 3600);
  ack.options.erase(wire::option::kLeaseTime);
  h.reply(ack);
  EXPECT_EQ(h.client.state(), ClientState::Requesting);
}

TEST(Determinism, SameSeedSameXids) {
  Client a(test::identity(1), Timing{}, 99);
  Client b(test::identity(1), Timing{}, 99);
  const Output first = a.step(Start{}, test::kEpoch);
  const Output second = b.step(Start{}, test::kEpoch);
  EXPECT_EQ(first.transmission->message.xid, second.transmission->message.xid);
  EXPECT_EQ(a.next_deadline(), b.next_deadline());
}

}  // namespace
}  // namespace landlord::sim
