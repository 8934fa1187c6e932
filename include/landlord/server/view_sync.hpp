#pragma once
// Several servers on one PostgreSQL store: each keeps its own view in memory and learns what the
// others committed by polling the store's change feed (PostgresLeaseStore::changes_since) every
// `interval` on a thread and connection of its own. With `listen` (store.sync-notify) it also
// LISTENs on that connection and polls at once when another server's commit is notified; the
// notification is only a wake-up (the poll reads by snapshot as ever), so one that is lost costs
// at most an interval; notified polls are kNotifiedPollGap apart at least, so a stream of
// commits costs the database at most one poll per gap. What it reads is handed to the event loop, one post per poll that found
// changes. A failed poll is reported (and retried after min(interval, kRetryInterval); the store
// reconnects); the first poll that works again returns every row changed since the last good
// one, which is the reload of the view. docs/lease-store.md, "Several servers".
// On the same thread and connection it reads the database's clock against this server's, at
// the first poll and every kClockCheckInterval after (docs/lease-store.md, "Clocks"); a reading
// that fails is tried again before the next poll. With peers it also holds this server's
// presence lock on that connection and reads who else is up (docs/lease-store.md, "Who is up,
// by the database").
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "landlord/base/time.hpp"
#include "landlord/store/postgres_lease_store.hpp"

namespace landlord::server {

class ViewSync {
 public:
  struct Handlers {
    // On the loop: rows changed since the last poll (any server's), in no particular order.
    std::function<void(std::vector<lease::Lease>)> changes;
    // On the loop: a poll failed (the view may be missing others' writes from now on).
    std::function<void(const store::StoreError&)> failed;
    // On the loop: a poll worked after failures; `changes` had every row missed meanwhile.
    std::function<void()> recovered;
    // On the loop: this server's clock against the database's (local minus database).
    std::function<void(store::PostgresLeaseStore::ClockReading)> clock;
    // On the loop, with `announce_as`: the servers whose sessions the database holds
    // (PostgresLeaseStore::present), at the first poll and whenever that changes; `held`:
    // this server's own presence lock is its (false: another session holds its server-id).
    std::function<void(std::vector<Ipv4> up, bool held)> peers;
  };
  static constexpr Duration kClockCheckInterval = std::chrono::seconds{10};
  static constexpr Duration kRetryInterval = std::chrono::milliseconds{100};
  // Listening: polls a notification starts are at least this far apart (from one's start to the
  // next's). Under load every commit notifies; the notifications of one gap share one poll.
  static constexpr Duration kNotifiedPollGap = std::chrono::milliseconds{10};

  // Polls `feed` (a connection of its own) from `start` on; the thread starts here.
  // `local_now` is this server's clock (server::Clock), read on the thread. `listen`: wake up
  // on the other servers' notifications too (their stores opened with PostgresOptions::notify).
  // `announce_as` (peers): the feed's connection holds this server's presence lock under it,
  // and every poll reads who else is up (a server counts as up until it has been missing from
  // two reads in a row, so servers reconnecting after a database restart are not taken for
  // dead).
  ViewSync(boost::asio::io_context& io, std::unique_ptr<store::PostgresLeaseStore> feed,
           store::ChangeCursor start, Duration interval, bool listen,
           std::function<TimePoint()> local_now, Handlers handlers,
           std::optional<Ipv4> announce_as = std::nullopt);
  ~ViewSync();  // stop()
  ViewSync(const ViewSync&) = delete;
  ViewSync& operator=(const ViewSync&) = delete;

  // Joins the thread: nothing is posted after it returns (what was posted may still run).
  void stop();

  // Polls made so far, and how many of them a notification started (for tests and benches).
  std::uint64_t polls() const { return polls_.load(); }
  std::uint64_t notified_polls() const { return notified_polls_.load(); }

 private:
  void run();
  bool check_clock();  // false: the reading failed
  void check_peers();  // with announce_as_: who is up, posted when it changed
  // Until the next poll is due: `wait` at most, less when a notification comes (listening).
  // False when stopping.
  bool wait_for_next(Duration wait, bool& notified);

  boost::asio::io_context& io_;
  std::unique_ptr<store::PostgresLeaseStore> feed_;
  store::ChangeCursor cursor_;
  const Duration interval_;
  const bool listen_;
  std::function<TimePoint()> local_now_;
  Handlers handlers_;
  const std::optional<Ipv4> announce_as_;
  std::optional<std::vector<Ipv4>> last_read_, last_posted_;  // present(), on the thread only
  bool last_held_ = false;                                    // on the thread only
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  int wake_fd_ = -1;       // an eventfd stop() writes, for a wait on the feed's socket
  std::chrono::steady_clock::time_point last_poll_;  // on the thread only
  std::atomic<std::uint64_t> polls_{0}, notified_polls_{0};
  std::thread thread_;     // last: starts after every member above exists
};

}  // namespace landlord::server
