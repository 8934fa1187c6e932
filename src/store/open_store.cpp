#include "landlord/store/open_store.hpp"

#include "landlord/store/memory_lease_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "landlord/store/sqlite_lease_store.hpp"
#include "postgres_support.hpp"

namespace landlord::store {

Expected<std::unique_ptr<LeaseStore>, StoreError> open_store(const config::StoreSection& section,
                                                           std::optional<Ipv4> writer) {
  switch (section.type) {
    case config::StoreSection::Type::Memory:
      return std::unique_ptr<LeaseStore>(std::make_unique<MemoryLeaseStore>());
    case config::StoreSection::Type::Sqlite: {
      auto opened = SqliteLeaseStore::open(SqliteOptions{.path = section.path});
      if (!opened) return unexpected(opened.error());
      return std::unique_ptr<LeaseStore>(std::move(*opened));
    }
    case config::StoreSection::Type::Postgresql: {
      auto opened = PostgresLeaseStore::open(postgres_options(section, writer));
      if (!opened) return unexpected(opened.error());
      return std::unique_ptr<LeaseStore>(std::move(*opened));
    }
  }
  return unexpected(StoreError{StoreError::Kind::Other, "unknown store type"});
}

PostgresOptions postgres_options(const config::StoreSection& section, std::optional<Ipv4> writer) {
  return PostgresOptions{.url = section.url,
                         .timeout = section.timeout,
                         .writer = writer,
                         .notify = section.sync_notify};
}

std::string describe_store(const config::StoreSection& section) {
  switch (section.type) {
    case config::StoreSection::Type::Memory: return "memory";
    case config::StoreSection::Type::Sqlite: return section.path;
    case config::StoreSection::Type::Postgresql: return detail::describe_url(section.url);
  }
  return "unknown store";
}

}  // namespace landlord::store
