#include "postgres_schema.hpp"

#include <array>
#include <cstdlib>
#include <string>

#include "landlord/store/postgres_lease_store.hpp"

namespace landlord::store::detail {
namespace {

// kMigrations[i] takes the schema from version i to i + 1. Append, never edit a released step.
constexpr std::array<const char*, 4> kMigrations{
    // 0 -> 1: the leases table, one row per address, and the change marker of each row.
    R"sql(
CREATE TABLE leases (
  address        inet PRIMARY KEY,
  state          text NOT NULL CHECK (state IN ('bound', 'released', 'expired', 'declined')),
  hwaddr         text NOT NULL,
  client_id      text,
  hostname       text,
  expires_at     timestamptz GENERATED ALWAYS AS
                   (to_timestamp((granted_at_ms + lease_time_ms) / 1000.0)) STORED,
  fencing_token  bigint NOT NULL CHECK (fencing_token >= 0),
  subnet_id      bigint NOT NULL,
  hwtype         smallint NOT NULL,
  granted_at_ms  bigint NOT NULL,
  lease_time_ms  bigint NOT NULL,
  renew_time_ms  bigint NOT NULL,
  rebind_time_ms bigint NOT NULL,
  last_extension text NOT NULL CHECK (last_extension IN ('none', 'renewing', 'rebinding')),
  client_key     text NOT NULL,
  changed_xid    xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX leases_changed_xid ON leases (changed_xid);
)sql",
    // 1 -> 2: the client classes a lease was granted under, comma-separated (issue #10).
    "ALTER TABLE leases ADD COLUMN classes text",
    // 2 -> 3: the server-id of the server that wrote the row: a token is one server's (#14).
    // Rows from before it have none, and any server may continue them.
    "ALTER TABLE leases ADD COLUMN writer inet",
    // 3 -> 4: the name the server keeps in DNS, which records and their state (#33), and
    // option 82 as colon hex (#35). Rows from before have none.
    "ALTER TABLE leases ADD COLUMN fqdn text,"
    " ADD COLUMN fqdn_fwd boolean NOT NULL DEFAULT false,"
    " ADD COLUMN fqdn_rev boolean NOT NULL DEFAULT false,"
    " ADD COLUMN dns_state text NOT NULL DEFAULT 'none'"
    "   CHECK (dns_state IN ('none', 'pending', 'done', 'conflict', 'failed')),"
    " ADD COLUMN relay_agent_info text",
};
static_assert(kMigrations.size() == PostgresLeaseStore::kSchemaVersion);

// Serializes concurrent openers (two servers starting together) for the transaction.
constexpr const char* kLockSql = "SELECT pg_advisory_xact_lock(1280066609)";  // 0x4c4c4431 "LLD1"

}  // namespace

Expected<void, StoreError> ensure_postgres_schema(PGconn* connection, std::string_view name,
                                                  Deadline deadline) {
  const auto run = [&](const char* sql, ExecStatusType expected, std::string_view doing) {
    return execute(connection, name, sql, {}, expected, doing, deadline);
  };
  const auto rollback = [&](StoreError error) {
    (void)run("ROLLBACK", PGRES_COMMAND_OK, "rolling back");
    return unexpected(std::move(error));
  };
  if (auto begun = run("BEGIN", PGRES_COMMAND_OK, "starting the schema check"); !begun) {
    return unexpected(begun.error());
  }
  if (auto locked = run(kLockSql, PGRES_TUPLES_OK, "locking the schema"); !locked) {
    return rollback(locked.error());
  }
  auto found = run(
      "SELECT to_regclass('landlord_schema') IS NOT NULL, to_regclass('leases') IS NOT NULL",
      PGRES_TUPLES_OK, "reading the schema");
  if (!found) return rollback(found.error());
  const bool has_version = PQgetvalue(found->get(), 0, 0)[0] == 't';
  const bool has_leases = PQgetvalue(found->get(), 0, 1)[0] == 't';
  int version = 0;
  if (has_version) {
    auto read = run("SELECT version FROM landlord_schema", PGRES_TUPLES_OK, "reading the version");
    if (!read) return rollback(read.error());
    if (PQntuples(read->get()) != 1) {
      return rollback(StoreError{StoreError::Kind::Corrupt,
                                 "lease store " + std::string(name) +
                                     ": landlord_schema does not hold exactly one version row"});
    }
    version = std::atoi(PQgetvalue(read->get(), 0, 0));
  } else if (has_leases) {
    return rollback(StoreError{StoreError::Kind::Foreign,
                               "lease store " + std::string(name) +
                                   ": has a 'leases' table that is not landlord's (no "
                                   "landlord_schema); use another database"});
  } else {
    auto created = run("CREATE TABLE landlord_schema (version integer NOT NULL);"
                       " INSERT INTO landlord_schema VALUES (0)",
                       PGRES_COMMAND_OK, "creating landlord_schema");
    if (!created) return rollback(created.error());
  }
  if (version > PostgresLeaseStore::kSchemaVersion || version < 0) {
    return rollback(StoreError{StoreError::Kind::Foreign,
                               "lease store " + std::string(name) + ": schema version " +
                                   std::to_string(version) + " is not one this landlord knows (" +
                                   std::to_string(PostgresLeaseStore::kSchemaVersion) +
                                   "); upgrade landlord"});
  }
  for (int step = version; step < PostgresLeaseStore::kSchemaVersion; ++step) {
    auto migrated = run(kMigrations[static_cast<std::size_t>(step)], PGRES_COMMAND_OK,
                        "migrating the schema to version " + std::to_string(step + 1));
    if (!migrated) return rollback(migrated.error());
    const std::string bump = "UPDATE landlord_schema SET version = " + std::to_string(step + 1);
    if (auto set = run(bump.c_str(), PGRES_COMMAND_OK, "recording the schema version"); !set) {
      return rollback(set.error());
    }
  }
  if (auto committed = run("COMMIT", PGRES_COMMAND_OK, "committing the schema"); !committed) {
    return unexpected(committed.error());
  }
  return {};
}

}  // namespace landlord::store::detail
