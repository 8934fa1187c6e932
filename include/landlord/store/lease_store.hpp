#pragma once
// Durable lease records. Writes are conditional on the fencing token: a record whose token
// is older than the stored one for its address is refused.
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
};

}  // namespace landlord::store
