#include "landlord/server/store_watch.hpp"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

namespace landlord::server {

StoreWatch::StoreWatch(boost::asio::io_context& io, store::LeaseStore& store,
                       std::string store_name, std::chrono::milliseconds interval)
    : io_(io), store_(store), store_name_(std::move(store_name)), interval_(interval), timer_(io) {
  // Runs on the store's threads, under its lock: only hands the check to the event loop.
  store_.on_health_change([&io = io_, this] { boost::asio::post(io, [this] { check(); }); });
}

StoreWatch::~StoreWatch() { store_.on_health_change({}); }

void StoreWatch::check() {
  const store::StoreHealth health = store_.health();
  if (health.reopened > reopened_) {
    reopened_ = health.reopened;
    spdlog::warn("lease store {} opened again: the same store as before its file system turned "
                 "read-only",
                 store_name_);
  }
  std::uint64_t failures = 0;
  for (const std::uint64_t count : health.checkpoint_failures) failures += count;
  if (failures <= logged_failures_) return;
  const auto now = std::chrono::steady_clock::now();
  if (logged_at_ && now - *logged_at_ < interval_) {
    // Logged lately: this count waits for the end of the interval (one timer for all).
    if (!waiting_) {
      waiting_ = true;
      timer_.expires_at(*logged_at_ + interval_);
      timer_.async_wait([this](const boost::system::error_code& error) {
        waiting_ = false;
        if (!error) check();
      });
    }
    return;
  }
  logged_at_ = now;
  logged_failures_ = failures;
  spdlog::warn("store checkpoint failed: {}; commits are still durable (in the WAL), which grows "
               "until a checkpoint succeeds ({} failed checkpoints so far)",
               store_.last_checkpoint_error(), failures);
}

}  // namespace landlord::server
