#pragma once
// The in-memory backend, for tests and simulations (explicit opt-in: `store: {type: memory}`).
// Same semantics as the SQLite backend, checked by the shared conformance suite; nothing
// survives the process.
#include <map>
#include <optional>

#include "landlord/store/lease_store.hpp"

namespace landlord::store {

class MemoryLeaseStore final : public LeaseStore {
 public:
  Expected<std::vector<WriteResult>, StoreError> commit(
      std::span<const lease::Lease> batch) override;
  Expected<void, StoreError> load(const std::function<void(lease::Lease&&)>& visit) override;

  // Fault injection: the next commit whose batch contains `address` fails with `error` when it
  // reaches that record, and nothing of that batch is kept. One shot.
  void fail_next_commit_at(Ipv4 address, StoreError error);

  std::size_t size() const { return records_.size(); }

 private:
  struct InjectedFault {
    Ipv4 address;
    StoreError error;
  };
  std::map<Ipv4, lease::Lease> records_;  // ordered: load() streams by address, like SQLite
  std::optional<InjectedFault> fault_;
};

}  // namespace landlord::store
