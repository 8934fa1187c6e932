#pragma once
// Coalesced NOTIFY for store.sync-notify (PostgresOptions::notify). Every notification costs each
// listening backend a transaction of its own (PostgreSQL 15 reads its notification queue in one),
// so a writer notifies at most once per `interval`: a commit carries the NOTIFY in its own
// transaction when the interval since the last one has passed (the first commit after a quiet
// spell is announced at once), and a commit that went without one is owed a trailing NOTIFY:
// sent on a connection of this notifier's own (a transaction of its own) once an interval has
// passed since that commit with no later commit carrying one. Under a steady stream of commits
// they carry every NOTIFY; the trailing one ends a burst. So a listener learns the last change
// of a burst within the interval (plus its own poll), and this writer's NOTIFYs are at least an
// interval apart. A trailing NOTIFY that fails is dropped: the listeners' fallback poll brings
// what it announced. docs/lease-store.md.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "landlord/base/time.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "postgres_support.hpp"

namespace landlord::store::detail {

class PostgresNotifier {
 public:
  // `sql` is the NOTIFY statement; `url`, `name` and `timeout` as the store's own. The thread
  // starts here; the connection is made at the first trailing NOTIFY.
  PostgresNotifier(std::string url, std::string name, std::string sql, Duration interval,
                   std::chrono::milliseconds timeout);
  ~PostgresNotifier();  // sends a NOTIFY still owed, then joins the thread
  PostgresNotifier(const PostgresNotifier&) = delete;
  PostgresNotifier& operator=(const PostgresNotifier&) = delete;

  // Before a commit: whether it carries the NOTIFY (the interval since the last one passed).
  bool claim();
  // After it: `carried` as claim() answered, `committed` whether it committed. A commit that
  // committed without the NOTIFY is owed one; one that committed with it paid every debt before
  // it (PostgreSQL delivers its NOTIFY after its commit, so a poll it wakes sees them all).
  void finished(bool carried, bool committed);

  PostgresLeaseStore::NotificationCounts counts() const;

 private:
  void run();
  bool send();  // the NOTIFY on this notifier's connection, made or remade as needed

  const std::string url_, name_, sql_;
  const Duration interval_;
  const std::chrono::milliseconds timeout_;
  PgConnection connection_;  // the thread's only

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point last_{};  // the last NOTIFY sent or claimed; guarded
  std::chrono::steady_clock::time_point owed_since_{};  // the last commit without one; guarded
  bool owed_ = false;                             // guarded by mutex_
  bool carrying_ = false;  // a commit that claimed the NOTIFY is on its way; guarded by mutex_
  bool stopping_ = false;                         // guarded by mutex_
  PostgresLeaseStore::NotificationCounts counts_;  // guarded by mutex_
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace landlord::store::detail
