#pragma once
// Copies the WAL's pages back into the database file on a thread of its own.
//
// SQLite checkpoints on the committing connection by default (every 1,000 WAL pages): with
// 100k leases spread over the file one took 10-200 ms, and every ACK queued behind that commit
// waited (steady state at 100k clients: RENEW->ACK p99 74-152 ms, against 0.35 ms with the
// memory store). Here a second connection checkpoints PASSIVE — it never blocks the writer —
// until only a few pages are left; the writer then copies those few itself after its next
// commit, so the WAL is fully copied and the next transaction starts it over from the top
// (SQLite resets a WAL only when every frame is in the database file).
//
// A checkpoint that fails (the database file made immutable, its disk full while the WAL still
// has room, an I/O error) costs nothing durable — every commit is in the WAL — but the WAL
// grows until one succeeds, so each failure is counted by reason (CheckpointFailures) for the
// store's health(), busy ones excepted (another checkpoint was running: contention, not a fault).
#include <sqlite3.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "landlord/base/expected.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store::detail {

// Shared by the store and its checkpointers (a store reopened gets new ones, the counts stay).
// It also holds the store's health listener (LeaseStore::on_health_change): record() calls it,
// and the store calls notify() for what else it counts (a reopened store).
class CheckpointFailures {
 public:
  void record(const StoreError& error);
  std::array<std::uint64_t, StoreError::kKinds> counts() const;
  std::string last() const;
  void listen(std::function<void()> changed);
  void notify() const;

 private:
  std::array<std::atomic<std::uint64_t>, StoreError::kKinds> counts_{};
  mutable std::mutex mutex_;
  std::string last_;                 // guarded by mutex_
  std::function<void()> listener_;   // guarded by mutex_, called under it
};

class Checkpointer {
 public:
  static constexpr int kStartFrames = 1000;         // SQLite's own autocheckpoint threshold
  static constexpr int kCatchUpFrames = 256;        // what the writer copies itself, at most
  static constexpr int kWriterLimitFrames = 20000;  // ~80 MiB: the writer checkpoints whatever

  // Opens the second connection to `path` (a store already opened and configured by the writer).
  // Failures are counted in `failures`, which must outlive the checkpointer.
  static Expected<std::unique_ptr<Checkpointer>, StoreError> open(const std::string& path,
                                                                 CheckpointFailures& failures);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // The writer's thread, after each commit, with the WAL's size in frames from its wal hook.
  void after_commit(sqlite3* writer, int wal_frames);

  std::uint64_t background_checkpoints() const { return background_.load(); }
  std::uint64_t writer_checkpoints() const { return writer_.load(); }

 private:
  Checkpointer(sqlite3* db, std::string path, CheckpointFailures& failures);
  void run();
  // A checkpoint's result code on `db`: counts it when it is a failure.
  void check(sqlite3* db, int code);

  sqlite3* db_;
  const std::string path_;
  CheckpointFailures& failures_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;             // guarded by mutex_
  bool stopping_ = false;              // guarded by mutex_
  std::atomic<bool> catch_up_{false};  // the background passes left little: writer, finish it
  std::atomic<std::uint64_t> background_{0}, writer_{0};
  std::thread thread_;
};

}  // namespace landlord::store::detail
