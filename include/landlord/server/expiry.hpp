#pragma once
// Ending leases by time: the expiry timer armed at the engine's next deadline, and reclaim —
// the ended leases taken from the engine a batch at a time and proposed to the durability
// machine like any outcome's records. Its decisions are ExpiryPlan's, sans I/O (tested in
// tests/unit/server/expiry_test.cpp); Expiry is the timer and the loop around it.
#include <cstddef>
#include <functional>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/commit_pipeline.hpp"

namespace landlord::server {

class ExpiryPlan {
 public:
  static constexpr std::size_t kBatchMax = 256;  // records per Engine::reclaim() call

  // `pieces_at_store`: how many reclaim batches may wait at the store at once.
  explicit ExpiryPlan(std::size_t pieces_at_store) : pieces_at_store_(pieces_at_store) {}

  // Whether the timer must be armed (again) for `next`, the engine's next deadline: not when
  // there is none, nor when one armed already fires no later. Arming is then the caller's,
  // followed by armed().
  bool must_arm(std::optional<TimePoint> next) const {
    return next && !(armed_ && *armed_ <= *next);
  }
  void armed(TimePoint deadline) { armed_ = deadline; }
  void disarmed() { armed_.reset(); }  // fired, or cancelled (a reload arms anew)

  // Whether a batch may be taken now. A backlog of ended leases (a start after downtime, a
  // clock step) is reclaimed a batch per turn with at most `pieces_at_store` batches at the
  // store at once, as the control API's large changes are (control/change_in_pieces.hpp): a
  // batch is made far faster than it is committed, and 100,000 ended leases at start filled the
  // store's commit queue (16,384 records) in a fraction of a second, refusing DHCP's records and
  // the operator's with them. false: paused until a batch at the store is answered.
  bool may_take_batch() {
    if (at_store_ < pieces_at_store_) return true;
    paused_ = true;
    return false;
  }
  void batch_proposed() { ++at_store_; }
  // A batch at the store was answered: true when reclaim was paused and goes on now.
  bool batch_answered();

  std::size_t at_store() const { return at_store_; }

 private:
  const std::size_t pieces_at_store_;
  std::optional<TimePoint> armed_;
  std::size_t at_store_ = 0;  // batches proposed and not released yet
  bool paused_ = false;       // waiting for one of them
};

class Expiry {
 public:
  // `may_end`: whether leases may be ended by this server's clock now (clock_agreement.hpp).
  Expiry(boost::asio::io_context& io, engine::Engine& engine, CommitPipeline& pipeline, const Clock& clock,
         std::function<bool()> may_end);

  // Arms the timer at the engine's next deadline if nothing earlier is armed.
  void rearm();
  // Forgets what is armed and arms anew (a reload may have moved deadlines later).
  void reset();
  // Reclaims what has ended now, a batch per loop turn.
  void reclaim();
  // A reclaim batch was released by the durability machine.
  void batch_released();
  // Shutting down: nothing armed, nothing reclaimed from here on.
  void stop();

 private:
  boost::asio::io_context& io_;
  engine::Engine& engine_;
  CommitPipeline& pipeline_;
  const Clock& clock_;
  std::function<bool()> may_end_;
  boost::asio::steady_timer timer_;
  ExpiryPlan plan_;
  bool stopped_ = false;
};

}  // namespace landlord::server
