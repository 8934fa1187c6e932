#include "landlord/server/view_sync.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <system_error>

#include <boost/asio/post.hpp>

namespace landlord::server {

namespace {

int make_wake_fd() {
  const int descriptor = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (descriptor < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  return descriptor;
}

}  // namespace

ViewSync::ViewSync(boost::asio::io_context& io, std::unique_ptr<store::PostgresLeaseStore> feed,
                   store::ChangeCursor start, Duration interval, bool listen,
                   std::function<TimePoint()> local_now, Handlers handlers,
                   std::optional<Ipv4> announce_as)
    : io_(io),
      feed_(std::move(feed)),
      cursor_(std::move(start)),
      interval_(interval),
      listen_(listen),
      local_now_(std::move(local_now)),
      handlers_(std::move(handlers)),
      announce_as_(announce_as),
      wake_fd_(make_wake_fd()),
      thread_([this] { run(); }) {}

ViewSync::~ViewSync() {
  stop();
  ::close(wake_fd_);
}

void ViewSync::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

bool ViewSync::check_clock() {
  // A failed read is the connection's: the poll on it reports that.
  auto reading = feed_->clock_offset(local_now_);
  if (reading && handlers_.clock) {
    boost::asio::post(io_, [clock = handlers_.clock, read = *reading] { clock(read); });
  }
  return reading.has_value();
}

void ViewSync::check_peers() {
  // Our id was held by another session: a restarted server's previous backend that PostgreSQL
  // has not yet ended, or another server with the same id. Ask again at every poll until it is
  // ours (a refusal costs one query; a failure is the connection's, as below).
  if (!feed_->presence_held()) (void)feed_->announce(announce_as_->to_uint());
  // A failed read is the connection's: the next poll on it reports that.
  auto present = feed_->present();
  if (!present) return;
  std::vector<Ipv4> read;
  for (const std::uint32_t id : *present) read.push_back(Ipv4{id});
  std::sort(read.begin(), read.end());
  // Up: present in this read or the one before it.
  std::vector<Ipv4> up = read;
  if (last_read_) up.insert(up.end(), last_read_->begin(), last_read_->end());
  std::sort(up.begin(), up.end());
  up.erase(std::unique(up.begin(), up.end()), up.end());
  last_read_ = std::move(read);
  const bool held = feed_->presence_held();
  if (last_posted_ == up && last_held_ == held) return;
  last_posted_ = up;
  last_held_ = held;
  if (handlers_.peers) {
    boost::asio::post(io_, [peers = handlers_.peers, up = std::move(up), held]() mutable {
      peers(std::move(up), held);
    });
  }
}

bool ViewSync::wait_for_next(Duration wait, bool& notified) {
  notified = false;
  if (!listen_) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, wait, [this] { return stopping_; });
  }
  // On the feed's socket: a notification, the interval, or stop()'s eventfd. A broken
  // connection ends the wait at once: the poll that follows reconnects or reports it.
  auto woken = feed_->await_notification(wait, wake_fd_);
  notified = woken && *woken;
  std::unique_lock lock(mutex_);
  if (notified) {
    // Not sooner than kNotifiedPollGap after the last poll began: what is notified meanwhile
    // comes with the same poll.
    wake_.wait_until(lock, last_poll_ + kNotifiedPollGap, [this] { return stopping_; });
  }
  return !stopping_;
}

void ViewSync::run() {
  bool failing = false;
  bool notified = false;
  std::optional<std::chrono::steady_clock::time_point> clock_checked;  // the last reading that worked
  // LISTEN before the first poll: a commit after that poll's snapshot is then announced. A
  // failure here is the connection's, which the first poll reports (and its reconnect listens).
  if (listen_) (void)feed_->listen();
  // Likewise: a failed announcement is retried by the reconnect of the poll that reports it.
  if (announce_as_) (void)feed_->announce(announce_as_->to_uint());
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    const auto now = std::chrono::steady_clock::now();
    // A failed reading is tried again before the next poll, not kClockCheckInterval later:
    // until a first one works the server answers nobody (clock_agreement.hpp).
    if ((!clock_checked || now - *clock_checked >= kClockCheckInterval) && check_clock()) {
      clock_checked = now;
    }
    last_poll_ = std::chrono::steady_clock::now();
    auto polled = feed_->changes_since(cursor_);
    polls_.fetch_add(1);
    if (notified) notified_polls_.fetch_add(1);
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
      if (announce_as_) check_peers();
    } else {
      failing = true;
      boost::asio::post(io_, [failed = handlers_.failed, error = polled.error()] { failed(error); });
    }
    // While failing no notification can come: retry soon, whatever the interval.
    const Duration wait = failing ? std::min(interval_, kRetryInterval) : interval_;
    if (!wait_for_next(wait, notified)) break;
  }
}

}  // namespace landlord::server
