#include "landlord/server/operator_changes.hpp"

#include "landlord/base/assert.hpp"

namespace landlord::server {

Expected<void, std::string> change_answer(durability::Verdict verdict, bool not_taken) {
  if (verdict == durability::Verdict::StaleToken) {
    return unexpected(std::string{"the store holds a newer holder (stale fencing token)"});
  }
  if (verdict == durability::Verdict::Unavailable && not_taken) {
    return unexpected(std::string{
        "the store's commit queue is full (the store is not failing; records came faster than "
        "it commits them): the change is kept and written by a retry shortly"});
  }
  if (verdict == durability::Verdict::Unavailable) {
    return unexpected(std::string{
        "the lease store is not accepting writes: the change is kept and written when it recovers"});
  }
  return {};
}

std::uint64_t OperatorChanges::add(Done done) {
  const std::uint64_t id = next_id_++;
  waiting_.emplace(id, std::move(done));
  return id;
}

OperatorChanges::Done OperatorChanges::take(std::uint64_t id) {
  const auto found = waiting_.find(id);
  LANDLORD_ASSERT(found != waiting_.end());
  Done done = std::move(found->second);
  waiting_.erase(found);
  return done;
}

}  // namespace landlord::server
