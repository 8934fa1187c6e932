// The group-commit queue against a store whose commit can be held open, as a slow fsync would:
// what is queued meanwhile must go into the next transaction, bounded by batch_max.
#include "landlord/store/commit_queue.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "landlord/store/memory_lease_store.hpp"
#include "landlord/store/sqlite_lease_store.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using testing::bound_lease;
using namespace std::chrono_literals;

constexpr auto kPatience = 10s;  // only a broken queue waits this long

class GatedStore final : public LeaseStore {
 public:
  Expected<std::vector<WriteResult>, StoreError> commit(
      std::span<const lease::Lease> batch) override {
    std::unique_lock lock(mutex_);
    ++entered_;
    ++held_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return gate_open_; });
    --held_;  // under the lock since the entry when the gate was open: never seen as held
    batch_sizes_.push_back(batch.size());
    return inner_.commit(batch);
  }
  Expected<void, StoreError> load(const std::function<void(lease::Lease&&)>& visit) override {
    std::lock_guard lock(mutex_);
    return inner_.load(visit);
  }

  void close_gate() { set_gate(false); }
  void open_gate() { set_gate(true); }
  // Waits until `count` commits have started (and may be held at the gate).
  bool wait_until_entered(std::size_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kPatience, [&] { return entered_ >= count; });
  }
  std::vector<std::size_t> batch_sizes() {
    std::lock_guard lock(mutex_);
    return batch_sizes_;
  }
  // Commits waiting at the closed gate now.
  std::size_t held() {
    std::lock_guard lock(mutex_);
    return held_;
  }
  MemoryLeaseStore& inner() { return inner_; }

 private:
  void set_gate(bool open) {
    std::lock_guard lock(mutex_);
    gate_open_ = open;
    changed_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  bool gate_open_ = true;
  std::size_t entered_ = 0, held_ = 0;
  std::vector<std::size_t> batch_sizes_;
  MemoryLeaseStore inner_;
};

// Collects completions by submission number, with the thread each ran on.
class Completions {
 public:
  CommitQueue::Completion slot(std::size_t number) {
    return [this, number](CommitQueue::Result result) {
      std::lock_guard lock(mutex_);
      results_.emplace(number, std::move(result));
      threads_.push_back(std::this_thread::get_id());
      arrived_.notify_all();
    };
  }
  bool wait_for(std::size_t count) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, kPatience, [&] { return results_.size() >= count; });
  }
  CommitQueue::Result& operator[](std::size_t number) {
    std::lock_guard lock(mutex_);
    return results_.at(number);
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return results_.size();
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard lock(mutex_);
    return threads_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::size_t, CommitQueue::Result> results_;
  std::vector<std::thread::id> threads_;
};

std::vector<WriteResult> written(std::size_t count) {
  return std::vector<WriteResult>(count, WriteResult::Written);
}

// Closes the gate and submits lease 0 (submission 0): its commit is then held at the store,
// and what is submitted next waits in the queue for the following transaction.
::testing::AssertionResult hold_a_commit(GatedStore& store, CommitQueue& queue, Completions& done) {
  store.close_gate();
  if (!queue.submit({bound_lease(0)}, done.slot(0))) return ::testing::AssertionFailure() << "lease 0 refused";
  if (!store.wait_until_entered(1)) return ::testing::AssertionFailure() << "no commit reached the store";
  if (store.held() != 1) return ::testing::AssertionFailure() << "lease 0's commit was not held at the gate";
  return ::testing::AssertionSuccess();
}

// Submits leases first..last, one submission each, numbered as the lease.
::testing::AssertionResult submit_each(CommitQueue& queue, Completions& done, std::uint32_t first,
                                       std::uint32_t last) {
  for (std::uint32_t index = first; index <= last; ++index) {
    if (!queue.submit({bound_lease(index)}, done.slot(index))) {
      return ::testing::AssertionFailure() << "lease " << index << " refused";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(CommitQueue, IdleQueueCommitsASubmissionAtOnceOnTheWorkerThread) {
  GatedStore store;
  Completions done;
  // A batch_wait this long would time the test out if an idle queue waited for company.
  CommitQueue queue(store, {.batch_max = 256, .batch_wait = 1h});
  ASSERT_TRUE(queue.submit({bound_lease(1)}, done.slot(0)));
  ASSERT_TRUE(done.wait_for(1));
  ASSERT_TRUE(done[0].has_value()) << done[0].error().message;
  EXPECT_EQ(*done[0], written(1));
  EXPECT_NE(done.threads().at(0), std::this_thread::get_id());
  const auto counters = queue.counters();
  EXPECT_EQ(counters.submissions, 1u);
  EXPECT_EQ(counters.commits, 1u);
  EXPECT_EQ(counters.records, 1u);
  EXPECT_EQ(counters.last_batch_records, 1u);
  EXPECT_EQ(counters.errors, 0u);
}

TEST(CommitQueue, SubmissionsQueuedDuringACommitShareTheNextTransaction) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {.batch_max = 256, .batch_wait = 1h});
  ASSERT_TRUE(hold_a_commit(store, queue, done));
  ASSERT_TRUE(submit_each(queue, done, 1, 10));
  EXPECT_EQ(queue.counters().queued_records, 10u);
  store.open_gate();
  ASSERT_TRUE(done.wait_for(11));
  EXPECT_EQ(store.batch_sizes(), (std::vector<std::size_t>{1, 10}));
  for (std::size_t index = 0; index <= 10; ++index) EXPECT_EQ(*done[index], written(1));
  const auto counters = queue.counters();
  EXPECT_EQ(counters.commits, 2u);
  EXPECT_EQ(counters.records, 11u);
  EXPECT_EQ(counters.last_batch_records, 10u);
  EXPECT_EQ(counters.queued_records, 0u);
}

TEST(CommitQueue, BatchMaxBoundsEachTransaction) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {.batch_max = 4, .batch_wait = 1ms});
  ASSERT_TRUE(hold_a_commit(store, queue, done));
  ASSERT_TRUE(submit_each(queue, done, 1, 10));
  store.open_gate();
  ASSERT_TRUE(done.wait_for(11));
  EXPECT_EQ(store.batch_sizes(), (std::vector<std::size_t>{1, 4, 4, 2}));
  EXPECT_EQ(queue.counters().commits, 4u);
}

TEST(CommitQueue, SubmissionLargerThanBatchMaxIsCommittedWhole) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {.batch_max = 4, .batch_wait = 1ms});
  std::vector<lease::Lease> records;
  for (std::uint32_t index = 0; index < 10; ++index) records.push_back(bound_lease(index));
  ASSERT_TRUE(queue.submit(records, done.slot(0)));
  ASSERT_TRUE(done.wait_for(1));
  EXPECT_EQ(*done[0], written(10));
  EXPECT_EQ(store.batch_sizes(), std::vector<std::size_t>{10});
}

TEST(CommitQueue, EachSubmitterGetsItsOwnRecordsResults) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {});
  ASSERT_TRUE(hold_a_commit(store, queue, done));
  ASSERT_TRUE(queue.submit({bound_lease(1, 5), bound_lease(2, 1)}, done.slot(1)));
  ASSERT_TRUE(queue.submit({bound_lease(1, 3)}, done.slot(2)));  // older grant of address 1
  ASSERT_TRUE(queue.submit({bound_lease(3, 1)}, done.slot(3)));
  store.open_gate();
  ASSERT_TRUE(done.wait_for(4));
  EXPECT_EQ(store.batch_sizes(), (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(*done[1], written(2));
  EXPECT_EQ(*done[2], std::vector{WriteResult::StaleToken});
  EXPECT_EQ(*done[3], written(1));
}

TEST(CommitQueue, FailedTransactionFailsEverySubmitterInItAndTheNextOneWorks) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {});
  ASSERT_TRUE(hold_a_commit(store, queue, done));
  store.inner().fail_next_commit_at(bound_lease(2).address,
                                    StoreError{StoreError::Kind::Full, "lease store x: disk full"});
  ASSERT_TRUE(queue.submit({bound_lease(1)}, done.slot(1)));
  ASSERT_TRUE(queue.submit({bound_lease(2)}, done.slot(2)));
  store.open_gate();
  ASSERT_TRUE(done.wait_for(3));
  for (const std::size_t failed : {1, 2}) {
    ASSERT_FALSE(done[failed].has_value());
    EXPECT_EQ(done[failed].error().kind, StoreError::Kind::Full);
    EXPECT_EQ(done[failed].error().message, "lease store x: disk full");
  }
  EXPECT_EQ(store.inner().size(), 1u);
  EXPECT_EQ(queue.counters().errors, 1u);

  ASSERT_TRUE(queue.submit({bound_lease(1), bound_lease(2)}, done.slot(3)));
  ASSERT_TRUE(done.wait_for(4));
  EXPECT_EQ(*done[3], written(2));
  EXPECT_EQ(store.inner().size(), 3u);
  const auto counters = queue.counters();
  EXPECT_EQ(counters.commits, 2u);
  EXPECT_EQ(counters.records, 3u);
  EXPECT_EQ(counters.errors, 1u);
}

TEST(CommitQueue, FullQueueRefusesSubmissions) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {.batch_max = 256, .batch_wait = 1ms, .capacity_records = 3});
  ASSERT_TRUE(hold_a_commit(store, queue, done));  // taken by the worker: no longer queued
  ASSERT_TRUE(queue.submit({bound_lease(1), bound_lease(2)}, done.slot(1)));
  EXPECT_FALSE(queue.submit({bound_lease(3), bound_lease(4)}, done.slot(2)));
  ASSERT_TRUE(queue.submit({bound_lease(3)}, done.slot(3)));
  EXPECT_FALSE(queue.submit({bound_lease(4)}, done.slot(4)));
  auto counters = queue.counters();
  EXPECT_EQ(counters.rejected, 2u);
  EXPECT_EQ(counters.queued_records, 3u);
  store.open_gate();
  ASSERT_TRUE(done.wait_for(3));
  queue.shutdown();
  EXPECT_EQ(done.size(), 3u);  // refused submissions never complete
  EXPECT_EQ(store.inner().size(), 4u);
}

// A submission larger than the whole queue is taken when nothing else waits (refused whatever
// the queue held, it could never be taken: a caller retrying it would retry forever), and is
// refused like any other while something is queued.
TEST(CommitQueue, ASubmissionLargerThanTheQueueIsTakenWhenNothingElseWaits) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {.batch_max = 256, .batch_wait = 1ms, .capacity_records = 3});
  ASSERT_TRUE(hold_a_commit(store, queue, done));  // at the store, not queued: the queue is empty
  ASSERT_TRUE(queue.submit({bound_lease(1), bound_lease(2), bound_lease(3), bound_lease(4),
                            bound_lease(5)},
                           done.slot(1)));
  EXPECT_FALSE(queue.submit({bound_lease(6)}, done.slot(2)));  // the queue holds 5 of its 3
  EXPECT_EQ(queue.counters().queued_records, 5u);
  store.open_gate();
  ASSERT_TRUE(done.wait_for(2));
  EXPECT_EQ(*done[1], written(5));
  EXPECT_EQ(store.batch_sizes(), (std::vector<std::size_t>{1, 5}));  // committed alone, whole
  store.close_gate();
  ASSERT_TRUE(queue.submit({bound_lease(7)}, done.slot(3)));
  ASSERT_TRUE(store.wait_until_entered(3));
  ASSERT_TRUE(queue.submit({bound_lease(8)}, done.slot(4)));
  EXPECT_FALSE(queue.submit({bound_lease(9), bound_lease(10), bound_lease(11)}, done.slot(5)));
  store.open_gate();
  ASSERT_TRUE(done.wait_for(4));
  queue.shutdown();
  EXPECT_EQ(done.size(), 4u);
  EXPECT_EQ(store.inner().size(), 8u);
}

TEST(CommitQueue, ShutdownDrainsQueuedWorkAndRefusesMore) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, {});
  ASSERT_TRUE(hold_a_commit(store, queue, done));
  ASSERT_TRUE(submit_each(queue, done, 1, 5));
  std::thread stopper([&] { queue.shutdown(); });
  store.open_gate();
  stopper.join();
  EXPECT_EQ(done.size(), 6u);
  EXPECT_EQ(store.inner().size(), 6u);
  EXPECT_FALSE(queue.submit({bound_lease(7)}, done.slot(7)));
}

TEST(CommitQueue, DestructionDrains) {
  GatedStore store;
  Completions done;
  {
    CommitQueue queue(store, {.batch_max = 8, .batch_wait = 1ms});
    ASSERT_TRUE(submit_each(queue, done, 0, 99));
  }
  EXPECT_EQ(done.size(), 100u);
  EXPECT_EQ(store.inner().size(), 100u);
  for (const auto size : store.batch_sizes()) EXPECT_LE(size, 8u);
}

// Submits `count` records, one submission each, `spacing` apart, and returns the sizes of the
// transactions they went into once all are done (each completed as written).
std::vector<std::size_t> submit_spaced(CommitQueueOptions options, std::uint32_t count,
                                       std::chrono::milliseconds spacing) {
  GatedStore store;
  Completions done;
  CommitQueue queue(store, options);
  for (std::uint32_t index = 0; index < count; ++index) {
    EXPECT_TRUE(queue.submit({bound_lease(index)}, done.slot(index)));
    std::this_thread::sleep_for(spacing);
  }
  EXPECT_TRUE(done.wait_for(count));
  for (std::uint32_t index = 0; index < count; ++index) EXPECT_EQ(*done[index], written(1));
  return store.batch_sizes();
}
// Most records committed alone: a thread stalled on a busy machine may let two or three meet
// now and then; a linger would make it most of them.
::testing::AssertionResult mostly_alone(const std::vector<std::size_t>& sizes, std::uint32_t count) {
  const auto alone = static_cast<std::uint32_t>(std::count(sizes.begin(), sizes.end(), 1u));
  const auto largest = *std::max_element(sizes.begin(), sizes.end());
  if (alone >= count * 3 / 4 && largest <= 3) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << alone << " of " << count << " alone, largest " << largest;
}

// Records 2 ms apart (500/s), against a linger of at most 1 s: once the arrival rate says 16 or
// more come within it (from the first records on), a record waits for the ones after it until
// 32 are queued, and they share one transaction; not the whole second, which would put all
// 100 in one. Without the linger the store, idle between records, would commit each alone.
TEST(CommitQueue, RecordsArrivingFastShareATransaction) {
  const auto sizes = submit_spaced({.batch_max = 256, .batch_wait = 1h, .batch_linger = 1s}, 100, 2ms);
  EXPECT_LE(sizes.size(), 12u) << "most records committed alone";
  EXPECT_GE(*std::max_element(sizes.begin(), sizes.end()), 20u);
  EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 64u) << "lingered the whole budget";
}

// Records that come too far apart for 16 of them to share a linger are committed as they come:
// a light load's ACK does not wait for company that is not coming. Here 20 ms apart against a
// 240 ms linger (12 expected in it; the rate read just after a record is ~10 % over the mean):
// each finds the worker idle and is committed alone, where a linger would put about 12 in a
// transaction.
TEST(CommitQueue, RecordsArrivingSlowlyAreCommittedAtOnce) {
  EXPECT_TRUE(mostly_alone(
      submit_spaced({.batch_max = 256, .batch_wait = 1h, .batch_linger = 240ms}, 100, 20ms), 100));
}

// The linger does not depend on batch-wait (which bounds the wait for a full batch under
// sustained load): batch-wait 0s still lets fast records share a transaction...
TEST(CommitQueue, LingerDoesNotDependOnBatchWait) {
  const auto sizes = submit_spaced({.batch_max = 256, .batch_wait = 0ms, .batch_linger = 1s}, 100, 2ms);
  EXPECT_GE(*std::max_element(sizes.begin(), sizes.end()), 20u);
}

// ...and batch-linger 0s commits every record as it comes, however fast (the same 2 ms apart
// that share transactions above).
TEST(CommitQueue, NoLingerCommitsAtOnce) {
  EXPECT_TRUE(mostly_alone(
      submit_spaced({.batch_max = 256, .batch_wait = 1h, .batch_linger = 0ms}, 40, 2ms), 40));
}

// The rate the linger is decided on. Steady arrivals read as their rate; a light load's sender
// that stalls and then sends what it owed in one burst stays under the 2,000/s from which the
// default linger is taken; a fast load gets there within ~70 ms of starting.
TEST(ArrivalRate, FollowsSteadyLoadsAndShrugsOffAStalledSendersBurst) {
  using std::chrono::microseconds;
  const auto start = std::chrono::steady_clock::time_point{} + std::chrono::hours{1};
  ArrivalRate light;
  auto now = start;
  for (int record = 0; record < 2000; ++record) light.note(now += 1ms, 1);  // 1,000/s for 2 s
  EXPECT_NEAR(light.per_second(), 1000, 60);
  now += 100ms;  // the sender stalls, then sends the 100 records it owed at once
  for (int record = 0; record < 100; ++record) light.note(now, 1);
  EXPECT_LT(light.per_second(), 1500);
  for (int record = 0; record < 1000; ++record) light.note(now += 1ms, 1);
  EXPECT_NEAR(light.per_second(), 1000, 60);

  ArrivalRate fast;
  now = start;
  int under_2000 = 0;
  for (int record = 0; record < 1600; ++record) {  // 4,000/s from a standstill, for 400 ms
    fast.note(now += microseconds{250}, 1);
    if (fast.per_second() < 2000) ++under_2000;
  }
  EXPECT_LE(under_2000, 4 * 75) << "took more than 75 ms to read 2,000/s";
  EXPECT_NEAR(fast.per_second(), 4000, 200);
  fast.note(now += 1s, 8);  // a submission of 8 after a pause: 8 records, not a burst rate
  EXPECT_NEAR(fast.per_second(), 80, 1);
}

// The daemon's real pairing: producers on two threads, SQLite underneath. Whatever completed
// as written is in the file when it is opened again.
TEST(CommitQueue, WithSqliteEveryCompletedRecordIsDurable) {
  testing::ScratchDirectory directory;
  const auto path = (directory.path() / "leases.db").string();
  constexpr std::uint32_t kPerProducer = 300;
  Completions done;
  {
    auto sqlite = SqliteLeaseStore::open({.path = path});
    ASSERT_TRUE(sqlite.has_value()) << sqlite.error().message;
    CommitQueue queue(**sqlite, {.batch_max = 64, .batch_wait = 1ms});
    const auto produce = [&](std::uint32_t first) {
      for (std::uint32_t index = first; index < first + kPerProducer; ++index) {
        while (!queue.submit({bound_lease(index)}, done.slot(index))) std::this_thread::yield();
      }
    };
    std::thread producer(produce, 0);
    produce(kPerProducer);
    producer.join();
    queue.shutdown();
    const auto counters = queue.counters();
    EXPECT_EQ(counters.submissions, 2 * kPerProducer);
    EXPECT_EQ(counters.records, 2 * kPerProducer);
    EXPECT_EQ(counters.errors, 0u);
    EXPECT_EQ(counters.queued_records, 0u);
    // No transaction holds more than batch_max records: 600 records take at least 10 commits.
    EXPECT_GE(counters.commits, (2 * kPerProducer + 63) / 64);
    EXPECT_GE(counters.last_batch_records, 1u);
    EXPECT_LE(counters.last_batch_records, 64u);
  }
  ASSERT_EQ(done.size(), 2 * kPerProducer);
  for (std::uint32_t index = 0; index < 2 * kPerProducer; ++index) {
    ASSERT_TRUE(done[index].has_value()) << done[index].error().message;
    EXPECT_EQ(*done[index], written(1));
  }
  auto reopened = SqliteLeaseStore::open({.path = path});
  ASSERT_TRUE(reopened.has_value()) << reopened.error().message;
  EXPECT_EQ(testing::load_all(**reopened).size(), 2 * kPerProducer);
}

TEST(CommitQueueDeathTest, OfferedRecordStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MemoryLeaseStore store;
  CommitQueue queue(store, {});
  auto offer = bound_lease(1);
  offer.state = lease::LeaseState::Offered;
  EXPECT_DEATH((void)queue.submit({offer}, [](CommitQueue::Result) {}), "Offered");
}

}  // namespace
}  // namespace landlord::store
