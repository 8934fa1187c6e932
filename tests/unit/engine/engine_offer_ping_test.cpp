// Offer-ping: the engine proposes an OFFER to be checked by an ICMP echo (sans I/O: the daemon
// pings), and takes an address that answered out of service like a DHCPDECLINE (RFC 2131
// §4.3.3: "the server SHOULD mark the network address as not available"; §3.1 note: "the server
// SHOULD probe the reused address before allocating the address, e.g., with an ICMP echo").
#include <gtest/gtest.h>

#include "engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

config::Config pinging_config() {
  config::Config config = make_config();
  config.subnets[0].offer_ping = 300ms;
  return config;
}

TEST(Rfc2131Section31OfferPing, AnOfferOfAnAddressNobodyHoldsIsProbedFirst) {
  Harness harness(pinging_config());
  const Outcome offer = harness.discover(1);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(offer.probe_first, Duration{300ms});
  EXPECT_TRUE(offer.mutations.empty());
  // A client's own bound lease is not probed: it is the one that answers.
  const Ipv4 address = harness.dora(2);
  const Outcome again = harness.discover(2);
  EXPECT_EQ(again.reply->message.yiaddr, address);
  EXPECT_FALSE(again.probe_first);
  // Without offer-ping, nothing is probed.
  Harness plain;
  EXPECT_FALSE(plain.discover(1).probe_first);
}

TEST(Rfc2131Section31OfferPing, AnAddressThatAnswersIsDeclinedAndTheNextOneOffered) {
  Harness harness(pinging_config());
  const Outcome first = harness.discover(1);
  const Ipv4 in_use = first.reply->message.yiaddr;
  const Outcome conflict = harness.engine.conflict(in_use, harness.now);
  EXPECT_FALSE(conflict.reply);
  ASSERT_EQ(conflict.mutations.size(), 1u);
  const lease::Lease& declined = conflict.mutations[0];
  EXPECT_EQ(declined.address, in_use);
  EXPECT_EQ(declined.state, lease::LeaseState::Declined);
  EXPECT_TRUE(declined.client.empty());  // nobody here declined it
  EXPECT_EQ(declined.lease_time, 10min);  // decline_hold
  EXPECT_EQ(conflict.event.kind, EventKind::Decline);
  EXPECT_EQ(harness.engine.counters().conflicts, 1u);
  // The same DISCOVER again: the next free address, probed too; asking for the one in use
  // (option 50) does not get it either.
  const Outcome next = harness.discover(1, in_use);
  ASSERT_EQ(reply_type(next), MessageType::Offer);
  EXPECT_NE(next.reply->message.yiaddr, in_use);
  EXPECT_EQ(next.probe_first, Duration{300ms});
  EXPECT_EQ(reply_type(harness.select(1, in_use)), MessageType::Nak);
  // After decline_hold the address is free again, for nobody in particular.
  const auto freed = harness.advance(10min + 1s);
  ASSERT_FALSE(freed.empty());
  EXPECT_EQ(harness.engine.find(in_use)->state, lease::LeaseState::Expired);
  EXPECT_TRUE(harness.engine.free_set_agrees(in_use));
}

TEST(Rfc2131Section31OfferPing, AConflictForAnAddressNotOnOfferChangesNothing) {
  Harness harness(pinging_config());
  const Ipv4 bound = harness.dora(1);
  const Outcome ignored = harness.engine.conflict(bound, harness.now);
  EXPECT_TRUE(ignored.mutations.empty());
  EXPECT_EQ(harness.engine.find(bound)->state, lease::LeaseState::Bound);
  EXPECT_TRUE(harness.engine.conflict(Ipv4{198, 18, 0, 180}, harness.now).mutations.empty());
  EXPECT_EQ(harness.engine.counters().conflicts, 0u);
}

}  // namespace
}  // namespace landlord::engine::testing
