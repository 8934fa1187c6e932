#pragma once
// Group commit: the daemon submits each decision's lease records here and acknowledges the
// client only from the completion. One worker thread owns the store and commits whatever is
// queued in one transaction (one fsync), so under load many ACKs share one fsync while at low
// load a lone record is committed at once.
//
// Batching policy:
//  - A batch is whole submissions, up to `batch_max` records (a single larger submission is
//    committed alone: a submission is never split across transactions).
//  - When the worker is free and records are queued, it commits them now (no added latency),
//    unless records arrive fast: each transaction costs a fixed share of CPU (statements, a WAL
//    append, an fsync, thread wake-ups) that a fast disk no longer hides behind a full batch.
//    When the arrival rate (over the last ~100 ms) says at least 16 come within
//    `batch_linger` (8 ms: 2,000 records/s and more by default), the worker lingers until 32
//    records are queued or `batch_linger` has passed, whichever comes first (8 ms at 4,000/s,
//    2 ms at 16,000/s). Done with a commit, it sleeps until one of the two and then commits
//    whatever came (nothing came: it sleeps until woken), and records that came during a commit
//    wait until one of the two from their arrival. So at thousands of records a second a
//    transaction carries 16 to 32, while a light load, whose records come further apart, is
//    committed at once.
//  - When the previous batch was full (sustained load) the worker waits, at most `batch_wait`,
//    for the next batch to fill to `batch_max` before committing.
//  - A submission wakes a sleeping worker only when that ends its sleep: the first record for
//    an idle worker, the 32nd for a lingering one, `batch_max` records for one waiting for a
//    batch to fill.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "landlord/base/time.hpp"
#include "landlord/store/arrival_rate.hpp"
#include "landlord/store/lease_store.hpp"
#include "landlord/store/wakeup.hpp"

namespace landlord::store {

struct CommitQueueOptions {
  std::size_t batch_max = 256;                         // records per transaction at most
  Duration batch_wait = std::chrono::milliseconds{2};  // longest wait to fill a batch under load
  // Longest a record waits for company when records come fast (at least 16 expected in it: the
  // rate is over 16 / batch_linger, 2,000 records/s by default). Independent of batch_wait.
  std::chrono::microseconds batch_linger{8000};
  // Queued and not yet committed; submit() refuses beyond, but takes a larger submission when
  // nothing else is queued (a submission is never refused for its size alone).
  std::size_t capacity_records = 16384;
};

// Called on the worker thread after each successful transaction with its record count and how
// long the store took (for /metrics). Must be cheap and thread-safe.
using CommitObserver = std::function<void(std::size_t records, std::chrono::nanoseconds took)>;

struct CommitQueueCounters {
  std::uint64_t submissions = 0;         // accepted by submit()
  std::uint64_t rejected = 0;            // refused by submit(): queue full or shut down
  std::uint64_t commits = 0;             // successful transactions, each one fsync
  std::uint64_t records = 0;             // records in successful transactions
  std::uint64_t errors = 0;              // failed transactions
  std::uint64_t last_batch_records = 0;  // size of the most recent transaction
  std::uint64_t queued_records = 0;      // waiting now
};

class CommitQueue {
 public:
  using Result = Expected<std::vector<WriteResult>, StoreError>;
  // Called on the worker thread once the submission's transaction committed (per-record results,
  // in submission order) or failed (the error; nothing of it is durable). The daemon posts it
  // back to its event loop; it must not throw or call back into this queue's shutdown().
  using Completion = std::function<void(Result)>;

  // The queue uses `store` exclusively from its worker thread until shutdown() returns.
  CommitQueue(LeaseStore& store, CommitQueueOptions options, CommitObserver observer = {});
  ~CommitQueue();  // shutdown()
  CommitQueue(const CommitQueue&) = delete;
  CommitQueue& operator=(const CommitQueue&) = delete;

  // Queues `records` for the next transaction. Returns false, without calling `done`, when the
  // queue is full (`capacity_records` would be exceeded and something is queued already) or shut
  // down: the caller drops the request (the client retries).
  bool submit(std::vector<lease::Lease> records, Completion done);
  // The same for records the caller keeps: they must stay valid and unchanged until `done` is
  // called (the daemon lends its durability machine's batch, which it keeps until answered,
  // so nothing is copied on the way to the store).
  bool submit_lent(std::span<const lease::Lease> records, Completion done);

  // Stops accepting, commits everything already queued, calls its completions, joins the worker.
  // Idempotent.
  void shutdown();

  CommitQueueCounters counters() const;

 private:
  struct Submission {
    std::vector<lease::Lease> owned;        // submit()'s records; empty for submit_lent()
    std::span<const lease::Lease> records;  // into `owned` (a vector's move keeps its buffer) or lent
    Completion done;
    std::chrono::steady_clock::time_point arrived;  // set by enqueue()
  };
  bool enqueue(Submission submission);
  // Records come fast enough to wait for company, and the linger is not off.
  bool lingering() const;
  // The queued records that end a linger early: 32, batch_max if smaller.
  std::size_t linger_records() const;
  // When the worker should commit what is queued (now, or later for a fuller batch), and how
  // many queued records end the wait sooner.
  struct Wait {
    std::chrono::steady_clock::time_point until;
    std::size_t records;
  };
  Wait commit_at(std::chrono::steady_clock::time_point now, bool previous_batch_full) const;
  // Sleeps (the lock released) until `records` are queued (an empty submission counts one, so
  // 1 means anything), the queue stops, or `deadline` passes; only the submission that brings
  // the queue to `records` wakes it.
  void sleep_until_queued(std::unique_lock<std::mutex>& lock, std::size_t records,
                          std::optional<std::chrono::steady_clock::time_point> deadline);
  void run();
  void commit_batch(std::vector<Submission>& batch, std::size_t record_count);

  LeaseStore& store_;
  const CommitQueueOptions options_;
  const CommitObserver observer_;

  mutable std::mutex mutex_;
  Wakeup work_ready_;
  std::deque<Submission> pending_;   // guarded by mutex_
  std::size_t pending_records_ = 0;  // guarded by mutex_; empty submissions count one
  bool stopping_ = false;            // guarded by mutex_
  // The worker sleeps (guarded by mutex_), to be woken by the submission that brings the queue
  // to `wake_at_` records (1 when it is idle, linger_records() while it lingers, batch_max while
  // it waits for a batch to fill).
  bool sleeping_ = false;
  std::size_t wake_at_ = 1;
  ArrivalRate arrivals_;  // guarded by mutex_

  std::atomic<std::uint64_t> submissions_{0}, rejected_{0}, commits_{0}, records_{0}, errors_{0},
      last_batch_records_{0};
  std::vector<lease::Lease> joined_;  // the worker's: several submissions' records in one transaction
  std::thread worker_;  // last: starts after every member above exists
};

}  // namespace landlord::store
