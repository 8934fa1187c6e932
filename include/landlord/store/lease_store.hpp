#pragma once
// Durable lease records. Writes are conditional on the fencing token: a record whose token
// is older than the stored one for its address is refused.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::store {

struct StoreError {
  enum class Kind : std::uint8_t { Io, Full, ReadOnly, Locked, Corrupt, Foreign, Other };
  static constexpr std::size_t kKinds = 7;  // counters by kind are arrays of this size
  Kind kind = Kind::Other;
  std::string message;  // includes the path and the backend's own words
};
std::string_view to_string(StoreError::Kind kind);

enum class WriteResult : std::uint8_t { Written, StaleToken };

// What a store reports about itself beside its commits' answers, for /metrics and the log. Safe
// to read from any thread while the store is in use.
struct StoreHealth {
  // Failed WAL checkpoints (SQLite) by reason: the commits are durable all the same (in the
  // WAL), but the WAL grows until a checkpoint succeeds. A busy checkpoint is not a failure.
  std::array<std::uint64_t, StoreError::kKinds> checkpoint_failures{};
  // Times the store was opened again after it had closed its files for a file system that
  // turned read-only (SqliteLeaseStore), found to be the same store, and written to.
  std::uint64_t reopened = 0;
};

// A store holds one record per address: that address's current lease and its fencing token.
// A store is used from one thread at a time (the CommitQueue's worker, or start-up code).
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // Writes the batch in one transaction and makes it durable before returning (one fsync).
  // On success, result[i] says whether record i was written or refused for a stale token.
  // On error nothing of the batch is durable.
  // Records are applied in order, so a later record for the same address is compared with the
  // earlier one. Offered records are holds, never persisted: passing one is a programming error
  // and stops the process.
  virtual Expected<std::vector<WriteResult>, StoreError> commit(
      std::span<const lease::Lease> batch) = 0;
  // Streams every stored record (any state) to `visit`; used at start-up to rebuild memory.
  virtual Expected<void, StoreError> load(const std::function<void(lease::Lease&&)>& visit) = 0;
  virtual StoreHealth health() const { return {}; }
  // The last failed checkpoint's message (empty: none), for the log when health() counts more.
  virtual std::string last_checkpoint_error() const { return {}; }
  // Calls `changed` each time health() counts something more, on the thread that counted it
  // (SQLite: the checkpoint thread, or the committing one) — also when no commit follows, as a
  // background checkpoint that fails after the last commit of a quiet period. An empty function
  // stops the calls; once this returns, the previous function is not running and not called
  // again. `changed` runs under the store's lock: it must be quick and not use the store.
  virtual void on_health_change(std::function<void()> changed) { (void)changed; }
};

}  // namespace landlord::store
