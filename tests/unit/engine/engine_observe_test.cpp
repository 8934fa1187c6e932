// Engine::observe: what a server learns from a shared store's change feed (another server's
// grants, extensions and expiries) changes what it offers and whom it extends, but never undoes
// a write of its own that the store has not answered yet.
#include "engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

using lease::LeaseState;

constexpr Ipv4 kFirstPoolAddress{198, 18, 0, 100};

// A lease another server granted to client `client` on the local subnet.
lease::Lease granted_elsewhere(std::uint8_t client, Ipv4 address, TimePoint at,
                               lease::FencingToken token = 1) {
  lease::Lease record;
  record.address = address;
  record.client = key(client);
  record.hardware = mac(client);
  record.state = LeaseState::Bound;
  record.subnet_id = 1;
  record.granted_at = at;
  record.lease_time = 1h;
  record.renew_time = 30min;
  record.rebind_time = 52min + 30s;
  record.fencing_token = token;
  return record;
}

TEST(Observe, AnAddressAnotherServerGrantedIsNotOffered) {
  Harness harness;
  EXPECT_TRUE(harness.engine.observe(granted_elsewhere(9, kFirstPoolAddress, harness.now)));
  EXPECT_EQ(harness.engine.counters().learned, 1u);
  const Outcome offer = harness.discover(1);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_NE(offer.reply->message.yiaddr, kFirstPoolAddress);
}

TEST(Observe, ARebindingClientOfAnotherServerIsExtendedFromTheLearnedLease) {
  Harness harness;
  harness.engine.observe(granted_elsewhere(9, kFirstPoolAddress, harness.now));
  harness.now += 53min;  // past T2: the client broadcasts to any server
  const Outcome ack = harness.rebind(9, kFirstPoolAddress);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].client, key(9));
  EXPECT_EQ(ack.mutations[0].fencing_token, 2u);  // the takeover: a new grant epoch
  EXPECT_EQ(ack.mutations[0].granted_at, harness.now);
  EXPECT_EQ(ack.mutations[0].last_extension, lease::Extension::Rebinding);
}

TEST(Observe, AnotherServersGrantEndsAnOfferHoldOnTheAddress) {
  Harness harness;
  const Outcome offer = harness.discover(1);
  ASSERT_EQ(offer.reply->message.yiaddr, kFirstPoolAddress);
  EXPECT_TRUE(harness.engine.observe(granted_elsewhere(9, kFirstPoolAddress, harness.now)));
  // The client asks for what it was offered: that costs it a NAK and a new DISCOVER, not a
  // second holder.
  EXPECT_EQ(reply_type(harness.select(1, kFirstPoolAddress)), MessageType::Nak);
  EXPECT_NE(harness.dora(1), kFirstPoolAddress);
}

TEST(Observe, OwnWritesNotYetStoredAreNotUndone) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  const auto own = *harness.engine.find(address);
  // Read back as written: nothing to learn.
  EXPECT_FALSE(harness.engine.observe(own));
  // An older row of the same grant (our extension is on its way) or an older token.
  harness.now += 31min;
  ASSERT_EQ(reply_type(harness.renew(1, address)), MessageType::Ack);
  EXPECT_FALSE(harness.engine.observe(own));
  auto older_holder = granted_elsewhere(9, address, kStart - 2h, 0);
  older_holder.state = LeaseState::Expired;
  EXPECT_FALSE(harness.engine.observe(older_holder));
  EXPECT_EQ(harness.engine.find(address)->granted_at, harness.now);
  EXPECT_EQ(harness.engine.counters().learned, 0u);
}

TEST(Observe, ANewerRowReplacesTheView) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  // Another server saw the lease end and gave the address to client 9 (a new token).
  harness.now += 2h;
  EXPECT_TRUE(harness.engine.observe(granted_elsewhere(9, address, harness.now, 2)));
  EXPECT_EQ(harness.engine.find(address)->client, key(9));
  // Client 1 renews with this server: the address is someone else's now.
  EXPECT_EQ(reply_type(harness.renew(1, address)), MessageType::Nak);
  // The learned lease expires here too, and its expiry is the holder's own (same token).
  const auto expired = harness.advance(1h + 1s);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].client, key(9));
  EXPECT_EQ(expired[0].fencing_token, 2u);
  EXPECT_EQ(expired[0].state, LeaseState::Expired);
}

}  // namespace
}  // namespace landlord::engine::testing
