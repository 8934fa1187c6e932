#pragma once
// The control API's changes (lease4-add, -del, -update, -wipe, leases-reclaim) on their way to
// the store: each is proposed to the durability machine like an ACK's records and answered when
// its release comes back. OperatorChanges keeps the callers waiting, by change id, and says what
// each release means for the caller. Sans I/O: tested in tests/unit/server/operator_changes_test.cpp.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "landlord/base/expected.hpp"
#include "landlord/durability/machine.hpp"

namespace landlord::server {

// What a change's release tells its caller: done, or why not.
Expected<void, std::string> change_answer(durability::Verdict verdict, bool not_taken);

class OperatorChanges {
 public:
  using Done = std::function<void(Expected<void, std::string>)>;

  // A change about to be proposed: its id (durability::Origin::change_id, never 0).
  std::uint64_t add(Done done);
  // The caller waiting for change `id`, forgotten here (asserted: it waits).
  Done take(std::uint64_t id);
  std::size_t waiting() const { return waiting_.size(); }

 private:
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, Done> waiting_;
};

}  // namespace landlord::server
