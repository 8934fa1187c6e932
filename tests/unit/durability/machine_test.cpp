// The durability machine's rules, one test each: a reply waits for its records; a failed
// commit drops the reply and retries the records with back-off; a stale token drops the reply
// and corrects the engine; batches are answered in order; a result must cover exactly the
// records handed out.
#include "landlord/durability/machine.hpp"

#include <gtest/gtest.h>

#include "commit_results.hpp"
#include "engine_harness.hpp"

namespace landlord::durability {
namespace {

using engine::testing::Harness;
using engine::testing::key;
using store::WriteResult;
using namespace std::chrono_literals;

using testing::all;
using testing::failure;

class MachineTest : public ::testing::Test {
 protected:
  // A DORA's REQUEST outcome for `client`: an ACK and one record.
  engine::Outcome grant(std::uint8_t client) {
    const engine::Outcome offer = harness.discover(client);
    EXPECT_TRUE(offer.reply.has_value());
    engine::Outcome ack = harness.select(client, offer.reply->message.yiaddr);
    EXPECT_EQ(ack.mutations.size(), 1u);
    return ack;
  }
  Origin origin(std::uint8_t client) {
    Origin result;
    result.hardware = engine::testing::mac(client);
    return result;
  }
  bool propose(engine::Outcome outcome, const Origin& from) {
    return machine.propose(outcome, from);
  }
  Ready& step() {
    machine.ready(harness.now, out);
    return out;
  }
  void answer(const Batch& batch, CommitResult result) {
    machine.committed(batch.id, std::move(result), harness.engine, harness.now);
  }

  Harness harness;
  Machine machine{Options{100ms, 400ms}};
  Ready out;
};

TEST_F(MachineTest, AReplyWithoutRecordsIsNotHeld) {
  engine::Outcome offer = harness.discover(1);
  EXPECT_FALSE(machine.propose(offer, origin(1))) << "an OFFER waits for nothing";
  ASSERT_TRUE(offer.reply.has_value()) << "the caller sends it: it is left in place";
  EXPECT_TRUE(step().empty());
  EXPECT_TRUE(machine.idle());
}

TEST_F(MachineTest, TheReplyWaitsUntilItsRecordsAreWritten) {
  propose(grant(1), origin(1));
  Ready& ready = step();
  EXPECT_TRUE(ready.released.empty()) << "nothing may be acknowledged before the commit";
  ASSERT_EQ(ready.batches.size(), 1u);
  const Batch batch = ready.batches[0];
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].state, lease::LeaseState::Bound);
  EXPECT_EQ(machine.waiting_replies(), 1u);
  EXPECT_FALSE(machine.has_ready(harness.now));
  EXPECT_TRUE(step().empty()) << "a batch is handed out once";

  answer(batch, all(1));
  EXPECT_TRUE(machine.has_ready(harness.now));
  Ready& after = step();
  ASSERT_EQ(after.released.size(), 1u);
  EXPECT_EQ(after.released[0].verdict, Verdict::Send);
  EXPECT_EQ(after.released[0].reply->message.type(), wire::MessageType::Ack);
  EXPECT_EQ(after.released[0].records.size(), 1u);
  EXPECT_EQ(machine.waiting_replies(), 0u);
  EXPECT_TRUE(machine.idle());
  EXPECT_EQ(machine.counters().records_written, 1u);
}

TEST_F(MachineTest, ProposalsBetweenTwoReadyCallsShareOneBatchAndReleaseInOrder) {
  propose(grant(1), origin(1));
  propose(grant(2), origin(2));
  Ready& ready = step();
  EXPECT_TRUE(ready.released.empty());
  ASSERT_EQ(ready.batches.size(), 1u);
  const Batch batch = ready.batches[0];
  EXPECT_EQ(batch.records.size(), 2u);
  answer(batch, all(2));
  Ready& after = step();
  ASSERT_EQ(after.released.size(), 2u);
  EXPECT_EQ(after.released[0].origin.hardware, engine::testing::mac(1));
  EXPECT_EQ(after.released[1].origin.hardware, engine::testing::mac(2));
}

TEST_F(MachineTest, BatchesInFlightAreAnsweredInOrder) {
  propose(grant(1), origin(1));
  const Batch first = step().batches.at(0);
  propose(grant(2), origin(2));
  const Batch second = step().batches.at(0);
  EXPECT_EQ(machine.batches_in_flight(), 2u);
  EXPECT_DEATH(answer(second, all(1)), "answered in order|in_flight_.front");
  answer(first, all(1));
  EXPECT_EQ(step().released.at(0).origin.hardware, engine::testing::mac(1));
  answer(second, all(1));
  EXPECT_EQ(step().released.at(0).origin.hardware, engine::testing::mac(2));
}

TEST_F(MachineTest, AResultMustCoverExactlyTheRecordsHandedOut) {
  propose(grant(1), origin(1));
  propose(grant(2), origin(2));
  const Batch batch = step().batches.at(0);
  EXPECT_DEATH(answer(batch, all(1)), "result->size\\(\\) == batch.records.size\\(\\)");
  EXPECT_DEATH(answer(batch, all(3)), "result->size\\(\\) == batch.records.size\\(\\)");
}

TEST_F(MachineTest, AFailedCommitDropsTheReplyAndRetriesTheRecordsWithBackOff) {
  propose(grant(1), origin(1));
  const Batch batch = step().batches.at(0);
  answer(batch, failure());
  Ready& ready = step();
  ASSERT_EQ(ready.released.size(), 1u);
  EXPECT_EQ(ready.released[0].verdict, Verdict::Unavailable);
  ASSERT_EQ(ready.notices.size(), 1u);
  EXPECT_EQ(ready.notices[0].kind, NoticeKind::StoreFailed);
  EXPECT_EQ(ready.notices[0].message, "disk on fire");
  EXPECT_FALSE(machine.healthy());
  EXPECT_EQ(machine.backlog_size(), 1u);
  EXPECT_EQ(machine.next_retry(), harness.now + 100ms);

  // While the store fails, a new grant is not acknowledged, nor tried alone: it waits too.
  propose(grant(2), origin(2));
  Ready& down = step();
  ASSERT_EQ(down.released.size(), 1u);
  EXPECT_EQ(down.released[0].verdict, Verdict::Unavailable);
  EXPECT_TRUE(down.batches.empty());
  EXPECT_EQ(machine.backlog_size(), 2u);

  harness.now += 99ms;
  EXPECT_TRUE(step().batches.empty()) << "no retry before its time";
  harness.now += 1ms;
  const Batch retry = step().batches.at(0);
  EXPECT_TRUE(retry.retry);
  EXPECT_EQ(retry.records.size(), 2u);
  EXPECT_EQ(machine.next_retry(), std::nullopt) << "one retry out at a time";

  answer(retry, failure());
  step();
  EXPECT_EQ(machine.next_retry(), harness.now + 200ms) << "the back-off doubles";
  harness.now += 200ms;
  const Batch again = step().batches.at(0);
  answer(again, failure());
  step();
  EXPECT_EQ(machine.next_retry(), harness.now + 400ms);
  harness.now += 400ms;
  const Batch third = step().batches.at(0);
  answer(third, failure());
  step();
  EXPECT_EQ(machine.next_retry(), harness.now + 400ms) << "up to retry_max";
  harness.now += 400ms;

  const Batch last = step().batches.at(0);
  answer(last, all(2));
  Ready& recovered = step();
  ASSERT_EQ(recovered.notices.size(), 1u);
  EXPECT_EQ(recovered.notices[0].kind, NoticeKind::StoreRecovered);
  EXPECT_EQ(recovered.notices[0].records, 2u);
  EXPECT_TRUE(machine.healthy());
  EXPECT_TRUE(machine.idle());

  // Acknowledging again.
  propose(grant(3), origin(3));
  const Batch next = step().batches.at(0);
  EXPECT_FALSE(next.retry);
  answer(next, all(1));
  EXPECT_EQ(step().released.at(0).verdict, Verdict::Send);
}

TEST_F(MachineTest, FailedCommitsAreCountedByTheStoresReason) {
  using Kind = store::StoreError::Kind;
  propose(grant(1), origin(1));
  answer(step().batches.at(0), failure(Kind::Full));
  step();
  for (const Kind kind : {Kind::ReadOnly, Kind::ReadOnly, Kind::Locked}) {
    harness.now += 1s;
    answer(step().batches.at(0), failure(kind));
  }
  const Counters& counters = machine.counters();
  EXPECT_EQ(counters.store_failures, 4u);
  EXPECT_EQ(counters.store_failures_by_kind[static_cast<std::size_t>(Kind::Full)], 1u);
  EXPECT_EQ(counters.store_failures_by_kind[static_cast<std::size_t>(Kind::ReadOnly)], 2u);
  EXPECT_EQ(counters.store_failures_by_kind[static_cast<std::size_t>(Kind::Locked)], 1u);
  EXPECT_EQ(counters.store_failures_by_kind[static_cast<std::size_t>(Kind::Io)], 0u);
}

TEST_F(MachineTest, ALaterRecordForAnAddressReplacesTheOneWaitingForARetry) {
  const engine::Outcome first = grant(1);
  const Ipv4 address = first.mutations[0].address;
  propose(first, origin(1));
  answer(step().batches.at(0), failure());
  step();
  // The client releases its address while the store is down: only that last record is retried.
  propose(harness.release(1, address), origin(1));
  step();
  harness.now += 100ms;
  const Batch retry = step().batches.at(0);
  ASSERT_EQ(retry.records.size(), 1u);
  EXPECT_EQ(retry.records[0].state, lease::LeaseState::Released);
}

TEST_F(MachineTest, ALaterWriteForTheSameAddressWinsOverAFailedEarlierOne) {
  const engine::Outcome first = grant(1);
  const Ipv4 address = first.mutations[0].address;
  propose(first, origin(1));
  const Batch one = step().batches.at(0);
  harness.now += 1s;
  propose(harness.renew(1, address), origin(1));
  const Batch two = step().batches.at(0);
  answer(one, failure());  // the first commit fails...
  answer(two, all(1));     // ...the second, already queued, is written
  Ready& ready = step();
  ASSERT_EQ(ready.released.size(), 2u);
  EXPECT_EQ(ready.released[0].verdict, Verdict::Unavailable);
  EXPECT_EQ(ready.released[1].verdict, Verdict::Send);
  EXPECT_EQ(machine.backlog_size(), 0u) << "the older record must not be retried over the newer";
  EXPECT_TRUE(machine.healthy());
  EXPECT_EQ(machine.next_retry(), std::nullopt);
}

TEST_F(MachineTest, AStaleTokenSendsNoReplyAndTheEngineGivesUpTheGrant) {
  const engine::Outcome ack = grant(1);
  const Ipv4 address = ack.mutations[0].address;
  propose(ack, origin(1));
  answer(step().batches.at(0), all(1, WriteResult::StaleToken));
  Ready& ready = step();
  ASSERT_EQ(ready.released.size(), 1u);
  EXPECT_EQ(ready.released[0].verdict, Verdict::StaleToken);
  EXPECT_TRUE(machine.healthy()) << "a stale token is an answer, not a failing store";
  EXPECT_EQ(machine.backlog_size(), 0u) << "a refused record is never retried";
  EXPECT_EQ(machine.counters().engine_corrections, 1u);
  EXPECT_EQ(harness.engine.counters().fenced, 1u);

  // The engine no longer thinks the client holds it: the client's retransmission is NAKed,
  // not ACKed again, and nobody else is offered the address while another server holds it.
  const auto record = harness.engine.find(address);
  ASSERT_TRUE(record.has_value());
  EXPECT_NE(record->client, key(1));
  EXPECT_GE(record->fencing_token, ack.mutations[0].fencing_token) << "tokens never go down";
  EXPECT_EQ(engine::testing::reply_type(harness.renew(1, address)), wire::MessageType::Nak);
  const engine::Outcome other = harness.discover(2, address);
  ASSERT_TRUE(other.reply.has_value());
  EXPECT_NE(other.reply->message.yiaddr, address);

  // After the refused lease's time the address is free again, its token kept.
  harness.advance(1h + 1s);
  const engine::Outcome later = harness.discover(3, address);
  ASSERT_TRUE(later.reply.has_value());
  EXPECT_EQ(later.reply->message.yiaddr, address);
}

TEST_F(MachineTest, AStaleTokenForARecordAlreadySupersededLeavesTheEngineAlone) {
  const engine::Outcome ack = grant(1);
  const Ipv4 address = ack.mutations[0].address;
  propose(ack, origin(1));
  const Batch batch = step().batches.at(0);
  harness.now += 1s;
  const engine::Outcome renewed = harness.renew(1, address);  // a newer record, same token
  ASSERT_EQ(renewed.mutations.size(), 1u);
  answer(batch, all(1, WriteResult::StaleToken));
  EXPECT_EQ(machine.counters().engine_corrections, 0u);
  EXPECT_EQ(harness.engine.find(address)->client, key(1));
}

TEST_F(MachineTest, AQueueThatCannotTakeABatchDropsItsRepliesButTheStoreStaysHealthy) {
  propose(grant(1), origin(1));
  const Batch batch = step().batches.at(0);
  machine.not_taken(batch.id, harness.now);
  Ready& ready = step();
  ASSERT_EQ(ready.released.size(), 1u);
  EXPECT_EQ(ready.released[0].verdict, Verdict::Unavailable);
  EXPECT_TRUE(machine.healthy());
  EXPECT_EQ(machine.backlog_size(), 1u);
  EXPECT_EQ(machine.next_retry(), harness.now + 100ms);
  machine.retry_now();
  const Batch retry = step().batches.at(0);
  EXPECT_TRUE(retry.retry);
  answer(retry, all(1));
  EXPECT_TRUE(machine.idle());
}

// A backlog larger than Options::retry_batch_max is retried in pieces of at most that many
// records, one after the other as the store takes them: one batch of the whole backlog could be
// larger than the committer's queue, refused at every retry (a 1 M-record backlog was).
TEST_F(MachineTest, ABacklogIsRetriedInBatchesOfAtMostRetryBatchMax) {
  Machine capped{Options{.retry_first = 100ms, .retry_max = 400ms, .retry_batch_max = 3}};
  for (std::uint8_t client = 1; client <= 10; ++client) {
    engine::Outcome ack = grant(client);
    ASSERT_TRUE(capped.propose(ack, origin(client)));
  }
  capped.ready(harness.now, out);
  const Batch batch = out.batches.at(0);
  ASSERT_EQ(batch.records.size(), 10u);
  capped.not_taken(batch.id, harness.now);
  capped.ready(harness.now, out);
  ASSERT_EQ(out.released.size(), 10u);
  for (const Release& release : out.released) {
    EXPECT_EQ(release.verdict, Verdict::Unavailable);
    EXPECT_TRUE(release.not_taken) << "the queue was full; the store did not fail";
  }
  EXPECT_TRUE(capped.healthy());
  EXPECT_EQ(capped.backlog_size(), 10u);
  ASSERT_EQ(capped.next_retry(), harness.now + 100ms);
  harness.now += 100ms;
  std::vector<std::size_t> sizes;
  for (int round = 0; round < 10 && !capped.idle(); ++round) {
    ASSERT_TRUE(capped.has_ready(harness.now)) << "what a retry left goes out at once";
    capped.ready(harness.now, out);
    ASSERT_EQ(out.batches.size(), 1u);
    const Batch retry = out.batches[0];
    EXPECT_TRUE(retry.retry);
    sizes.push_back(retry.records.size());
    capped.committed(retry.id, all(retry.records.size()), harness.engine, harness.now);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 3, 3, 1}));
  EXPECT_TRUE(capped.idle());
  EXPECT_EQ(capped.counters().records_written, 10u);
}

// A failed commit's replies are Unavailable, not not_taken: the store itself failed.
TEST_F(MachineTest, AFailedCommitsRepliesAreNotMarkedNotTaken) {
  propose(grant(1), origin(1));
  answer(step().batches.at(0), failure());
  Ready& ready = step();
  ASSERT_EQ(ready.released.size(), 1u);
  EXPECT_EQ(ready.released[0].verdict, Verdict::Unavailable);
  EXPECT_FALSE(ready.released[0].not_taken);
}

TEST_F(MachineTest, ReclaimedRecordsAreReleasedWithTheirRecordsOnceWritten) {
  const engine::Outcome ack = grant(1);
  propose(ack, origin(1));
  answer(step().batches.at(0), all(1));
  step();
  harness.now += 2h;
  machine.propose_reclaimed(harness.engine.reclaim(harness.now, 10));
  Ready& ready = step();
  EXPECT_TRUE(ready.released.empty());
  const Batch batch = ready.batches.at(0);
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].state, lease::LeaseState::Expired);
  answer(batch, all(1));
  Ready& after = step();
  ASSERT_EQ(after.released.size(), 1u);
  EXPECT_TRUE(after.released[0].reclaimed);
  EXPECT_EQ(after.released[0].reply, nullptr);
  EXPECT_EQ(after.released[0].records.size(), 1u);
}

}  // namespace
}  // namespace landlord::durability
