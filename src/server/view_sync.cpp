#include "landlord/server/view_sync.hpp"

#include <optional>

#include <boost/asio/post.hpp>

namespace landlord::server {

ViewSync::ViewSync(boost::asio::io_context& io, std::unique_ptr<store::PostgresLeaseStore> feed,
                   store::ChangeCursor start, Duration interval,
                   std::function<TimePoint()> local_now, Handlers handlers)
    : io_(io),
      feed_(std::move(feed)),
      cursor_(std::move(start)),
      interval_(interval),
      local_now_(std::move(local_now)),
      handlers_(std::move(handlers)),
      thread_([this] { run(); }) {}

ViewSync::~ViewSync() { stop(); }

void ViewSync::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ViewSync::check_clock() {
  // A failed read is the connection's: the poll on it reports that.
  if (auto reading = feed_->clock_offset(local_now_); reading && handlers_.clock) {
    boost::asio::post(io_, [clock = handlers_.clock, read = *reading] { clock(read); });
  }
}

void ViewSync::run() {
  bool failing = false;
  std::optional<std::chrono::steady_clock::time_point> clock_checked;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    if (!clock_checked || now - *clock_checked >= kClockCheckInterval) {
      check_clock();
      clock_checked = now;
    }
    auto polled = feed_->changes_since(cursor_);
    if (polled) {
      cursor_ = std::move(polled->next);
      if (!polled->records.empty()) {
        boost::asio::post(io_, [changes = handlers_.changes,
                                records = std::move(polled->records)]() mutable {
          changes(std::move(records));
        });
      }
      if (failing) boost::asio::post(io_, handlers_.recovered);
      failing = false;
    } else {
      failing = true;
      boost::asio::post(io_, [failed = handlers_.failed, error = polled.error()] { failed(error); });
    }
    lock.lock();
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace landlord::server
