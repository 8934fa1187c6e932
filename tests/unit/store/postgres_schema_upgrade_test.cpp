// Schema version 4 of the PostgreSQL store (the name in DNS, its records and their state, option
// 82): a version 3 database is upgraded in place and keeps its leases, then takes the new fields.
#include <gtest/gtest.h>

#include "landlord/store/postgres_lease_store.hpp"
#include "postgres_test_support.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using testing::bound_lease;
using testing::load_all;
using testing::same_lease;

TEST(PostgresSchemaUpgrade, VersionThreeIsUpgradedInPlaceAndKeepsItsLeases) {
  if (!testing::postgres_server()) GTEST_FAIL() << "LANDLORD_TEST_POSTGRES is not set: run through ctest";
  testing::ScratchDatabase database;
  auto opened = PostgresLeaseStore::open({.url = database.url()});
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  const auto record = bound_lease(2, 7);
  ASSERT_TRUE((*opened)->commit(std::vector{record}).has_value());
  opened->reset();
  database.sql("ALTER TABLE leases DROP COLUMN fqdn, DROP COLUMN fqdn_fwd, DROP COLUMN fqdn_rev,"
               " DROP COLUMN dns_state, DROP COLUMN relay_agent_info; UPDATE landlord_schema SET version = 3");
  auto store = PostgresLeaseStore::open({.url = database.url()});
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ(database.sql("SELECT version FROM landlord_schema"), std::to_string(PostgresLeaseStore::kSchemaVersion));
  auto rows = load_all(**store);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(same_lease(record, rows[0]));
  auto named = record;
  named.fqdn = "host-2.lab.example";
  named.dns_sides = {true, true};
  named.dns_state = lease::DnsState::Done;
  named.relay_agent_info = std::string("\x01\x02\x00\x07", 4);
  ASSERT_TRUE((*store)->commit(std::vector{named}).has_value());
  rows = load_all(**store);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(same_lease(named, rows[0]));
  EXPECT_EQ(database.sql("SELECT fqdn || ' ' || fqdn_fwd || ' ' || fqdn_rev || ' ' || dns_state || ' ' ||"
                         " relay_agent_info FROM leases"),
            "host-2.lab.example true true done 01:02:00:07");
}

}  // namespace
}  // namespace landlord::store
