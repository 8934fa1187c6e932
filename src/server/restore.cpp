#include "landlord/server/restore.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace landlord::server {
namespace {

constexpr std::size_t kChunkRecords = 4096;
constexpr std::size_t kChunksAhead = 8;  // bounds the memory the reader may run ahead with

// Chunks of records from the reading thread to the restoring one.
class Chunks {
 public:
  void push(std::vector<lease::Lease>&& chunk) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [this] { return ready_.size() < kChunksAhead; });
    ready_.push_back(std::move(chunk));
    filled_.notify_one();
  }
  void finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    filled_.notify_one();
  }
  // The next chunk; empty once the reader has finished and everything was taken.
  std::vector<lease::Lease> pop() {
    std::unique_lock lock(mutex_);
    filled_.wait(lock, [this] { return !ready_.empty() || finished_; });
    if (ready_.empty()) return {};
    std::vector<lease::Lease> chunk = std::move(ready_.front());
    ready_.pop_front();
    room_.notify_one();
    return chunk;
  }

 private:
  std::mutex mutex_;
  std::condition_variable filled_, room_;
  std::deque<std::vector<lease::Lease>> ready_;
  bool finished_ = false;
};

}  // namespace

Expected<std::size_t, store::StoreError> restore_leases(store::LeaseStore& store,
                                                        engine::Engine& engine) {
  Chunks chunks;
  std::size_t read = 0;
  Expected<void, store::StoreError> loaded;
  std::thread reader([&] {
    std::vector<lease::Lease> chunk;
    chunk.reserve(kChunkRecords);
    loaded = store.load([&](lease::Lease&& record) {
      chunk.push_back(std::move(record));
      if (chunk.size() == kChunkRecords) {
        read += chunk.size();
        chunks.push(std::move(chunk));
        chunk = {};
        chunk.reserve(kChunkRecords);
      }
    });
    read += chunk.size();
    if (!chunk.empty()) chunks.push(std::move(chunk));
    chunks.finish();
  });
  for (auto chunk = chunks.pop(); !chunk.empty(); chunk = chunks.pop()) {
    for (lease::Lease& record : chunk) engine.restore(std::move(record));
  }
  reader.join();
  if (!loaded) return unexpected(std::move(loaded.error()));
  return read;
}

}  // namespace landlord::server
