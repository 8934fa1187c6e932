// plan_import: live leases become bound records with the client and the time left; the rest
// is counted by reason. And the Kea CSV export reads back as the same leases.
#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"
#include "landlord/migrate/import_plan.hpp"
#include "landlord/migrate/kea_export.hpp"

namespace landlord::migrate {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 2'000'000'000;  // Unix seconds

config::Config test_config() {
  auto loaded = config::load_string(R"(
lease: {time: 1h}
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199]
    reservations:
      - {mac: "02:00:00:00:00:50", address: 198.18.0.50}
)", "test.yaml");
  EXPECT_TRUE(loaded);
  return std::move(loaded.value());
}

const TimePoint now = time_from_unix_ms(kNow * 1000);

struct Planned {
  config::Config config = test_config();
  engine::Engine engine{config};
  ImportPlan plan;
  explicit Planned(const LeaseFile& file) : plan(plan_import(file, config, engine, now)) {}
};

std::string kea_row(const std::string& address, const std::string& mac, std::int64_t expire,
                    const std::string& state = "0", const std::string& client_id = "") {
  return address + "," + mac + "," + client_id + ",3600," + std::to_string(expire) + ",1,0,0,h" +
         address.substr(address.rfind('.') + 1) + "," + state + ",\n";
}

constexpr std::string_view kHeader =
    "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context\n";

TEST(ImportPlan, LiveLeasesKeepClientAndTimeLeft) {
  const LeaseFile file = read_kea_csv(std::string{kHeader} +
      kea_row("198.18.0.100", "02:00:00:00:00:01", kNow + 1800, "0", "01:02:00:00:00:00:01") +
      kea_row("198.18.0.50", "02:00:00:00:00:50", kNow + 600));  // its reservation
  Planned planned{file};
  const ImportPlan& plan = planned.plan;
  ASSERT_EQ(plan.records.size(), 2U) << describe(plan, 5);
  const lease::Lease& reserved = plan.records[0];
  EXPECT_EQ(reserved.address.to_string(), "198.18.0.50");
  const lease::Lease& record = plan.records[1];
  EXPECT_EQ(record.address.to_string(), "198.18.0.100");
  EXPECT_EQ(record.hardware.to_string(), "02:00:00:00:00:01");
  EXPECT_EQ(record.client_id.to_string(), "01:02:00:00:00:00:01");
  EXPECT_EQ(record.hostname, "h100");
  EXPECT_EQ(record.state, lease::LeaseState::Bound);
  EXPECT_EQ(record.expires_at(), now + 1800s);  // what it had left, not landlord's 1h
  EXPECT_EQ(record.renew_time, 900s);           // 50% of it
  EXPECT_EQ(record.subnet_id, 1U);
  EXPECT_GT(record.fencing_token, 0U);
}

// The name Kea put in DNS comes over with the lease, its records known to be there (done).
TEST(ImportPlan, NameInDnsIsTakenOver) {
  const LeaseFile file = read_kea_csv(std::string{kHeader} +
      "198.18.0.100,02:00:00:00:00:01,,3600," + std::to_string(kNow + 1800) + ",1,1,1,h100.lab.example.,0,\n" +
      kea_row("198.18.0.101", "02:00:00:00:00:02", kNow + 1800));
  Planned planned{file};
  ASSERT_EQ(planned.plan.records.size(), 2U) << describe(planned.plan, 5);
  const lease::Lease& named = planned.plan.records[0];
  EXPECT_EQ(named.fqdn, "h100.lab.example");
  EXPECT_EQ(named.dns_sides, (lease::DnsSides{true, true}));
  EXPECT_EQ(named.dns_state, lease::DnsState::Done);
  const lease::Lease& plain = planned.plan.records[1];
  EXPECT_EQ(plain.fqdn, "");
  EXPECT_EQ(plain.dns_state, lease::DnsState::None);
  // Exported back to Kea: the name and its sides as Kea's hostname, fqdn_fwd and fqdn_rev.
  const std::string csv = export_kea_csv(planned.plan.records, now);
  EXPECT_NE(csv.find(",1,1,1,h100.lab.example,0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,0,0,h101,0,"), std::string::npos) << csv;
}

TEST(ImportPlan, EverythingLeftOutIsCountedByReason) {
  const LeaseFile file = read_kea_csv(std::string{kHeader} +
      kea_row("198.18.0.101", "02:00:00:00:00:01", kNow - 1) +                  // expired
      kea_row("198.18.0.102", "02:00:00:00:00:02", kNow + 600, "1") +           // declined
      kea_row("198.18.0.20", "02:00:00:00:00:03", kNow + 600) +                 // outside pools
      kea_row("198.18.0.103", "02:00:00:00:00:04", kNow + 600) +                // same client ...
      kea_row("198.18.0.104", "02:00:00:00:00:04", kNow + 900) +                // ... ending later
      kea_row("198.18.0.50", "02:00:00:00:00:05", kNow + 600) +                 // another's reservation
      kea_row("198.18.0.105", "02:00:00:00:00:06", kNow + 100) +                // superseded ...
      kea_row("198.18.0.105", "02:00:00:00:00:06", kNow + 700));                // ... by this
  Planned planned{file};
  const ImportPlan& plan = planned.plan;
  ASSERT_EQ(plan.records.size(), 2U) << describe(plan, 5);
  EXPECT_EQ(plan.records[0].address.to_string(), "198.18.0.104");
  EXPECT_EQ(plan.records[1].address.to_string(), "198.18.0.105");
  EXPECT_EQ(plan.records[1].expires_at(), now + 700s);
  EXPECT_EQ(plan.superseded, 1U);
  ASSERT_EQ(plan.expired.count, 1U);
  EXPECT_EQ(plan.expired.examples[0].line, 2);
  EXPECT_EQ(plan.inactive.count, 1U);
  ASSERT_EQ(plan.outside.count, 1U);
  EXPECT_EQ(plan.outside.examples[0].line, 4);
  ASSERT_EQ(plan.duplicates.count, 1U);
  EXPECT_EQ(plan.duplicates.examples[0].line, 5);
  ASSERT_EQ(plan.refused.count, 1U);
  EXPECT_NE(plan.refused.examples[0].reason.find("reserved for another client"), std::string::npos);
  const std::string report = describe(plan, 5);
  EXPECT_NE(report.find("leases to import: 2"), std::string::npos) << report;
  EXPECT_NE(report.find("expired: 1\n  line 2: 198.18.0.101"), std::string::npos) << report;
  EXPECT_NE(report.find("outside every pool: 1"), std::string::npos) << report;
}

TEST(ImportPlan, AnAddressTwiceInAFlatFileIsADuplicate) {
  const LeaseFile file = read_dnsmasq_leases(
      std::to_string(kNow + 600) + " 02:00:00:00:00:01 198.18.0.100 a *\n" +
      std::to_string(kNow + 900) + " 02:00:00:00:00:02 198.18.0.100 b *\n");
  Planned planned{file};
  ASSERT_EQ(planned.plan.records.size(), 1U);
  EXPECT_EQ(planned.plan.records[0].hostname, "b");
  ASSERT_EQ(planned.plan.duplicates.count, 1U);
  EXPECT_EQ(planned.plan.duplicates.examples[0].line, 1);
}

TEST(ImportPlan, AStoredLeaseOfAnotherClientIsNotOverwritten) {
  Planned first{read_dnsmasq_leases(std::to_string(kNow + 600) + " 02:00:00:00:00:01 198.18.0.100 a *\n")};
  ASSERT_EQ(first.plan.records.size(), 1U);
  // The same engine (as restored from the store) meets another client on that address.
  const ImportPlan second = plan_import(
      read_dnsmasq_leases(std::to_string(kNow + 600) + " 02:00:00:00:00:02 198.18.0.100 b *\n"),
      first.config, first.engine, now);
  EXPECT_TRUE(second.records.empty());
  ASSERT_EQ(second.refused.count, 1U);
  EXPECT_NE(second.refused.examples[0].reason.find("held by another client"), std::string::npos);
}

TEST(KeaExport, ReadsBackAsTheSameLeases) {
  const LeaseFile file = read_kea_csv(std::string{kHeader} +
      kea_row("198.18.0.100", "02:00:00:00:00:01", kNow + 1800, "0", "01:02:00:00:00:00:01") +
      kea_row("198.18.0.101", "02:00:00:00:00:02", kNow + 600));
  Planned planned{file};
  ASSERT_EQ(planned.plan.records.size(), 2U);
  const std::string csv = export_kea_csv(planned.plan.records, now);
  const LeaseFile back = read_kea_csv(csv);
  ASSERT_TRUE(back.failures.empty()) << csv;
  ASSERT_EQ(back.leases.size(), 2U) << csv;
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.leases[i].address, file.leases[i].address);
    EXPECT_EQ(back.leases[i].hardware, file.leases[i].hardware);
    EXPECT_EQ(back.leases[i].client_id.to_string(), file.leases[i].client_id.to_string());
    EXPECT_EQ(back.leases[i].hostname, file.leases[i].hostname);
    EXPECT_EQ(back.leases[i].expires, file.leases[i].expires);
  }
  EXPECT_EQ(export_kea_csv(planned.plan.records, now + 3600s), csv.substr(0, csv.find('\n') + 1))
      << "ended leases are left out";
}

}  // namespace
}  // namespace landlord::migrate
