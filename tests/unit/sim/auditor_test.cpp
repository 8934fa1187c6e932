// The auditor against crafted reply sequences: each violation it knows, detected from the
// replies alone, and the legitimate sequences that look similar left alone.
#include "landlord/sim/auditor.hpp"

#include <gtest/gtest.h>

#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;
using test::kEpoch;

constexpr Ipv4 kAddress{198, 18, 0, 50};

Event leased(Ipv4 address, TimePoint sent, Duration lease = 60s,
             Event::Kind kind = Event::Kind::Leased) {
  Event event;
  event.kind = kind;
  event.exchange = Exchange::Request;
  event.address = address;
  event.lease_start = sent;
  event.lease_time = lease;
  return event;
}

TEST(Auditor, TwoHoldersOfOneAddress) {
  Auditor auditor;
  auditor.on_event(1, leased(kAddress, kEpoch), kEpoch + 5ms);
  auditor.on_event(2, leased(kAddress, kEpoch + 10s), kEpoch + 10s);
  ASSERT_EQ(auditor.violation_count(), 1u);
  EXPECT_EQ(auditor.violations()[0].kind, Violation::Kind::DuplicateAddress);
}

TEST(Auditor, AddressMayMoveOnAfterExpiry) {
  Auditor auditor;
  auditor.on_event(1, leased(kAddress, kEpoch), kEpoch);
  auditor.on_event(2, leased(kAddress, kEpoch + 61s), kEpoch + 61s);
  EXPECT_EQ(auditor.violation_count(), 0u);
}

TEST(Auditor, RoundingToWholeSecondsIsTolerated) {
  Auditor auditor;  // one second of grace
  auditor.on_event(1, leased(kAddress, kEpoch + 900ms), kEpoch + 900ms);
  auditor.on_event(2, leased(kAddress, kEpoch + 60s), kEpoch + 60s);
  EXPECT_EQ(auditor.violation_count(), 0u);
}

TEST(Auditor, AddressMayMoveOnAfterReleaseDeclineOrNak) {
  for (const Event::Kind end : {Event::Kind::Released, Event::Kind::Declined, Event::Kind::Nak}) {
    Auditor auditor;
    auditor.on_event(1, leased(kAddress, kEpoch), kEpoch);
    Event ended = leased(kAddress, kEpoch);
    ended.kind = end;
    auditor.on_event(1, ended, kEpoch + 1s);
    auditor.on_event(2, leased(kAddress, kEpoch + 2s), kEpoch + 2s);
    EXPECT_EQ(auditor.violation_count(), 0u) << static_cast<int>(end);
  }
}

TEST(Auditor, ClientMovingToANewAddressGivesUpTheOld) {
  Auditor auditor;
  auditor.on_event(1, leased(kAddress, kEpoch), kEpoch);
  auditor.on_event(1, leased(Ipv4{198, 18, 0, 51}, kEpoch + 5s), kEpoch + 5s);
  auditor.on_event(2, leased(kAddress, kEpoch + 6s), kEpoch + 6s);
  EXPECT_EQ(auditor.violation_count(), 0u);
}

TEST(Auditor, RenewalBySameClientIsNotADuplicate) {
  Auditor auditor;
  auditor.on_event(1, leased(kAddress, kEpoch), kEpoch);
  auditor.on_event(1, leased(kAddress, kEpoch + 30s, 60s, Event::Kind::Renewed), kEpoch + 30s);
  EXPECT_EQ(auditor.violation_count(), 0u);
}

TEST(Auditor, ChangedAddressWithoutNak) {
  Auditor auditor;
  Event changed = leased(Ipv4{198, 18, 0, 99}, kEpoch);
  changed.kind = Event::Kind::AddressChanged;
  changed.exchange = Exchange::Renew;
  changed.expected_address = kAddress;
  auditor.on_event(1, changed, kEpoch);
  ASSERT_EQ(auditor.violation_count(), 1u);
  EXPECT_EQ(auditor.violations()[0].kind, Violation::Kind::AddressChanged);
  EXPECT_NE(auditor.violations()[0].detail.find("renew"), std::string::npos);
}

struct TimerCase {
  std::uint32_t lease_s;
  std::optional<std::uint32_t> t1_s, t2_s;
  bool violation;
};

TEST(Auditor, AckTimersMustBeOrdered) {
  const test::Server server;
  const ClientIdentity client = test::identity(1);
  for (const TimerCase& c :
       {TimerCase{100, 50, 87, false}, TimerCase{100, 87, 50, true}, TimerCase{100, 50, 50, true},
        TimerCase{100, 50, 100, true}, TimerCase{100, 120, std::nullopt, true},
        TimerCase{100, std::nullopt, std::nullopt, false}, TimerCase{0xffffffffu, 50, 87, false}}) {
    Auditor auditor;
    auditor.on_sent(0, 42);
    auditor.on_reply(0, server.ack(client, 42, kAddress, c.lease_s, c.t1_s, c.t2_s), kEpoch);
    EXPECT_EQ(auditor.violation_count(), c.violation ? 1u : 0u)
        << c.lease_s << " " << c.t1_s.value_or(0) << " " << c.t2_s.value_or(0);
    if (c.violation) {
      EXPECT_EQ(auditor.violations()[0].kind, Violation::Kind::BadTimers);
    }
  }
}

TEST(Auditor, ReplyToARequestNeverSent) {
  const test::Server server;
  const ClientIdentity client = test::identity(1);
  Auditor auditor;
  auditor.on_sent(0, 42);
  auditor.on_reply(0, server.offer(client, 43, kAddress), kEpoch);
  auditor.on_reply(std::nullopt, server.offer(test::identity(9), 42, kAddress), kEpoch);
  ASSERT_EQ(auditor.violation_count(), 2u);
  EXPECT_EQ(auditor.violations()[0].kind, Violation::Kind::UnsolicitedReply);
  EXPECT_EQ(auditor.violations()[1].kind, Violation::Kind::UnsolicitedReply);
}

TEST(Auditor, RelayAgentInfoMustBeEchoed) {
  const test::Server server;
  const ClientIdentity client = test::identity(1);
  const std::array<std::uint8_t, 2> relay_info = {19, 0};
  Auditor auditor;
  auditor.expect_relay_agent_info(relay_info);
  auditor.on_sent(0, 42);
  wire::Message echoed = server.offer(client, 42, kAddress);
  echoed.options.set(wire::option::kRelayAgentInfo, relay_info);
  auditor.on_reply(0, echoed, kEpoch);
  EXPECT_EQ(auditor.violation_count(), 0u);

  const std::array<std::uint8_t, 4> altered = {19, 0, 1, 0};
  wire::Message changed = echoed;
  changed.options.set(wire::option::kRelayAgentInfo, altered);
  auditor.on_reply(0, changed, kEpoch);
  auditor.on_reply(0, server.offer(client, 42, kAddress), kEpoch);
  ASSERT_EQ(auditor.violation_count(), 2u);
  EXPECT_EQ(auditor.violations()[0].kind, Violation::Kind::RelayInfoNotEchoed);
  EXPECT_EQ(auditor.violations()[1].kind, Violation::Kind::RelayInfoNotEchoed);
}

TEST(Auditor, LateReplyToAnEarlierRequestIsSolicited) {
  const test::Server server;
  const ClientIdentity client = test::identity(1);
  Auditor auditor;
  auditor.on_sent(0, 1);
  auditor.on_sent(0, 1);  // a retransmission
  auditor.on_sent(0, 2);
  auditor.on_sent(0, 3);
  auditor.on_reply(0, server.offer(client, 1, kAddress), kEpoch);
  EXPECT_EQ(auditor.violation_count(), 0u);
  // Eight exchanges later, xid 1 is forgotten: a reply to it now is not to a live request.
  for (std::uint32_t xid = 10; xid < 18; ++xid) auditor.on_sent(0, xid);
  auditor.on_reply(0, server.offer(client, 1, kAddress), kEpoch);
  EXPECT_EQ(auditor.violation_count(), 1u);
}

}  // namespace
}  // namespace landlord::sim
