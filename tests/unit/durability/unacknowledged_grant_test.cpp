// A grant whose ACK never left (the store failed under it) holds its address no longer than an
// offer would, unless its client asks again: the machine retries it as the shorter lease and
// the engine takes that lease once it is written. Measured before this rule: 833 such grants
// became full-time leases after a disk-full outage and exhausted a pool of 919.
#include <gtest/gtest.h>

#include "commit_results.hpp"
#include "engine_harness.hpp"
#include "landlord/durability/machine.hpp"

namespace landlord::durability {
namespace {

using engine::testing::Harness;
using engine::testing::key;
using store::WriteResult;
using namespace std::chrono_literals;

using testing::all;
CommitResult failure() {
  return testing::failure(store::StoreError::Kind::Full, "database or disk is full");
}

class UnacknowledgedGrant : public ::testing::Test {
 protected:
  static config::Config small_pool() {
    config::Config config = engine::testing::make_config();
    config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 101}}};  // two addresses
    config.subnets[0].lease.offer_hold = 30s;
    return config;
  }
  Ipv4 offered(std::uint8_t client) {
    const engine::Outcome offer = harness.discover(client);
    EXPECT_TRUE(offer.reply.has_value()) << "client " << int(client) << " got no offer";
    return offer.reply ? offer.reply->message.yiaddr : Ipv4{};
  }
  Ready& step() {
    machine.ready(harness.now, out);
    return out;
  }
  void answer(const Batch& batch, CommitResult result) {
    machine.committed(batch.id, std::move(result), harness.engine, harness.now);
  }
  // The store fails under the grant: its ACK is dropped.
  Ipv4 grant_during_outage(std::uint8_t client) {
    const Ipv4 address = offered(client);
    engine::Outcome ack = harness.select(client, address);
    EXPECT_TRUE(machine.propose(ack, Origin{}));
    Ready& ready = step();
    if (ready.batches.empty()) {  // the store is known to fail: dropped at once
      EXPECT_EQ(ready.released.at(0).verdict, Verdict::Unavailable);
      return address;
    }
    answer(ready.batches.at(0), failure());
    EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);
    return address;
  }
  // The store works again: the backlog's retry is written.
  Batch recover() {
    harness.now += 1s;
    const Batch retry = step().batches.at(0);
    EXPECT_TRUE(retry.retry);
    answer(retry, all(retry.records.size()));
    step();
    EXPECT_TRUE(machine.healthy());
    return retry;
  }

  Harness harness{small_pool()};
  Machine machine{Options{100ms, 400ms}};
  Ready out;
};

TEST_F(UnacknowledgedGrant, IsWrittenAsAnOfferLongLeaseAndFreesItsAddress) {
  const TimePoint granted_at = harness.now;
  const Ipv4 first = grant_during_outage(1);
  const Ipv4 second = grant_during_outage(2);
  const Batch retry = recover();
  ASSERT_EQ(retry.records.size(), 2u);
  for (const auto& record : retry.records) {
    EXPECT_EQ(record.state, lease::LeaseState::Bound);
    EXPECT_EQ(record.expires_at(), granted_at + 30s) << "the store holds no more than an offer";
  }
  EXPECT_EQ(machine.counters().grants_shortened, 2u);
  EXPECT_EQ(harness.engine.find(first)->expires_at(), granted_at + 30s);

  // Nobody was told of these leases: once an offer would have ended, the pool is whole again.
  EXPECT_FALSE(harness.discover(3).reply.has_value()) << "both addresses still held";
  harness.now = granted_at + 31s;
  const auto expired = harness.engine.reclaim(harness.now, 10);
  EXPECT_EQ(expired.size(), 2u);
  const Ipv4 next = offered(3);
  EXPECT_TRUE(next == first || next == second);
}

TEST_F(UnacknowledgedGrant, ItsClientAskingAgainGetsTheFullLease) {
  const Ipv4 address = grant_during_outage(1);
  recover();
  harness.now += 2s;  // the client's retransmitted REQUEST, after the store came back
  engine::Outcome again = harness.select(1, address);
  ASSERT_TRUE(machine.propose(again, Origin{}));
  const Batch batch = step().batches.at(0);
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].expires_at(), harness.now + 1h);
  answer(batch, all(1));
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Send);
  EXPECT_EQ(harness.engine.find(address)->expires_at(), harness.now + 1h);
}

TEST_F(UnacknowledgedGrant, AskingAgainDuringTheOutageKeepsOnlyTheNewestAttempt) {
  const Ipv4 address = grant_during_outage(1);
  harness.now += 50ms;  // before the machine's first retry (100 ms)
  engine::Outcome again = harness.select(1, address);  // store still failing: dropped too
  ASSERT_TRUE(machine.propose(again, Origin{}));
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);
  const TimePoint asked_at = harness.now;
  const Batch retry = recover();
  ASSERT_EQ(retry.records.size(), 1u);
  EXPECT_EQ(retry.records[0].expires_at(), asked_at + 30s) << "an offer's hold from the last ask";
  EXPECT_EQ(harness.engine.find(address)->client, key(1));
}

TEST_F(UnacknowledgedGrant, ADroppedRenewalKeepsTheLeaseTheClientAlreadyHeld) {
  const Ipv4 address = offered(1);
  engine::Outcome ack = harness.select(1, address);
  const TimePoint held_until = ack.mutations.at(0).expires_at();
  ASSERT_TRUE(machine.propose(ack, Origin{}));
  answer(step().batches.at(0), all(1));
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Send);

  harness.now += 30min;
  engine::Outcome renewal = harness.renew(1, address);
  ASSERT_TRUE(machine.propose(renewal, Origin{}));
  answer(step().batches.at(0), failure());
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);
  const Batch retry = recover();
  ASSERT_EQ(retry.records.size(), 1u);
  EXPECT_EQ(retry.records[0].expires_at(), held_until)
      << "never shorter than what the client was told before";
  EXPECT_EQ(harness.engine.find(address)->expires_at(), held_until);
}

TEST_F(UnacknowledgedGrant, AStaleTokenOnTheShorterLeaseStillCorrectsTheEngine) {
  const Ipv4 address = grant_during_outage(1);
  harness.now += 1s;
  const Batch retry = step().batches.at(0);
  answer(retry, all(1, WriteResult::StaleToken));
  step();
  EXPECT_EQ(machine.counters().engine_corrections, 1u)
      << "the engine is matched against the grant it made, not the shortened copy";
  EXPECT_NE(harness.engine.find(address)->client, key(1));
}

}  // namespace
}  // namespace landlord::durability
