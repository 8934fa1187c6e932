#include "landlord/store/open_store.hpp"

#include "landlord/store/memory_lease_store.hpp"
#include "landlord/store/sqlite_lease_store.hpp"

namespace landlord::store {

Expected<std::unique_ptr<LeaseStore>, StoreError> open_store(const config::StoreSection& section) {
  switch (section.type) {
    case config::StoreSection::Type::Memory:
      return std::unique_ptr<LeaseStore>(std::make_unique<MemoryLeaseStore>());
    case config::StoreSection::Type::Sqlite: {
      auto opened = SqliteLeaseStore::open(SqliteOptions{.path = section.path});
      if (!opened) return unexpected(opened.error());
      return std::unique_ptr<LeaseStore>(std::move(*opened));
    }
  }
  return unexpected(StoreError{StoreError::Kind::Other, "unknown store type"});
}

}  // namespace landlord::store
