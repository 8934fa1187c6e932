#pragma once
// The shared backend: several landlord servers on one PostgreSQL database (libpq). Each commit()
// is one transaction sent as one pipeline (one round trip for the whole batch); every record is
// a conditional write the database arbitrates, so two servers racing for one address cannot
// both win, and a paused server's stale write is refused. Schema and SQL: docs/lease-store.md.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "landlord/store/lease_store.hpp"

namespace landlord::store {

namespace detail {
class PostgresNotifier;
}

struct PostgresOptions {
  std::string url;  // libpq connection URI or key=value string
  // Longest a commit (or a load, or a poll) waits for the database; past it the connection is
  // dropped and the call fails: a timed-out commit is never acknowledged.
  std::chrono::milliseconds timeout{5000};
  // This server's server-id, written with every row (`writer`): the store accepts a bound record
  // with the row's own token only from the row's writer. None: rows written without one, which
  // any server may continue (a server without a server-id is not fenced from an equal token).
  std::optional<Ipv4> writer = std::nullopt;
  // Commits also send `NOTIFY landlord_leases, '<writer>'`, so a server listening (listen(),
  // await_notification()) learns at once that something changed. store.sync-notify. At most one
  // per `notify_interval`: a commit carries it inside its transaction (PostgreSQL delivers it
  // when, and only if, the transaction commits) when the interval since the last one has passed;
  // the last commits of a burst get a trailing NOTIFY at the interval's end, sent on a second
  // connection (src/store/postgres_notifier.hpp).
  bool notify = false;
  // Not a configuration key: kNotifyInterval bounds what coalescing adds to a listener's lag;
  // tests widen it to make a burst certain. 25 ms, measured (bench/feed_lag.sh, load, one
  // listener): 1.19-1.29 transactions per commit, lag p50/p99 15-16/32-37 ms; 10 ms: 1.64,
  // 7/20 ms; 50 ms: 1.09, 32/67 ms; uncoalesced 2.13, 8/21 ms; polling every 100 ms 1.03,
  // 53/111 ms.
  std::chrono::milliseconds notify_interval = kNotifyInterval;
  static constexpr std::chrono::milliseconds kNotifyInterval{25};
};

// The channel commits notify on (PostgresOptions::notify) and listen() listens to.
inline constexpr const char* kPostgresChangeChannel = "landlord_leases";

// Where a change feed stands: a PostgreSQL snapshot (pg_snapshot text, "xmin:xmax:xip,...").
// Every row written by a transaction this snapshot does not see is a change still to learn.
// A snapshot means something only to the database server that took it: after a failover to a
// replica, transaction ids may restart below the old primary's (ids it handed out but never
// shipped), and those rows would look already seen. So a cursor names the connection it was
// taken on, and a poll over any other connection reloads the whole table instead.
struct ChangeCursor {
  std::string snapshot;
  std::uint64_t connection = 0;  // PostgresLeaseStore's connection count when it was taken
};

struct Changes {
  std::vector<lease::Lease> records;  // the current row of every address changed since
  ChangeCursor next;                  // where the next poll starts
  bool reloaded = false;              // records is the whole table (the cursor's connection went)
};

class PostgresLeaseStore final : public LeaseStore {
 public:
  // Connects, and creates or migrates the schema. A database whose landlord schema is newer
  // than this build, or whose `leases` table is not ours, is Foreign.
  static Expected<std::unique_ptr<PostgresLeaseStore>, StoreError> open(
      const PostgresOptions& options);

  ~PostgresLeaseStore() override;
  PostgresLeaseStore(const PostgresLeaseStore&) = delete;
  PostgresLeaseStore& operator=(const PostgresLeaseStore&) = delete;

  // A lost connection fails the call (nothing of the batch is acknowledged); the next call
  // reconnects first.
  Expected<std::vector<WriteResult>, StoreError> commit(
      std::span<const lease::Lease> batch) override;
  Expected<void, StoreError> load(const std::function<void(lease::Lease&&)>& visit) override;

  // The change feed (polling by snapshot): `now()` is a cursor from which every later commit is
  // seen; `changes_since` returns the rows changed by transactions `cursor` did not see,
  // committed by any server (this one included), and the cursor to poll from next; on a
  // connection other than the cursor's (a reconnect: maybe to another server), every row.
  Expected<ChangeCursor, StoreError> now();
  Expected<Changes, StoreError> changes_since(const ChangeCursor& cursor);

  // The wake-up for the change feed (store.sync-notify): LISTEN on this connection, now and
  // after every reconnect (LISTEN first, so a commit after the next poll's snapshot is announced).
  // A failure drops the connection; the next call reconnects (and listens again).
  Expected<void, StoreError> listen();
  // Waits up to `timeout` for a notification of another server's commit (one whose payload is
  // not this store's own `writer`) on the listening connection, or for `wake_fd` to turn
  // readable (it is not read). True: at least one arrived (all pending ones are taken). False:
  // the time ran out, or wake_fd. A broken connection is an error (and is dropped). Without a
  // connection it only waits. Notifications are a hint: the poll that follows reads the rows.
  Expected<bool, StoreError> await_notification(Duration timeout, int wake_fd);

  // Who is up, as the database sees it (docs/lease-store.md, "Who is up, by the database"):
  // `announce(id)` takes a session advisory lock under `id` (a server's server-id) on this
  // connection, now and after every reconnect; PostgreSQL releases it when the session ends —
  // the server killed, its host gone, its connection cut — and not while the server is only
  // paused. False: another session holds `id` already (two servers configured with one
  // server-id); presence_held() says whether the current connection holds it. `present()`
  // lists the ids whose lock a session holds now, in this database.
  Expected<bool, StoreError> announce(std::uint32_t id);
  bool presence_held() const { return presence_held_; }
  Expected<std::vector<std::uint32_t>, StoreError> present();

  // How far `local_now` (this server's clock) is from the database server's clock: local minus
  // database (positive: this server is ahead), read at the middle of one round trip, which
  // bounds the error (`round_trip` / 2). Servers sharing a store write absolute lease ends, so
  // their clocks must agree (docs/lease-store.md, "Clocks").
  struct ClockReading {
    Duration offset{0};
    Duration round_trip{0};
  };
  Expected<ClockReading, StoreError> clock_offset(const std::function<TimePoint()>& local_now);

  // Connections made after the first (reconnects), for logs and tests.
  std::uint64_t reconnects() const;
  // NOTIFYs sent (PostgresOptions::notify), for tests and benches: carried by a commit that
  // committed, and trailing ones sent alone for commits that went without.
  struct NotificationCounts {
    std::uint64_t carried = 0;
    std::uint64_t trailing = 0;
  };
  NotificationCounts notifications() const;
  const std::string& name() const { return name_; }  // the URL without a password

  static constexpr int kSchemaVersion = 4;  // 2: classes; 3: writer; 4: DNS name, option 82
  // The first key of announce()'s advisory locks: 'LLPR', landlord's peers.
  static constexpr std::int32_t kPresenceLockClass = 0x4C4C5052;

 private:
  struct Connection;
  PostgresLeaseStore(PostgresOptions options, std::string name,
                     std::unique_ptr<Connection> connection);
  Expected<void, StoreError> ensure_connected();
  Expected<Changes, StoreError> reload();
  // Takes every notification libpq holds; true when one came from another writer.
  bool take_notifications();

  PostgresOptions options_;
  std::string name_;
  std::unique_ptr<Connection> connection_;
  std::string notify_sql_;  // "NOTIFY landlord_leases, '<writer>'" when options_.notify
  std::unique_ptr<detail::PostgresNotifier> notifier_;  // when options_.notify
  std::string own_payload_;  // this store's writer, as its notifications carry it ("" if none)
  bool listening_ = false;
  std::optional<std::uint32_t> announced_;  // announce()'s id, taken again at each reconnect
  bool presence_held_ = false;              // this connection holds announced_'s lock
};

}  // namespace landlord::store
