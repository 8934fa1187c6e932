#include "sqlite_schema.hpp"

#include <array>
#include <string>

#include "landlord/store/sqlite_lease_store.hpp"
#include "sqlite_support.hpp"

namespace landlord::store::detail {
namespace {

// Operator-facing columns first, so `select * from leases` reads well. The CHECKs compare with
// OR rather than IN: SQLite builds an ephemeral table per row for an IN list of more than two
// values (80k instructions per upsert under callgrind, against 16k with OR, 15k with none).
// expires_at is derived from the stored facts (granted_at_ms + lease_time_ms), never written.
constexpr const char* kCreateSql = R"sql(
CREATE TABLE leases (
  address        TEXT PRIMARY KEY NOT NULL,  -- dotted quad
  state          TEXT NOT NULL CHECK (state = 'bound' OR state = 'released' OR
                                  state = 'expired' OR state = 'declined'),
  hwaddr         TEXT NOT NULL,              -- lower-case colon hex chaddr
  client_id      TEXT,                       -- option 61, colon hex; NULL when absent
  hostname       TEXT,                       -- option 12; NULL when absent
  expires_at     INTEGER GENERATED ALWAYS AS ((granted_at_ms + lease_time_ms) / 1000) VIRTUAL,
  fencing_token  INTEGER NOT NULL CHECK (fencing_token >= 0),
  subnet_id      INTEGER NOT NULL,
  hwtype         INTEGER NOT NULL,           -- htype of hwaddr (1 = Ethernet)
  granted_at_ms  INTEGER NOT NULL,           -- unix ms when the current lease period began
  lease_time_ms  INTEGER NOT NULL,
  renew_time_ms  INTEGER NOT NULL,           -- T1
  rebind_time_ms INTEGER NOT NULL,           -- T2
  last_extension TEXT NOT NULL CHECK (last_extension = 'none' OR last_extension = 'renewing' OR
                                      last_extension = 'rebinding'),
  client_key     TEXT NOT NULL,              -- identity the lease is bound to: id:.. or hw<type>:..
  classes        TEXT,                       -- client classes of the grant, comma-separated; NULL: none
  fqdn           TEXT,                       -- the name the server keeps in DNS; NULL: none
  fqdn_fwd       INTEGER NOT NULL DEFAULT 0 CHECK (fqdn_fwd = 0 OR fqdn_fwd = 1),  -- A + DHCID
  fqdn_rev       INTEGER NOT NULL DEFAULT 0 CHECK (fqdn_rev = 0 OR fqdn_rev = 1),  -- PTR + DHCID
  dns_state      TEXT NOT NULL DEFAULT 'none' CHECK (dns_state = 'none' OR dns_state = 'pending' OR
                   dns_state = 'done' OR dns_state = 'conflict' OR dns_state = 'failed'),
  relay_agent_info TEXT                      -- option 82 of the grant, colon hex; NULL: none
) WITHOUT ROWID;
)sql";

// kMigrations[i] takes a file from schema version i + 1 to i + 2 (a fresh file is created at
// kSchemaVersion by kCreateSql). Append, never edit a released step.
constexpr std::array<const char*, 2> kMigrations{
    // 1 -> 2: the client classes a lease was granted under (issue #10).
    "ALTER TABLE leases ADD COLUMN classes TEXT",
    // 2 -> 3: the name in DNS and its records' state (#33), option 82 (#35). Rows from before
    // have none: nothing in DNS that landlord put there.
    "ALTER TABLE leases ADD COLUMN fqdn TEXT;"
    " ALTER TABLE leases ADD COLUMN fqdn_fwd INTEGER NOT NULL DEFAULT 0 CHECK (fqdn_fwd = 0 OR fqdn_fwd = 1);"
    " ALTER TABLE leases ADD COLUMN fqdn_rev INTEGER NOT NULL DEFAULT 0 CHECK (fqdn_rev = 0 OR fqdn_rev = 1);"
    " ALTER TABLE leases ADD COLUMN dns_state TEXT NOT NULL DEFAULT 'none' CHECK (dns_state = 'none' OR"
    " dns_state = 'pending' OR dns_state = 'done' OR dns_state = 'conflict' OR dns_state = 'failed');"
    " ALTER TABLE leases ADD COLUMN relay_agent_info TEXT",
};
static_assert(kMigrations.size() + 1 == SqliteLeaseStore::kSchemaVersion);

struct FileIdentity {
  int application_id = 0;
  int user_version = 0;
  std::string objects;  // names of the schema objects, for the Foreign message
  int object_count = 0;
};

Expected<int, StoreError> pragma_int(sqlite3* db, const char* sql, std::string_view path) {
  auto statement = prepare(db, sql, path);
  if (!statement) return unexpected(statement.error());
  const int code = sqlite3_step(statement->get());
  if (code != SQLITE_ROW) return unexpected(sqlite_error(db, code, path, sql));
  return sqlite3_column_int(statement->get(), 0);
}

Expected<FileIdentity, StoreError> identify(sqlite3* db, std::string_view path) {
  FileIdentity identity;
  // The first read of a file that is not SQLite fails here with SQLITE_NOTADB.
  sqlite3_stmt* raw = nullptr;
  int code =
      sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema ORDER BY name", -1, &raw, nullptr);
  if (code != SQLITE_OK) return unexpected(sqlite_error(db, code, path, "reading the schema"));
  const Statement objects{raw};
  while ((code = sqlite3_step(objects.get())) == SQLITE_ROW) {
    if (identity.object_count++ > 0) identity.objects += ", ";
    identity.objects += reinterpret_cast<const char*>(sqlite3_column_text(objects.get(), 0));
  }
  if (code != SQLITE_DONE) return unexpected(sqlite_error(db, code, path, "reading the schema"));
  auto application_id = pragma_int(db, "PRAGMA application_id", path);
  if (!application_id) return unexpected(application_id.error());
  auto user_version = pragma_int(db, "PRAGMA user_version", path);
  if (!user_version) return unexpected(user_version.error());
  identity.application_id = *application_id;
  identity.user_version = *user_version;
  return identity;
}

bool is_empty(const FileIdentity& identity) {
  return identity.object_count == 0 && identity.application_id == 0 && identity.user_version == 0;
}

Expected<void, StoreError> check_ours(const FileIdentity& identity, std::string_view path) {
  const std::string where = "lease store " + std::string(path) + ": ";
  if (identity.application_id != SqliteLeaseStore::kApplicationId) {
    return unexpected(StoreError{
        StoreError::Kind::Foreign,
        where + "an SQLite database but not a landlord lease store (application_id " +
            std::to_string(identity.application_id) +
            ", objects: " + (identity.objects.empty() ? "none" : identity.objects) + ")"});
  }
  if (identity.user_version > SqliteLeaseStore::kSchemaVersion) {
    return unexpected(StoreError{StoreError::Kind::Foreign,
                                 where + "schema version " + std::to_string(identity.user_version) +
                                     " is newer than this build reads (" +
                                     std::to_string(SqliteLeaseStore::kSchemaVersion) + ")"});
  }
  if (identity.user_version < 1) {
    return unexpected(
        StoreError{StoreError::Kind::Corrupt, where + "landlord file with no schema version"});
  }
  return {};
}

// Brings a file of an older schema version up to kSchemaVersion, each step in the same
// transaction as the version it records.
Expected<void, StoreError> migrate(sqlite3* db, const FileIdentity& identity, std::string_view path) {
  for (int version = identity.user_version; version < SqliteLeaseStore::kSchemaVersion; ++version) {
    const int code = sqlite3_exec(db, kMigrations[static_cast<std::size_t>(version - 1)], nullptr, nullptr, nullptr);
    if (code == SQLITE_ERROR) {  // no leases table to alter: ours in name only
      return unexpected(StoreError{StoreError::Kind::Corrupt,
                                   "lease store " + std::string(path) + ": cannot migrate schema version " +
                                       std::to_string(version) + ": " + sqlite3_errmsg(db)});
    }
    if (code != SQLITE_OK) return unexpected(sqlite_error(db, code, path, "migrating the schema"));
    const std::string bump = "PRAGMA user_version = " + std::to_string(version + 1);
    if (auto set = execute(db, bump.c_str(), path); !set) return set;
  }
  return {};
}

Expected<void, StoreError> create_schema(sqlite3* db, std::string_view path) {
  // IMMEDIATE takes the write lock first, so of two processes creating one file, the second
  // sees the first one's schema when it looks again inside its transaction.
  if (auto begun = execute(db, "BEGIN IMMEDIATE", path); !begun) return begun;
  auto identity = identify(db, path);
  Expected<void, StoreError> result;
  if (!identity) {
    result = unexpected(identity.error());
  } else if (is_empty(*identity)) {
    const std::string pragmas =
        "PRAGMA application_id = " + std::to_string(SqliteLeaseStore::kApplicationId) +
        "; PRAGMA user_version = " + std::to_string(SqliteLeaseStore::kSchemaVersion) + ";";
    result = execute(db, kCreateSql, path);
    if (result) result = execute(db, pragmas.c_str(), path);
  } else {
    result = check_ours(*identity, path);
    if (result) result = migrate(db, *identity, path);
  }
  if (!result) {
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return result;
  }
  return execute(db, "COMMIT", path);
}

}  // namespace

Expected<void, StoreError> ensure_schema(sqlite3* db, std::string_view path, bool read_only) {
  auto identity = identify(db, path);
  if (!identity) return unexpected(identity.error());
  if (!is_empty(*identity)) {
    if (auto ours = check_ours(*identity, path); !ours) return ours;
    if (identity->user_version == SqliteLeaseStore::kSchemaVersion) return {};
    if (read_only) {
      return unexpected(StoreError{StoreError::Kind::Foreign,
                                   "lease store " + std::string(path) + ": schema version " +
                                       std::to_string(identity->user_version) + " opened read-only; " +
                                       "landlord upgrades it to " +
                                       std::to_string(SqliteLeaseStore::kSchemaVersion) +
                                       " when it opens it for writing"});
    }
    return create_schema(db, path);  // migrates, under the write lock
  }
  if (read_only) {
    return unexpected(StoreError{StoreError::Kind::Foreign,
                                 "lease store " + std::string(path) +
                                     ": empty database opened read-only; no lease store in it"});
  }
  return create_schema(db, path);
}

}  // namespace landlord::store::detail
