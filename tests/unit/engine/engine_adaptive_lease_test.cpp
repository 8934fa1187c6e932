// Adaptive lease time (pool `lease: {shrink-above, to}`): a local policy on the lease time the
// server chooses (RFC 2131 §4.3.1 "select another lease", §3.3 the server's choice of
// duration). New leases in a nearly full pool are shortened; renewals and rebinds (§4.3.2
// RENEWING/REBINDING) and a reboot's confirmation of the client's own lease are not.
#include <gtest/gtest.h>

#include "reply_timers.hpp"

namespace landlord::engine::testing {
namespace {

const Timers kNormal{3600, 1800, 3150};  // 1h, 50%, 87.5%
const Timers kShort{300, 150, 262};      // 5m, 50%, 87.5% in whole seconds

// Subnet 1 with one pool of 10 addresses, .100-.109, shortened to 5m above 50% use.
config::Config adaptive_config() {
  config::Config config = make_config();
  config::Subnet& subnet = config.subnets[0];
  subnet.pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 109}}};
  subnet.adaptive_pools = {{subnet.pools[0], 0.5, 5min}};
  return config;
}

bool shortened_in_force(const Harness& harness) {
  return harness.engine.pool_usage().at(0).pools.at(0).lease_shortened;
}

TEST(AdaptiveLeaseTime, NewLeasesAboveTheThresholdGetTheShorterTime) {
  Harness harness(adaptive_config());
  for (std::uint8_t client = 1; client <= 5; ++client) {  // up to 5 of 10 in use: not above 50%
    const Outcome offer = harness.discover(client);
    EXPECT_EQ(timers_of(offer), kNormal) << "client " << int{client};
    const Outcome ack = harness.select(client, offer.reply->message.yiaddr);
    EXPECT_EQ(timers_of(ack), kNormal) << "client " << int{client};
  }
  EXPECT_FALSE(shortened_in_force(harness));
  EXPECT_EQ(harness.engine.counters().shortened_leases, 0u);
  // The 6th address brings the pool to 60%: its OFFER and its ACK carry 5m, T1/T2 follow.
  const Outcome offer = harness.discover(6);
  EXPECT_EQ(timers_of(offer), kShort);
  const Ipv4 address = offer.reply->message.yiaddr;
  const Outcome ack = harness.select(6, address);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(timers_of(ack), kShort);
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].lease_time, 5min);  // the record ends when the short lease does
  EXPECT_EQ(ack.mutations[0].renew_time, 150s);
  EXPECT_EQ(harness.engine.counters().shortened_leases, 1u);
  EXPECT_TRUE(shortened_in_force(harness));
  harness.advance(5min + 1s);
  EXPECT_EQ(harness.engine.find(address)->state, lease::LeaseState::Expired);
}

// §4.3.2: a client renewing (T1) or rebinding (T2) its own lease keeps the normal time, also
// one whose lease was shortened, while the pool is still above the threshold.
TEST(AdaptiveLeaseTime, RenewalsAndRebindsKeepTheNormalTime) {
  Harness harness(adaptive_config());
  std::vector<Ipv4> addresses;
  for (std::uint8_t client = 1; client <= 7; ++client) addresses.push_back(harness.dora(client));
  ASSERT_TRUE(shortened_in_force(harness));
  EXPECT_EQ(timers_of(harness.renew(7, addresses[6])), kNormal);   // was granted 5m
  EXPECT_EQ(timers_of(harness.rebind(1, addresses[0])), kNormal);  // was granted 1h
  // A reboot confirming the client's own bound lease is no new lease either.
  EXPECT_EQ(timers_of(harness.init_reboot(2, addresses[1])), kNormal);
  EXPECT_EQ(harness.engine.counters().shortened_leases, 2u);  // clients 6 and 7, nobody since
}

TEST(AdaptiveLeaseTime, BelowTheThresholdAgainNewLeasesAreNormal) {
  Harness harness(adaptive_config());
  std::vector<Ipv4> addresses;
  for (std::uint8_t client = 1; client <= 6; ++client) addresses.push_back(harness.dora(client));
  ASSERT_TRUE(shortened_in_force(harness));
  // Two clients leave: 4 of 10 in use; the next new lease (the 5th) is normal.
  harness.release(1, addresses[0]);
  harness.release(2, addresses[1]);
  EXPECT_FALSE(shortened_in_force(harness));
  EXPECT_EQ(timers_of(harness.discover(8)), kNormal);
}

// The threshold is per pool: a pool without an adaptive lease, or another subnet's, is not
// affected by a full adaptive pool.
TEST(AdaptiveLeaseTime, OnlyTheAdaptivePoolIsShortened) {
  config::Config config = adaptive_config();
  config.subnets[0].pools.push_back({Ipv4{198, 18, 0, 200}, Ipv4{198, 18, 0, 209}});
  Harness harness(config);
  for (std::uint8_t client = 1; client <= 10; ++client) harness.dora(client);  // fills .100-.109
  const Outcome offer = harness.discover(11);
  EXPECT_EQ(offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 200}));
  EXPECT_EQ(timers_of(offer), kNormal);
  const auto pools = harness.engine.pool_usage().at(0).pools;
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_TRUE(pools[0].lease_shortened);
  EXPECT_FALSE(pools[1].lease_shortened);
}

// A client that asks for less than `to` (option 51 within lease min..max) keeps what it asked.
TEST(AdaptiveLeaseTime, AnAskedTimeShorterThanToIsKept) {
  config::Config config = adaptive_config();
  config.subnets[0].lease.min = 1min;
  Harness harness(config);
  for (std::uint8_t client = 1; client <= 6; ++client) harness.dora(client);
  auto discover = client_message(MessageType::Discover, 7);
  discover.options.set_u32(option::kLeaseTime, 120);
  EXPECT_EQ(timers_of(harness.send(discover)), (Timers{120, 60, 105}));
}

}  // namespace
}  // namespace landlord::engine::testing
