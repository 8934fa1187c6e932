// Schema version 3 of the SQLite file (the name in DNS, its records and their state, option 82):
// a version 2 file is upgraded in place and keeps its leases; a version 3 file keeps every field.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "landlord/store/sqlite_lease_store.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using testing::bound_lease;
using testing::load_all;
using testing::same_lease;

std::vector<std::string> rows(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  std::vector<std::string> result;
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (sqlite3_step(statement) == SQLITE_ROW) {
    std::string row;
    for (int column = 0; column < sqlite3_column_count(statement); ++column) {
      const auto* text = sqlite3_column_text(statement, column);
      row += (column > 0 ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    result.push_back(row);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

void execute(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

std::unique_ptr<SqliteLeaseStore> open_ok(const std::filesystem::path& file) {
  auto store = SqliteLeaseStore::open({.path = file.string()});
  EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

lease::Lease named_lease() {
  auto record = bound_lease(5, 9);
  record.fqdn = "host-5.lab.example";
  record.dns_sides = {true, false};
  record.dns_state = lease::DnsState::Pending;
  record.relay_agent_info = std::string("\x01\x04\x00\x01\x00\x07\x02\x02sw", 10);
  return record;
}

// A file as a landlord of schema version 2 wrote it (client classes, no DNS name, no option 82).
TEST(SqliteSchemaUpgrade, VersionTwoIsUpgradedInPlaceAndKeepsItsLeases) {
  testing::ScratchDirectory directory;
  const auto file = directory.path() / "leases.db";
  execute(file,
          "CREATE TABLE leases (address TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL, hwaddr TEXT NOT NULL,"
          " client_id TEXT, hostname TEXT,"
          " expires_at INTEGER GENERATED ALWAYS AS ((granted_at_ms + lease_time_ms) / 1000) VIRTUAL,"
          " fencing_token INTEGER NOT NULL, subnet_id INTEGER NOT NULL, hwtype INTEGER NOT NULL,"
          " granted_at_ms INTEGER NOT NULL, lease_time_ms INTEGER NOT NULL, renew_time_ms INTEGER NOT NULL,"
          " rebind_time_ms INTEGER NOT NULL, last_extension TEXT NOT NULL, client_key TEXT NOT NULL,"
          " classes TEXT) WITHOUT ROWID;"
          " INSERT INTO leases (address, state, hwaddr, client_id, hostname, fencing_token, subnet_id, hwtype,"
          " granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms, last_extension, client_key, classes)"
          " VALUES ('198.18.0.1', 'bound', '02:00:00:00:00:01', NULL, 'host-1', 7, 2, 1,"
          " 1790000000124, 3600000, 1800000, 3150000, 'none', 'hw1:02:00:00:00:00:01', 'uefi,floor-2');"
          " PRAGMA application_id = " +
              std::to_string(SqliteLeaseStore::kApplicationId) + "; PRAGMA user_version = 2");
  const auto refused = SqliteLeaseStore::open({.path = file.string(), .read_only = true});
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("schema version 2"), std::string::npos) << refused.error().message;

  auto store = open_ok(file);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(rows(file, "PRAGMA user_version"), std::vector{std::to_string(SqliteLeaseStore::kSchemaVersion)});
  const auto before = bound_lease(1, 7);  // what the row says; no name in DNS, no option 82
  auto loaded = load_all(*store);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_TRUE(same_lease(before, loaded[0]));
  EXPECT_EQ(rows(file, "SELECT fqdn, fqdn_fwd, fqdn_rev, dns_state, relay_agent_info FROM leases"),
            std::vector<std::string>{"NULL|0|0|none|NULL"});
  // The upgraded file takes the new fields.
  auto named = named_lease();
  named.address = before.address;
  named.client = before.client;
  named.hardware = before.hardware;
  named.client_id = before.client_id;
  named.fencing_token = 8;
  ASSERT_TRUE(store->commit(std::vector{named}).has_value());
  store.reset();
  store = open_ok(file);
  loaded = load_all(*store);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_TRUE(same_lease(named, loaded[0]));
}

// Written at version 3, closed and opened again: every field as it was, and columns an operator
// can read.
TEST(SqliteSchemaUpgrade, VersionThreeFileKeepsEveryField) {
  testing::ScratchDirectory directory;
  const auto file = directory.path() / "leases.db";
  auto store = open_ok(file);
  ASSERT_NE(store, nullptr);
  auto both = named_lease();
  both.dns_sides = {true, true};
  both.dns_state = lease::DnsState::Done;
  auto released = bound_lease(6, 2);
  released.state = lease::LeaseState::Released;
  released.fqdn = "gone.lab.example";
  released.dns_sides = {false, true};
  released.dns_state = lease::DnsState::Failed;
  ASSERT_TRUE(store->commit(std::vector{both, released}).has_value());
  store.reset();
  store = open_ok(file);
  const auto loaded = load_all(*store);
  ASSERT_EQ(loaded.size(), 2u);
  for (const auto& record : loaded) {
    EXPECT_TRUE(same_lease(record.address == both.address ? both : released, record));
  }
  EXPECT_EQ(rows(file, "SELECT fqdn, fqdn_fwd, fqdn_rev, dns_state, relay_agent_info FROM leases ORDER BY address"),
            (std::vector<std::string>{"host-5.lab.example|1|1|done|01:04:00:01:00:07:02:02:73:77",
                                      "gone.lab.example|0|1|failed|NULL"}));
}

TEST(SqliteSchemaUpgrade, SchemaRefusesDnsValuesItDoesNotKnow) {
  testing::ScratchDirectory directory;
  const auto file = directory.path() / "leases.db";
  auto store = open_ok(file);
  ASSERT_TRUE(store->commit(std::vector{named_lease()}).has_value());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  for (const char* sql : {"UPDATE leases SET dns_state = 'maybe'", "UPDATE leases SET fqdn_fwd = 2",
                          "UPDATE leases SET fqdn_rev = -1"}) {
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_CONSTRAINT) << sql;
  }
  sqlite3_close(db);
}

}  // namespace
}  // namespace landlord::store
