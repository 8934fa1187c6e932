#include "landlord/server/expiry.hpp"

#include <utility>
#include <vector>

#include <boost/asio/post.hpp>

#include "landlord/base/assert.hpp"
#include "landlord/control/change_in_pieces.hpp"

namespace landlord::server {

bool ExpiryPlan::batch_answered() {
  LANDLORD_ASSERT(at_store_ > 0);
  --at_store_;
  return std::exchange(paused_, false);
}

Expiry::Expiry(boost::asio::io_context& io, engine::Engine& engine, CommitPipeline& pipeline, const Clock& clock,
               std::function<bool()> may_end)
    : io_(io),
      engine_(engine),
      pipeline_(pipeline),
      clock_(clock),
      may_end_(std::move(may_end)),
      timer_(io),
      plan_(control::kPiecesAtTheStore) {}

void Expiry::rearm() {
  if (stopped_) return;
  const auto deadline = engine_.next_deadline();
  if (!plan_.must_arm(deadline)) return;
  plan_.armed(*deadline);
  timer_.expires_at(clock_.to_steady(*deadline));
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error) return;  // cancelled: re-armed earlier, or stopping
    plan_.disarmed();
    reclaim();
  });
}

void Expiry::reset() {
  plan_.disarmed();
  timer_.cancel();
  rearm();
}

void Expiry::reclaim() {
  // A clock reading that agrees again reclaims what ended meanwhile (Server::clock_read).
  if (stopped_ || !may_end_()) return;
  // The next batch comes when one at the store is answered (batch_released).
  if (!plan_.may_take_batch()) return;
  std::vector<lease::Lease> records = engine_.reclaim(clock_.now(), ExpiryPlan::kBatchMax);
  const bool more = records.size() >= ExpiryPlan::kBatchMax;
  if (!records.empty()) {
    plan_.batch_proposed();
    pipeline_.propose_reclaimed(std::move(records));
    pipeline_.drive();
  }
  if (more) {
    boost::asio::post(io_, [this] { reclaim(); });  // the next batch, after pending packets
  } else {
    rearm();
  }
}

void Expiry::batch_released() {
  if (plan_.batch_answered()) boost::asio::post(io_, [this] { reclaim(); });
}

void Expiry::stop() {
  stopped_ = true;
  timer_.cancel();
}

}  // namespace landlord::server
