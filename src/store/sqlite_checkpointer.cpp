#include "sqlite_checkpointer.hpp"

#include <pthread.h>

#include "sqlite_support.hpp"

namespace landlord::store::detail {
namespace {
constexpr int kMaxPassesPerWake = 8;  // a writer faster than the copying leaves it to the limit
}  // namespace

void CheckpointFailures::record(const StoreError& error) {
  std::lock_guard lock(mutex_);
  last_ = error.message;
  counts_[static_cast<std::size_t>(error.kind)].fetch_add(1, std::memory_order_relaxed);
  if (listener_) listener_();  // counted first: the listener reads health()
}

void CheckpointFailures::listen(std::function<void()> changed) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(changed);
}

void CheckpointFailures::notify() const {
  std::lock_guard lock(mutex_);
  if (listener_) listener_();
}

std::array<std::uint64_t, StoreError::kKinds> CheckpointFailures::counts() const {
  std::array<std::uint64_t, StoreError::kKinds> counts{};
  for (std::size_t kind = 0; kind < counts.size(); ++kind) {
    counts[kind] = counts_[kind].load(std::memory_order_relaxed);
  }
  return counts;
}

std::string CheckpointFailures::last() const {
  std::lock_guard lock(mutex_);
  return last_;
}

Expected<std::unique_ptr<Checkpointer>, StoreError> Checkpointer::open(
    const std::string& path, CheckpointFailures& failures) {
  sqlite3* db = nullptr;
  const int code =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nullptr);
  if (code != SQLITE_OK) {
    StoreError error = sqlite_error(db, code, path, "opening the checkpoint connection");
    sqlite3_close_v2(db);
    return unexpected(std::move(error));
  }
  // A checkpoint fsyncs the WAL and then the database file, as the writer's would.
  if (auto synchronous = execute(db, "PRAGMA synchronous = FULL", path); !synchronous) {
    sqlite3_close_v2(db);
    return unexpected(synchronous.error());
  }
  return std::unique_ptr<Checkpointer>(new Checkpointer(db, path, failures));
}

Checkpointer::Checkpointer(sqlite3* db, std::string path, CheckpointFailures& failures)
    : db_(db), path_(std::move(path)), failures_(failures), thread_([this] { run(); }) {}

void Checkpointer::check(sqlite3* db, int code) {
  if (code == SQLITE_OK || (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) return;
  failures_.record(sqlite_error(db, code, path_, "checkpointing the WAL into the database file"));
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  sqlite3_close_v2(db_);
}

void Checkpointer::after_commit(sqlite3* writer, int wal_frames) {
  if (catch_up_.exchange(false) || wal_frames >= kWriterLimitFrames) {
    // No commit can land while this runs (this is the writer's thread), so it copies every
    // frame left; SQLITE_BUSY (the background pass is running) leaves it for the next commit.
    int log_frames = 0;
    int copied_frames = 0;
    const int code = sqlite3_wal_checkpoint_v2(writer, nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                               &log_frames, &copied_frames);
    if (code == SQLITE_OK) writer_.fetch_add(1, std::memory_order_relaxed);
    check(writer, code);
    return;
  }
  if (wal_frames < kStartFrames) return;
  {
    std::lock_guard lock(mutex_);
    if (requested_) return;
    requested_ = true;
  }
  wake_.notify_one();
}

void Checkpointer::run() {
  pthread_setname_np(pthread_self(), "store-checkpt");  // top -H, perf --per-thread
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return requested_ || stopping_; });
    if (stopping_) return;
    lock.unlock();
    for (int pass = 0; pass < kMaxPassesPerWake; ++pass) {
      int log_frames = 0;
      int copied_frames = 0;
      // Errors (busy, a full disk) cost nothing durable: the WAL keeps every commit, and the
      // next wake tries again. Failures other than busy are counted.
      const int code = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                                 &log_frames, &copied_frames);
      if (code != SQLITE_OK) {
        check(db_, code);
        break;
      }
      background_.fetch_add(1, std::memory_order_relaxed);
      if (log_frames - copied_frames <= kCatchUpFrames) {
        catch_up_.store(true);
        break;
      }
    }
    lock.lock();
    requested_ = false;
  }
}

}  // namespace landlord::store::detail
