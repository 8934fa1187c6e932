#pragma once
// Commit-then-ack (ARCHITECTURE rule 4): a reply whose outcome changed leases leaves only
// after those records are durable. The pipeline hands records to a Committer (the store's
// group-commit worker), and calls back on the event loop with what became of them:
//   Durable      every record written: send the reply;
//   StaleToken   the store holds a newer holder for an address: the reply must not be sent;
//   Unavailable  the store failed, or is still failing: the reply is dropped (the client will
//                ask again) and the records wait in a backlog that is retried until written,
//                so the store converges on what the engine holds — nothing is lost.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/base/expected.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/store/commit_queue.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::server {

using CommitResult = Expected<std::vector<store::WriteResult>, store::StoreError>;

// The durable side as the server sees it. `done` may run on any thread; submit() returns
// false, without calling `done`, when it cannot take the records now (queue full).
class Committer {
 public:
  virtual ~Committer() = default;
  virtual bool submit(std::vector<lease::Lease> records,
                      std::function<void(CommitResult)> done) = 0;
};

// The store's group-commit worker (store/commit_queue.hpp) as a Committer.
class CommitQueueCommitter final : public Committer {
 public:
  explicit CommitQueueCommitter(store::CommitQueue& queue) : queue_(queue) {}
  bool submit(std::vector<lease::Lease> records, std::function<void(CommitResult)> done) override {
    return queue_.submit(std::move(records), std::move(done));
  }

 private:
  store::CommitQueue& queue_;
};

enum class CommitStatus : std::uint8_t { Durable, StaleToken, Unavailable };

struct CommitPipelineCounters {
  std::uint64_t commits = 0, records_written = 0, stale_refusals = 0, store_failures = 0,
                queue_full = 0, replies_dropped_store_down = 0;
};

class CommitPipeline {
 public:
  using Done = std::function<void(CommitStatus)>;

  // Retries of a failing store back off from `retry_first`, doubling to `retry_max`: short, so
  // the first ACK after a fault clears comes within about a second (a retry is one transaction
  // on the store's worker thread; the error line stays at one per 5 s).
  CommitPipeline(boost::asio::io_context& io, Committer& committer,
                 std::chrono::milliseconds retry_first = std::chrono::milliseconds{50},
                 std::chrono::milliseconds retry_max = std::chrono::seconds{1});

  // `done` runs on the io_context's thread, never inside submit().
  void submit(std::vector<lease::Lease> records, Done done);

  bool healthy() const { return healthy_; }
  std::size_t in_flight() const { return in_flight_; }
  std::size_t backlog_size() const { return backlog_.size(); }
  const CommitPipelineCounters& counters() const { return counters_; }
  // Shutting down: retry the backlog now rather than at the next backoff.
  void retry_now();

 private:
  struct Pending {
    std::uint64_t
        sequence;  // submit order: a later record for an address supersedes an earlier one
    lease::Lease record;
  };
  // A submission waiting for the committer, in a reused slot: the committer's callback then
  // carries only the slot number (no shared_ptr, no allocation by std::function).
  struct InFlight {
    std::uint64_t sequence = 0;
    std::vector<lease::Lease> records;
    Done done;
  };
  // What the committer's thread reports, handed to the event loop with one post per burst (a
  // committed batch completes many submissions at once).
  struct Completed {
    std::uint32_t slot;
    CommitResult result;
  };
  void complete(std::uint32_t slot, CommitResult result);  // any thread
  void run_completed();

  std::uint32_t hold(InFlight&& entry);
  void on_committed(std::uint64_t sequence, const std::vector<lease::Lease>& records,
                    CommitResult result, const Done& done);
  void keep_for_retry(std::uint64_t sequence, const std::vector<lease::Lease>& records);
  void schedule_retry();
  void retry();
  void log_failure(const store::StoreError& error);

  boost::asio::io_context& io_;
  Committer& committer_;
  boost::asio::steady_timer retry_timer_;
  std::chrono::milliseconds retry_first_, retry_max_, retry_delay_;
  bool healthy_ = true;
  bool retry_scheduled_ = false;
  bool retry_in_flight_ = false;
  std::uint64_t next_sequence_ = 1;
  std::size_t in_flight_ = 0;
  std::map<Ipv4, Pending> backlog_;
  std::deque<InFlight> in_flight_slots_;  // a deque: slots never move
  std::vector<std::uint32_t> free_slots_;
  std::mutex completed_mutex_;
  std::vector<Completed> completed_;  // guarded by completed_mutex_
  std::vector<Completed> running_;    // the event loop's: the last burst, swapped out
  CommitPipelineCounters counters_;
  std::chrono::steady_clock::time_point last_failure_log_{};
  std::uint64_t failures_since_log_ = 0;
};

}  // namespace landlord::server
