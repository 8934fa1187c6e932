#pragma once
// Commit-then-ack on the event loop: the durability machine (durability/machine.hpp) decides,
// this drives it. Batches go to the store's group-commit worker (a Committer), its answers come
// back from the worker thread to the loop with one post per burst, and the machine's retry
// time becomes a timer. What the machine releases goes to `Handlers::released` (send or log);
// its notices are logged here, a failing store's at most once per 5 s (rate_limit.hpp).
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/durability/machine.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/rate_limit.hpp"
#include "landlord/store/commit_queue.hpp"

namespace landlord::server {

using durability::CommitResult;

// The durable side as the server sees it. `done` may run on any thread; submit() returns
// false, without calling `done`, when it cannot take the records now (queue full). The records
// are lent (the machine's batch, durability::Batch): valid and unchanged until `done` is called,
// not after; a committer that keeps them longer copies them.
class Committer {
 public:
  virtual ~Committer() = default;
  virtual bool submit(std::span<const lease::Lease> records,
                      std::function<void(CommitResult)> done) = 0;
};

// The store's group-commit worker (store/commit_queue.hpp) as a Committer.
class CommitQueueCommitter final : public Committer {
 public:
  explicit CommitQueueCommitter(store::CommitQueue& queue) : queue_(queue) {}
  bool submit(std::span<const lease::Lease> records,
              std::function<void(CommitResult)> done) override {
    return queue_.submit_lent(records, std::move(done));
  }

 private:
  store::CommitQueue& queue_;
};

class CommitPipeline {
 public:
  using Released = std::function<void(const durability::Release&)>;

  CommitPipeline(boost::asio::io_context& io, Committer& committer, engine::Engine& engine,
                 const Clock& clock, Released released, durability::Options options = {});

  // An engine outcome: false when nothing must be durable first (send its reply now).
  bool propose(engine::Outcome& outcome, const durability::Origin& origin) {
    return machine_.propose(outcome, origin);
  }
  void propose_reclaimed(std::vector<lease::Lease> records) {
    machine_.propose_reclaimed(std::move(records));
  }
  // After a turn of proposals: releases, batches to the committer, the retry timer.
  void drive();
  // Shutting down: retry the backlog now rather than at the next back-off.
  void retry_now();

  // A record of `address` from the shared store's feed (durability::Machine::observed).
  void observed(Ipv4 address) { machine_.observed(address); }
  const durability::Machine& machine() const { return machine_; }
  const durability::Counters& counters() const { return machine_.counters(); }

 private:
  // What the committer's thread reports, handed to the loop with one post per burst (a
  // committed batch completes many submissions at once).
  struct Completed {
    std::uint64_t batch;
    CommitResult result;
  };
  void complete(std::uint64_t batch, CommitResult result);  // any thread
  void run_completed();
  void arm_retry_timer();
  void log_notice(const durability::Notice& notice);

  boost::asio::io_context& io_;
  Committer& committer_;
  engine::Engine& engine_;
  const Clock& clock_;
  Released released_;
  durability::Machine machine_;
  durability::Ready ready_;
  boost::asio::steady_timer retry_timer_;
  std::optional<TimePoint> armed_retry_;
  std::mutex completed_mutex_;
  std::vector<Completed> completed_;  // guarded by completed_mutex_
  std::vector<Completed> running_;    // the loop's: the last burst, swapped out
  RateLimitedLog failure_log_;
  RateLimitedLog queue_full_log_;
};

}  // namespace landlord::server
