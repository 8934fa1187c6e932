#pragma once
// The embedded default backend: one SQLite file, WAL journal, synchronous=FULL, so each
// commit() is one transaction and one fsync of the WAL. Schema and queries: docs/lease-store.md.
#include <chrono>
#include <cstdint>
#include <memory>
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

  const std::string& path() const { return path_; }
  Expected<DurabilitySettings, StoreError> durability() const;
  CheckpointCounts checkpoints() const;

  static constexpr int kSchemaVersion = 2;  // 2: classes (sqlite_schema.cpp migrates 1)
  static constexpr int kApplicationId = 0x4c4c4431;  // "LLD1": marks the file as ours

 private:
  struct Connection;
  SqliteLeaseStore(std::string path, std::unique_ptr<Connection> connection);

  std::string path_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace landlord::store
