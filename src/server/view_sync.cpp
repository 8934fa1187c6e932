#include "landlord/server/view_sync.hpp"

#include <boost/asio/post.hpp>

namespace landlord::server {

ViewSync::ViewSync(boost::asio::io_context& io, std::unique_ptr<store::PostgresLeaseStore> feed,
                   store::ChangeCursor start, Duration interval, Handlers handlers)
    : io_(io),
      feed_(std::move(feed)),
      cursor_(std::move(start)),
      interval_(interval),
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

void ViewSync::run() {
  bool failing = false;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
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
