#pragma once
// The embedded default backend: one SQLite file, WAL journal, synchronous=FULL, so each
// commit() is one transaction and one fsync of the WAL. Schema and queries: docs/lease-store.md.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "landlord/store/lease_store.hpp"

namespace landlord::store {

struct SqliteOptions {
  std::string path;
  // How long a write waits for another connection's write lock before failing as Locked.
  // Short: the commit queue's worker, and every ACK behind it, waits this long.
  std::chrono::milliseconds busy_timeout{200};
  // Open an existing store without writing to it (operator tools); commit() fails ReadOnly.
  bool read_only = false;
};

// What the connection actually runs with, for the start-up log line and the durability test.
struct DurabilitySettings {
  std::string journal_mode;  // "wal"
  int synchronous = 0;       // 2 = FULL: the WAL is fsynced at every commit
};

// Checkpoints (WAL pages copied into the database file) run on a thread of their own; the
// committing thread only finishes the last few pages of each (see sqlite_checkpointer.hpp).
struct CheckpointCounts {
  std::uint64_t background = 0;  // passes on the checkpoint thread
  std::uint64_t writer = 0;      // catch-ups on the committing thread
};

// A store whose file system turns read-only under it (ext4's emergency read-only state after an
// error, a file made immutable) closes its files on the first commit that fails so: Linux
// refuses to unmount, check or remount a file system a process still writes to. Each later
// commit first opens the store again at the same path — never creating it, and only if it is
// the same store: a landlord store of this schema version that holds the last record this
// process wrote (or, if it wrote none, the record it read at open), as written or superseded
// by a newer one of its own. An older copy, an empty file or another store is refused, and
// nothing is written to it; the mountpoint's own empty directory, seen while the file system
// is unmounted, has no store to open. Then the commit runs as usual.
class SqliteLeaseStore final : public LeaseStore {
 public:
  // Opens or creates the store. A file that is not an SQLite database is Corrupt; an SQLite
  // database that is not a landlord store (or of a newer schema version) is Foreign.
  static Expected<std::unique_ptr<SqliteLeaseStore>, StoreError> open(const SqliteOptions& options);

  ~SqliteLeaseStore() override;
  SqliteLeaseStore(const SqliteLeaseStore&) = delete;
  SqliteLeaseStore& operator=(const SqliteLeaseStore&) = delete;

  Expected<std::vector<WriteResult>, StoreError> commit(
      std::span<const lease::Lease> batch) override;
  Expected<void, StoreError> load(const std::function<void(lease::Lease&&)>& visit) override;
  StoreHealth health() const override;
  std::string last_checkpoint_error() const override;
  void on_health_change(std::function<void()> changed) override;

  const std::string& path() const { return path_; }
  Expected<DurabilitySettings, StoreError> durability() const;
  CheckpointCounts checkpoints() const;
  // Whether the store's files are open (false between a read-only failure and the reopening).
  bool attached() const { return connection_ != nullptr; }

  static constexpr int kSchemaVersion = 3;  // 2: classes; 3: DNS name and state, option 82
  static constexpr int kApplicationId = 0x4c4c4431;  // "LLD1": marks the file as ours

 private:
  struct Connection;
  struct Shared;
  // The last record written (or, before any, one read at open): what a reopened file must hold.
  struct Witness {
    std::string address, client_key;
    std::int64_t fencing_token = 0, granted_at_ms = 0;
  };
  SqliteLeaseStore(SqliteOptions options, std::unique_ptr<Connection> connection,
                   std::unique_ptr<Shared> shared);
  // Opens the connection (and its checkpointer). `reopening` (the store that closed its files):
  // never creates, migrates or writes the schema, and the file must be that same store
  // (same_store) before anything else is done with it.
  static Expected<std::unique_ptr<Connection>, StoreError> connect(
      const SqliteOptions& options, Shared& shared, const SqliteLeaseStore* reopening);
  Expected<void, StoreError> reattach();
  Expected<std::vector<WriteResult>, StoreError> commit_attached(std::span<const lease::Lease> batch);
  Expected<void, StoreError> same_store(Connection& connection) const;

  SqliteOptions options_;
  std::string path_;
  std::unique_ptr<Shared> shared_;  // before connection_: its checkpointer counts into it
  std::unique_ptr<Connection> connection_;
  std::optional<Witness> witness_;  // none: the store was empty at open and nothing written
  struct TextBuffers {  // a record's text columns, formatted by commit(): capacity kept
    std::string client_id, client_key, relay_agent_info;
  } text_buffers_;
};

}  // namespace landlord::store
