// Golden scenarios: whole lease lifetimes with time driven forward by hand.
#include <gtest/gtest.h>

#include "engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

using lease::LeaseState;

TEST(Scenario, DoraGrantsTheFirstPoolAddressAndWritesOneRecord) {
  Harness harness;
  const Outcome offer = harness.discover(1);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 100}));
  const Outcome ack = harness.select(1, Ipv4{198, 18, 0, 100});
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  ASSERT_EQ(ack.mutations.size(), 1u);
  const lease::Lease& lease = ack.mutations[0];
  EXPECT_EQ(lease.address, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(lease.client, key(1));
  EXPECT_EQ(lease.hardware, mac(1));
  EXPECT_EQ(lease.state, LeaseState::Bound);
  EXPECT_EQ(lease.subnet_id, 1u);
  EXPECT_EQ(lease.granted_at, harness.now);
  EXPECT_EQ(lease.lease_time, Duration{1h});
  EXPECT_EQ(lease.renew_time, Duration{30min});
  EXPECT_EQ(lease.rebind_time, Duration{52min + 30s});
  EXPECT_EQ(lease.fencing_token, 1u);
  EXPECT_EQ(harness.engine.next_deadline(), harness.now + 1h);
  const Counters& counters = harness.engine.counters();
  EXPECT_EQ(counters.discovers, 1u);
  EXPECT_EQ(counters.offers, 1u);
  EXPECT_EQ(counters.requests, 1u);
  EXPECT_EQ(counters.grants, 1u);
}

TEST(Scenario, RenewAtT1KeepsTheTokenAndRebindAtT2TakesANewOne) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  harness.advance(30min);
  EXPECT_EQ(harness.engine.find(address)->phase(harness.now), lease::Phase::PastT1);
  const Outcome renewed = harness.renew(1, address);
  ASSERT_EQ(reply_type(renewed), MessageType::Ack);
  EXPECT_EQ(renewed.mutations.at(0).granted_at, harness.now);
  EXPECT_EQ(renewed.mutations.at(0).fencing_token, 1u);
  EXPECT_EQ(harness.engine.next_deadline(), harness.now + 1h);
  harness.advance(53min);  // past the renewed lease's T2 (52m30s)
  EXPECT_EQ(harness.engine.find(address)->phase(harness.now), lease::Phase::PastT2);
  const Outcome rebound = harness.rebind(1, address);
  ASSERT_EQ(reply_type(rebound), MessageType::Ack);
  EXPECT_EQ(rebound.reply->route, Route::Ciaddr);
  EXPECT_EQ(rebound.mutations.at(0).fencing_token, 2u);  // T2: a new grant epoch
  harness.advance(30min);
  const Outcome renewed_again = harness.renew(1, address);
  ASSERT_EQ(reply_type(renewed_again), MessageType::Ack);
  EXPECT_EQ(renewed_again.mutations.at(0).fencing_token, 2u);
  EXPECT_EQ(harness.engine.find(address)->phase(harness.now), lease::Phase::Bound);
}

TEST(Scenario, UnrenewedLeaseExpiresOnceAndIsCounted) {
  Harness harness;
  const Ipv4 address = harness.dora(1);
  EXPECT_TRUE(harness.advance(59min).empty());
  const auto expired = harness.advance(1min);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].address, address);
  EXPECT_EQ(expired[0].state, LeaseState::Expired);
  EXPECT_EQ(harness.engine.counters().expirations, 1u);
  EXPECT_EQ(harness.engine.next_deadline(), std::nullopt);
  EXPECT_TRUE(harness.advance(1h).empty());
  // A renewal after expiry, while the address is still the client's, is granted again.
  EXPECT_EQ(reply_type(harness.renew(1, address)), MessageType::Ack);
}

TEST(Scenario, AffinityAfterExpiryUntilTheAddressIsNeededByOthers) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 102}}};
  Harness harness(config);
  EXPECT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(harness.dora(2), (Ipv4{198, 18, 0, 101}));
  harness.advance(2h);  // both expire; .100 expired first (granted first)
  // Client 3 gets the clean .102 even though two expired addresses are free.
  EXPECT_EQ(harness.dora(3), (Ipv4{198, 18, 0, 102}));
  // Client 2 returns to its own address.
  EXPECT_EQ(harness.dora(2), (Ipv4{198, 18, 0, 101}));
  // Client 4 finds nothing clean: it gets the oldest expired address, .100.
  EXPECT_EQ(harness.dora(4), (Ipv4{198, 18, 0, 100}));
  // Client 1 lost its affinity: nothing is left for it.
  EXPECT_EQ(harness.discover(1).event.reason, "pool exhausted: no free address in the subnet");
}

TEST(Scenario, OldestExpiredAddressIsReusedFirst) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 102}}};
  Harness harness(config);
  harness.dora(1);  // .100
  harness.advance(10min);
  harness.dora(2);  // .101, expires 10 minutes after .100
  harness.advance(10min);
  harness.dora(3);  // .102, expires last
  harness.advance(2h);
  EXPECT_EQ(harness.dora(4), (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(harness.dora(5), (Ipv4{198, 18, 0, 101}));
  EXPECT_EQ(harness.dora(6), (Ipv4{198, 18, 0, 102}));
}

TEST(Scenario, PoolExhaustionIsCountedAndRecoversWhenALeaseIsReleased) {
  Harness harness;
  std::uint8_t client = 1;
  for (; client <= 4; ++client) {  // subnet 2 has four addresses
    auto discover = client_message(MessageType::Discover, client);
    discover.giaddr = kRelayAddress;
    const Outcome offer = harness.send(discover, from_relay(kRelayAddress));
    ASSERT_EQ(reply_type(offer), MessageType::Offer);
  }
  auto discover = client_message(MessageType::Discover, client);
  discover.giaddr = kRelayAddress;
  const Outcome none = harness.send(discover, from_relay(kRelayAddress));
  EXPECT_FALSE(none.reply);
  EXPECT_EQ(harness.engine.counters().pool_exhausted, 1u);
  harness.advance(31s);  // the four offers were never taken up
  EXPECT_EQ(reply_type(harness.send(discover, from_relay(kRelayAddress))), MessageType::Offer);
}

TEST(Scenario, DeclineHoldEndsAndTheAddressServesAgainWithoutTheDecliner) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 100}}};
  Harness harness(config);
  const Ipv4 address = harness.discover(1).reply->message.yiaddr;
  const Outcome declined = harness.decline(1, address);  // declining the offer (ARP conflict)
  ASSERT_EQ(declined.mutations.size(), 1u);
  EXPECT_EQ(harness.engine.counters().declines, 1u);
  EXPECT_FALSE(harness.discover(2).reply);
  EXPECT_EQ(harness.engine.next_deadline(), harness.now + 10min);
  const auto freed = harness.advance(10min);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].state, LeaseState::Expired);
  EXPECT_TRUE(freed[0].client.empty());
  EXPECT_EQ(harness.engine.counters().expirations, 0u);
  EXPECT_EQ(harness.dora(2), address);
}

TEST(Scenario, FencingTokenGrowsOnEachNewHolderAndStaysOnExtension) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 100}}};
  Harness harness(config);
  const Ipv4 address = harness.dora(1);
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 1u);
  harness.advance(30min);
  EXPECT_EQ(harness.renew(1, address).mutations.at(0).fencing_token, 1u);
  harness.advance(2h);  // expires; client 1 comes back: same holder, same token
  harness.dora(1);
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 1u);
  EXPECT_EQ(harness.release(1, address).mutations.at(0).fencing_token, 1u);
  EXPECT_EQ(harness.dora(2), address);  // a new holder
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 2u);
  harness.advance(2h);
  // An offer to client 3 that is never taken does not move the token...
  harness.discover(3);
  harness.advance(1min);
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 2u);
  EXPECT_EQ(harness.engine.find(address)->client, key(2));
  // ...but its grant does.
  EXPECT_EQ(harness.dora(3), address);
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 3u);
}

// The store accepts an equal token only from the same client: every record that changes the
// address's client must carry a higher token than the last persisted one.
TEST(Scenario, EveryPersistedChangeOfClientTakesAHigherToken) {
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 100}}};
  Harness harness(config);
  const Ipv4 address = harness.dora(1);
  harness.release(1, address);  // client 1, token 1
  harness.discover(2);          // offered over client 1's record
  const Outcome declined = harness.decline(2, address);
  ASSERT_EQ(declined.mutations.size(), 1u);
  EXPECT_EQ(declined.mutations[0].client, key(2));
  EXPECT_EQ(declined.mutations[0].fencing_token, 2u);
  const auto freed = harness.advance(10min);  // the decline hold ends: holder becomes nobody
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_TRUE(freed[0].client.empty());
  EXPECT_EQ(freed[0].fencing_token, 3u);
  harness.dora(3);
  EXPECT_EQ(harness.engine.find(address)->fencing_token, 4u);
}

TEST(Scenario, RestoreRebuildsIndexesAllocatorAndDeadlinesFromRecords) {
  Harness before;
  std::vector<lease::Lease> records;
  const Ipv4 kept = before.dora(1);
  const Ipv4 expiring = before.dora(2);
  before.advance(30min);
  before.renew(1, kept);
  before.dora(3);
  before.release(3, Ipv4{198, 18, 0, 102});
  before.engine.for_each_lease([&](const lease::Lease& lease) { records.push_back(lease); });
  ASSERT_EQ(records.size(), 3u);

  Harness after;  // a restart: the same records, fed back in any order
  after.now = before.now;
  std::reverse(records.begin(), records.end());
  for (const auto& record : records) after.engine.restore(record);
  EXPECT_EQ(after.engine.find(key(1))->address, kept);
  EXPECT_EQ(after.engine.next_deadline(), before.now - 30min + 1h);  // client 2's expiry
  // The released address is still client 3's (affinity); a newcomer gets a clean address.
  EXPECT_EQ(after.dora(4), (Ipv4{198, 18, 0, 103}));
  EXPECT_EQ(after.dora(3), (Ipv4{198, 18, 0, 102}));
  // Leases already past expiry at start-up are reclaimed by the first reclaim, and counted.
  const auto expired = after.advance(31min);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].address, expiring);
  EXPECT_EQ(after.engine.counters().expirations, 1u);
}

TEST(Scenario, RestoreKeepsTheHighestTokenPerAddress) {
  // One address in the pool, so that the next grant of it is the next holder's.
  config::Config config = make_config();
  config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 100}}};
  Harness harness(config);
  lease::Lease newer;
  newer.address = Ipv4{198, 18, 0, 100};
  newer.client = key(2);
  newer.hardware = mac(2);
  newer.state = LeaseState::Expired;
  newer.subnet_id = 1;
  newer.granted_at = kStart - 2h;
  newer.lease_time = 1h;
  newer.fencing_token = 9;
  lease::Lease older = newer;
  older.client = key(1);
  older.hardware = mac(1);
  older.fencing_token = 4;
  harness.engine.restore(newer);
  harness.engine.restore(older);
  EXPECT_EQ(harness.engine.find(newer.address)->fencing_token, 9u);
  EXPECT_EQ(harness.engine.find(newer.address)->client, key(2));
  harness.advance(1s);
  // The same holder comes back: affinity survives the restart, and the token stays.
  EXPECT_EQ(harness.dora(2), newer.address);
  EXPECT_EQ(harness.engine.find(newer.address)->fencing_token, 9u);
  // The next holder continues the sequence from the restored token, not from the older
  // record's 4 (a token at or below 9 from another client would be refused by the store).
  harness.release(2, newer.address);
  const Outcome offer = harness.discover(7);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  ASSERT_EQ(offer.reply->message.yiaddr, newer.address);
  const Outcome ack = harness.select(7, newer.address);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  ASSERT_EQ(ack.mutations.size(), 1u);
  EXPECT_EQ(ack.mutations[0].client, key(7));
  EXPECT_EQ(ack.mutations[0].fencing_token, 10u);
  EXPECT_EQ(harness.engine.find(newer.address)->fencing_token, 10u);
}

TEST(Scenario, ReclaimIsBoundedPerCall) {
  Harness harness;
  for (std::uint8_t client = 1; client <= 5; ++client) harness.dora(client);
  harness.now += 2h;
  EXPECT_EQ(harness.engine.reclaim(harness.now, 2).size(), 2u);
  EXPECT_EQ(harness.engine.reclaim(harness.now, 2).size(), 2u);
  EXPECT_EQ(harness.engine.reclaim(harness.now, 2).size(), 1u);
  EXPECT_EQ(harness.engine.reclaim(harness.now, 2).size(), 0u);
  EXPECT_EQ(harness.engine.counters().expirations, 5u);
}

TEST(Scenario, ReconfigureKeepsLeasesAndAppliesNewPools) {
  Harness harness;
  const Ipv4 address = harness.dora(1);  // .100
  config::Config next = make_config();
  next.subnets[0].pools = {{Ipv4{198, 18, 0, 200}, Ipv4{198, 18, 0, 210}}};
  harness.engine.reconfigure(next);
  EXPECT_EQ(harness.engine.find(address)->client, key(1));
  EXPECT_EQ(harness.dora(2), (Ipv4{198, 18, 0, 200}));
  // The old lease is outside every pool now: it is not extended, the client starts over.
  EXPECT_EQ(reply_type(harness.renew(1, address)), MessageType::Nak);
  EXPECT_EQ(harness.dora(1), (Ipv4{198, 18, 0, 201}));
}

}  // namespace
}  // namespace landlord::engine::testing

namespace landlord::engine::testing {
namespace {

TEST(Scenario, PoolUsageCountsCleanAndAffinityAddresses) {
  Harness harness;
  harness.dora(1);
  harness.dora(2);
  harness.release(2, Ipv4{198, 18, 0, 101});
  const auto usage = harness.engine.pool_usage();
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0].subnet_id, 1u);
  EXPECT_EQ(usage[0].total, 100u);
  EXPECT_EQ(usage[0].free_clean, 100u - 2 - 1);  // two used, one reserved (.150)
  EXPECT_EQ(usage[0].free_affinity, 1u);
  EXPECT_EQ(usage[1].free_clean, 4u);
}

}  // namespace
}  // namespace landlord::engine::testing
