#include "landlord/store/memory_lease_store.hpp"

#include "record_text.hpp"

namespace landlord::store {
namespace {

// The rule every backend applies (docs/lease-store.md, "Arbitration").
bool entitled(const lease::Lease& stored, const lease::Lease& record) {
  const bool same_client = record.client == stored.client;
  const bool newer = record.fencing_token > stored.fencing_token ||
                     (record.fencing_token == stored.fencing_token && same_client &&
                      record.granted_at >= stored.granted_at);
  const bool over_running_lease = stored.state == lease::LeaseState::Bound && !same_client &&
                                  stored.expires_at() > record.granted_at;
  return newer && !over_running_lease;
}

}  // namespace

Expected<std::vector<WriteResult>, StoreError> MemoryLeaseStore::commit(
    std::span<const lease::Lease> batch) {
  for (const auto& record : batch) detail::assert_persistable(record);
  if (fault_) {
    for (const auto& record : batch) {
      if (record.address == fault_->address) {
        StoreError error = std::move(fault_->error);
        fault_.reset();
        return unexpected(std::move(error));  // nothing applied yet: the batch is all or nothing
      }
    }
  }
  std::vector<WriteResult> results;
  results.reserve(batch.size());
  for (const auto& record : batch) {
    auto [position, inserted] = records_.try_emplace(record.address, record);
    if (inserted) {
      results.push_back(WriteResult::Written);
    } else if (entitled(position->second, record)) {
      position->second = record;
      results.push_back(WriteResult::Written);
    } else {
      results.push_back(WriteResult::StaleToken);
    }
  }
  return results;
}

Expected<void, StoreError> MemoryLeaseStore::load(
    const std::function<void(lease::Lease&&)>& visit) {
  for (const auto& [address, record] : records_) visit(lease::Lease{record});
  return {};
}

void MemoryLeaseStore::fail_next_commit_at(Ipv4 address, StoreError error) {
  fault_ = InjectedFault{address, std::move(error)};
}

}  // namespace landlord::store
