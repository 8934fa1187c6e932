// An address that changes holder while the store fails: the store refuses a grant over another
// client's running lease, so the previous holder's release must reach it first. Seed 1 of the
// simulation's sweep found the machine retrying only the new grant, which the store refused.
#include <gtest/gtest.h>

#include "commit_results.hpp"
#include "engine_harness.hpp"
#include "landlord/durability/machine.hpp"
#include "landlord/store/memory_lease_store.hpp"

namespace landlord::durability {
namespace {

using engine::testing::Harness;
using engine::testing::key;
using store::WriteResult;
using namespace std::chrono_literals;

using testing::failure;

class HolderChange : public ::testing::Test {
 protected:
  static config::Config one_address() {
    config::Config config = engine::testing::make_config();
    config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 100}}};
    return config;
  }
  Ready& step() {
    machine.ready(harness.now, out);
    return out;
  }
  // What the store answers for a batch, given to the machine.
  void write(const Batch& batch) {
    machine.committed(batch.id, store.commit(batch.records), harness.engine, harness.now);
  }
  void propose(engine::Outcome outcome) { ASSERT_TRUE(machine.propose(outcome, Origin{})); }
  // Client 1 holds the only address, durably.
  void client_one_bound() {
    const engine::Outcome offer = harness.discover(1);
    ASSERT_TRUE(offer.reply.has_value());
    ASSERT_EQ(offer.reply->message.yiaddr, address);
    propose(harness.select(1, address));
    write(step().batches.at(0));
    ASSERT_EQ(step().released.at(0).verdict, Verdict::Send);
  }
  engine::Outcome client_two_granted() {
    const engine::Outcome offer = harness.discover(2);
    EXPECT_TRUE(offer.reply.has_value()) << "the released address is free";
    return harness.select(2, address);
  }
  // The store works again: the backlog's retry, answered by the store.
  std::vector<lease::Lease> recover() {
    harness.now += 1s;
    Ready& ready = step();
    EXPECT_EQ(ready.batches.size(), 1u);
    if (ready.batches.empty()) return {};
    const Batch retry = ready.batches.at(0);
    EXPECT_TRUE(retry.retry);
    const auto results = store.commit(retry.records);
    EXPECT_TRUE(results.has_value());
    for (std::size_t i = 0; results && i < results->size(); ++i) {
      EXPECT_EQ((*results)[i], WriteResult::Written) << "retried record " << i << " refused";
    }
    std::vector<lease::Lease> records(retry.records.begin(), retry.records.end());
    machine.committed(retry.id, results, harness.engine, harness.now);
    step();
    EXPECT_TRUE(machine.healthy());
    return records;
  }
  void expect_release_then_grant(const std::vector<lease::Lease>& retried) {
    ASSERT_EQ(retried.size(), 2u);
    EXPECT_EQ(retried[0].client, key(1));
    EXPECT_EQ(retried[0].state, lease::LeaseState::Released);
    EXPECT_EQ(retried[1].client, key(2));
    EXPECT_EQ(retried[1].state, lease::LeaseState::Bound);
    EXPECT_EQ(harness.engine.find(address)->client, key(2));
    EXPECT_EQ(machine.counters().engine_corrections, 0u);
    EXPECT_EQ(machine.counters().stale_refusals, 0u);
  }

  const Ipv4 address{198, 18, 0, 100};
  Harness harness{one_address()};
  store::MemoryLeaseStore store;
  Machine machine{Options{100ms, 400ms}};
  Ready out;
};

TEST_F(HolderChange, DuringAnOutageRetriesTheReleaseBeforeTheNewGrant) {
  client_one_bound();
  harness.now += 1min;
  propose(harness.release(1, address));
  machine.committed(step().batches.at(0).id, failure(), harness.engine, harness.now);
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);

  harness.now += 50ms;  // before the machine's first retry (100 ms)
  propose(client_two_granted());  // the store is known to fail: dropped at once
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);
  EXPECT_EQ(machine.backlog_size(), 2u) << "one record per holder in turn";
  expect_release_then_grant(recover());
}

TEST_F(HolderChange, AGrantSentBeforeTheFailureWasKnownWaitsBehindTheRelease) {
  client_one_bound();
  harness.now += 1min;
  propose(harness.release(1, address));
  const Batch release = step().batches.at(0);
  harness.now += 1s;
  propose(client_two_granted());
  const Batch grant = step().batches.at(0);  // both out at the store before either answers

  machine.committed(release.id, failure(), harness.engine, harness.now);
  write(grant);  // refused: the store still holds client 1's running lease
  const Ready& answered = step();
  ASSERT_EQ(answered.released.size(), 2u);
  EXPECT_EQ(answered.released[0].verdict, Verdict::Unavailable);
  EXPECT_EQ(answered.released[1].verdict, Verdict::Unavailable)
      << "written out of order, not fenced: no ACK, and the engine keeps the grant";
  EXPECT_EQ(harness.engine.find(address)->client, key(2));
  expect_release_then_grant(recover());
}

}  // namespace
}  // namespace landlord::durability
