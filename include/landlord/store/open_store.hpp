#pragma once
// Chooses a backend from the configuration's `store:` section. Only the plain config struct is
// used here: the store never sees YAML.
#include <memory>
#include <optional>

#include "landlord/config/config.hpp"
#include "landlord/store/commit_queue.hpp"
#include "landlord/store/lease_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"

namespace landlord::store {

// `writer`: the server-id a shared store (PostgreSQL) writes with every row (PostgresOptions);
// none for tools that write as no server (imports).
Expected<std::unique_ptr<LeaseStore>, StoreError> open_store(const config::StoreSection& section,
                                                           std::optional<Ipv4> writer = std::nullopt);

// The PostgreSQL settings of a `type: postgresql` section: the store's, and the change feed's
// connection's, so both wait on the database for as long as `timeout` says.
PostgresOptions postgres_options(const config::StoreSection& section, std::optional<Ipv4> writer);

// The store for messages, without secrets: the file, or "postgresql database D on HOST".
std::string describe_store(const config::StoreSection& section);

// The group-commit settings of the same section; the queue's capacity keeps its default.
inline CommitQueueOptions commit_queue_options(const config::StoreSection& section) {
  CommitQueueOptions options;
  options.batch_max = section.batch_max;
  options.batch_wait = section.batch_wait;
  return options;
}

}  // namespace landlord::store
