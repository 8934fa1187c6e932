// The lease time a client asks for (option 51), one test per RFC rule; each names its section.
// RFC 2131 §4.3.1: "If the client has requested a specific lease in the DHCPDISCOVER, the server
// may choose either to return the requested lease (if acceptable to local policy) or select
// another lease"; §4.3.2 / §3.5: the same in a DHCPREQUEST. Local policy is `lease: {min, max}`.
#include <gtest/gtest.h>

#include "reply_timers.hpp"

namespace landlord::engine::testing {
namespace {

// Subnet 1: time 1h, 50% / 87.5%, the client may ask for 10m..4h.
config::Config ranged_config() {
  config::Config config = make_config();
  config.subnets[0].lease.min = 10min;
  config.subnets[0].lease.max = 4h;
  return config;
}

wire::Message asking(wire::Message message, std::uint32_t lease_s) {
  message.options.set_u32(option::kLeaseTime, lease_s);
  return message;
}

Outcome discover_asking(Harness& harness, std::uint8_t client, std::uint32_t lease_s) {
  return harness.send(asking(client_message(MessageType::Discover, client), lease_s));
}

Outcome select_asking(Harness& harness, std::uint8_t client, Ipv4 address,
                      std::optional<std::uint32_t> lease_s) {
  auto request = client_message(MessageType::Request, client);
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, address);
  if (lease_s) request = asking(request, *lease_s);
  return harness.send(request);
}

struct AskCase {
  const char* name;
  std::uint32_t asked_s;
  Timers offered;
};

class Rfc2131Section431RequestedLeaseTime : public ::testing::TestWithParam<AskCase> {};

// The OFFER grants the asked time within min..max; T1/T2 percentages follow the granted time.
TEST_P(Rfc2131Section431RequestedLeaseTime, OfferGrantsTheAskedTimeWithinMinAndMax) {
  const AskCase& c = GetParam();
  Harness harness(ranged_config());
  const Outcome offer = discover_asking(harness, 1, c.asked_s);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(timers_of(offer), c.offered) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Rfc2131Section431RequestedLeaseTime,
    ::testing::Values(AskCase{"inside the range: as asked", 7200, {7200, 3600, 6300}},
                      AskCase{"below min: min", 60, {600, 300, 525}},
                      AskCase{"zero: min", 0, {600, 300, 525}},
                      AskCase{"above max: max", 86400, {14400, 7200, 12600}},
                      AskCase{"infinite (0xffffffff): max", 0xffffffffu, {14400, 7200, 12600}},
                      AskCase{"odd seconds: whole seconds of the percentages", 1001,
                              {1001, 500, 875}}),
    CaseName());

TEST(Rfc2131Section431RequestedLeaseTime, WithoutOption51TheConfiguredTime) {
  Harness harness(ranged_config());
  EXPECT_EQ(timers_of(harness.discover(1)), (Timers{3600, 1800, 3150}));
}

// Without min and max (both `time`), asking changes nothing: the default policy.
TEST(Rfc2131Section431RequestedLeaseTime, WithoutARangeTheAskedTimeIsIgnored) {
  Harness harness;
  EXPECT_EQ(timers_of(discover_asking(harness, 1, 60)), (Timers{3600, 1800, 3150}));
  EXPECT_EQ(timers_of(discover_asking(harness, 2, 86400)), (Timers{3600, 1800, 3150}));
}

// A T1/T2 given as a duration stays as written, whatever time is granted.
TEST(Rfc2131Section431RequestedLeaseTime, FixedRenewAndRebindStayAsWritten) {
  config::Config config = ranged_config();
  config.subnets[0].lease.renew = Duration{2min};
  config.subnets[0].lease.rebind = Duration{8min};
  Harness harness(config);
  EXPECT_EQ(timers_of(discover_asking(harness, 1, 7200)), (Timers{7200, 120, 480}));
  EXPECT_EQ(timers_of(discover_asking(harness, 2, 60)), (Timers{600, 120, 480}));
}

// §4.3.2: the ACK to a REQUEST grants what that REQUEST asks for, and the lease record (what
// the store keeps, and when the lease ends) carries the granted time.
TEST(Rfc2131Section432RequestedLeaseTime, AckAndRecordCarryTheGrantedTime) {
  Harness harness(ranged_config());
  const Ipv4 address = discover_asking(harness, 1, 7200).reply->message.yiaddr;
  const Outcome ack = select_asking(harness, 1, address, 7200);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(timers_of(ack), (Timers{7200, 3600, 6300}));
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].lease_time, 2h);
  EXPECT_EQ(ack.mutations[0].renew_time, 1h);
  EXPECT_EQ(ack.mutations[0].rebind_time, 1h + 45min);
  // It ends when the granted time is up, not the configured 1h.
  harness.advance(1h + 30min);
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Bound);
  harness.advance(31min);
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Expired);
}

// Each message is judged alone: a REQUEST that does not ask gets `time`, a renewal that asks
// again gets the clamped time again.
TEST(Rfc2131Section432RequestedLeaseTime, EachRequestIsJudgedOnItsOwn) {
  Harness harness(ranged_config());
  const Ipv4 address = discover_asking(harness, 1, 7200).reply->message.yiaddr;
  EXPECT_EQ(timers_of(select_asking(harness, 1, address, std::nullopt)),
            (Timers{3600, 1800, 3150}));
  auto renew = asking(client_message(MessageType::Request, 1), 1);
  renew.ciaddr = address;
  const Outcome renewed = harness.send(renew, local_unicast(address));
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  EXPECT_EQ(renewed.event.kind, EventKind::Renew);
  EXPECT_EQ(timers_of(renewed), (Timers{600, 300, 525}));
  EXPECT_EQ(renewed.mutations.at(0).lease_time, 10min);
}

// The range is per subnet: subnet 2 (time 10m, no range) ignores what a relayed client asks.
TEST(Rfc2131Section431RequestedLeaseTime, TheRangeIsTheClientsSubnets) {
  Harness harness(ranged_config());
  auto discover = asking(client_message(MessageType::Discover, 1), 7200);
  discover.giaddr = kRelayAddress;
  const Outcome offer = harness.send(discover, from_relay(kRelayAddress));
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(timers_of(offer), (Timers{600, 120, 525}));
}

}  // namespace
}  // namespace landlord::engine::testing
