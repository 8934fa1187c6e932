// The times an imported lease gets: what it had left within lease.min/lease.max (reported), T1
// and T2 as Kea applies fixed timers (issue #37 item 1: a Kea-style config with renew/rebind
// durations took none of Kea's leases), and a time no lease can have refused with its line.
#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"
#include "landlord/migrate/import_plan.hpp"
#include "landlord/migrate/imported_times.hpp"

namespace landlord::migrate {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 2'000'000'000;  // Unix seconds
const TimePoint now = time_from_unix_ms(kNow * 1000);

config::Config config_with(const std::string& lease) {
  auto loaded = config::load_string("lease: " + lease + R"(
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199]
)", "test.yaml");
  EXPECT_TRUE(loaded) << (loaded ? "" : config::format_errors(loaded.error()));
  return std::move(loaded.value());
}

std::string dnsmasq_line(int host, std::int64_t expiry) {
  return std::to_string(expiry) + " 02:00:00:00:00:" + std::to_string(10 + host) + " 198.18.0." +
         std::to_string(100 + host) + " h" + std::to_string(host) + " *\n";
}

struct Planned {
  config::Config config;
  engine::Engine engine{config};
  ImportPlan plan;
  Planned(const std::string& lease, const std::string& file)
      : config(config_with(lease)), plan(plan_import(read_dnsmasq_leases(file), config, engine, now)) {}
};

TEST(ImportedTimes, FixedTimersAsKeaAppliesThem) {
  // Kea: valid-lifetime 60, renew-timer 30, rebind-timer 52.
  Planned planned{"{time: 60s, renew: 30s, rebind: 52s}",
                  dnsmasq_line(0, kNow + 59) + dnsmasq_line(1, kNow + 40) + dnsmasq_line(2, kNow + 20) +
                      dnsmasq_line(3, kNow + 1)};
  const ImportPlan& plan = planned.plan;
  ASSERT_EQ(plan.records.size(), 4U) << describe(plan, 5) << problems(plan, "f", 20);
  EXPECT_EQ(plan.refused.count, 0U);
  struct Want { Duration lease, renew, rebind; };
  const Want want[] = {{59s, 30s, 52s},   // both fit
                       {40s, 30s, 35s},   // T2 past the lease: the client's 87.5%
                       {20s, 10s, 17s},   // T1 past that T2: 50%
                       {3s, 1s, 2s}};     // 1 s left: held 3 s, the shortest with T1 < T2 < lease
  for (std::size_t i = 0; i < 4; ++i) {
    const lease::Lease& record = plan.records[i];
    EXPECT_EQ(record.lease_time, want[i].lease) << i;
    EXPECT_EQ(record.renew_time, want[i].renew) << i;
    EXPECT_EQ(record.rebind_time, want[i].rebind) << i;
    EXPECT_EQ(record.granted_at, now);
  }
}

TEST(ImportedTimes, PercentagesFollowTheTimeLeft) {
  const auto times = imported_times(config_with("{time: 1h}").subnets[0].lease, now + 1000s, now);
  ASSERT_TRUE(times);
  EXPECT_EQ(times->lease_time, 1000s);
  EXPECT_EQ(times->renew, 500s);
  EXPECT_EQ(times->rebind, 875s);
  EXPECT_EQ(times->change, ImportedTimes::Change::None);
}

TEST(ImportedTimes, TheTimeLeftIsRoundedUpNotDown) {  // the server never ends before the client
  const auto times = imported_times(config_with("{time: 1h}").subnets[0].lease, now + 1000s, now + 400ms);
  ASSERT_TRUE(times);
  EXPECT_EQ(times->lease_time, 1000s);
}

TEST(ImportedTimes, LeaseMaxAndMinBoundTheTimeLeftAndAreReported) {
  Planned planned{"{time: 5m, min: 2m, max: 10m}",
                  dnsmasq_line(0, kNow + 4294967294LL) + dnsmasq_line(1, kNow + 30) + dnsmasq_line(2, kNow + 400) +
                      dnsmasq_line(3, 0)};  // 136 years, 30 s, within, infinite
  const ImportPlan& plan = planned.plan;
  ASSERT_EQ(plan.records.size(), 4U) << describe(plan, 5) << problems(plan, "f", 20);
  EXPECT_EQ(plan.records[0].lease_time, 10min);
  EXPECT_EQ(plan.records[1].lease_time, 2min);
  EXPECT_EQ(plan.records[2].lease_time, 400s);
  EXPECT_EQ(plan.records[3].lease_time, 10min);
  ASSERT_EQ(plan.cut_to_max.count, 1U);
  EXPECT_EQ(plan.cut_to_max.examples[0].line, 1);
  EXPECT_EQ(plan.raised_to_min.count, 1U);
  EXPECT_EQ(plan.infinite.count, 1U);
  const std::string report = describe(plan, 5);
  EXPECT_NE(report.find("lease time cut to lease.max: 1\n  line 1: "), std::string::npos) << report;
  EXPECT_NE(report.find("had 49710d6h28m14s left, given 10m"), std::string::npos) << report;
  EXPECT_NE(report.find("lease time raised to lease.min: 1"), std::string::npos) << report;
}

TEST(ImportedTimes, WithoutMaxOrMinTheTimeLeftIsKept) {
  Planned planned{"{time: 10m}", dnsmasq_line(0, kNow + 86400) + dnsmasq_line(1, kNow + 30) + dnsmasq_line(2, 0)};
  ASSERT_EQ(planned.plan.records.size(), 3U);
  EXPECT_EQ(planned.plan.records[0].lease_time, 24h);
  EXPECT_EQ(planned.plan.records[1].lease_time, 30s);
  EXPECT_EQ(planned.plan.records[2].lease_time, 10min);  // infinite: lease.time
}

TEST(ImportedTimes, ATimeNoLeaseCanHaveIsRefusedWithItsLine) {
  Planned planned{"{time: 10m}", dnsmasq_line(0, kNow + 4294967295LL) + dnsmasq_line(1, kNow + 60)};
  const ImportPlan& plan = planned.plan;
  ASSERT_EQ(plan.records.size(), 1U);
  ASSERT_EQ(plan.refused.count, 1U);
  EXPECT_EQ(plan.refused.examples[0].line, 1);
  EXPECT_NE(plan.refused.examples[0].reason.find("longer than any DHCP lease"), std::string::npos);
  EXPECT_EQ(problems(plan, "dnsmasq.leases", 20).rfind("dnsmasq.leases:1: ends in 49710d6h28m15s: longer", 0), 0U)
      << problems(plan, "dnsmasq.leases", 20);
}

TEST(ImportPlanner, UnusableHostnamesAreLeftOutNotTheLease) {
  const std::string long_name(300, 'a');
  Planned planned{"{time: 10m}", std::to_string(kNow + 60) + " 02:00:00:00:00:10 198.18.0.100 " + long_name + " *\n"};
  ASSERT_EQ(planned.plan.records.size(), 1U);
  EXPECT_TRUE(planned.plan.records[0].hostname.empty());
  EXPECT_EQ(planned.plan.hostname_dropped.count, 1U);
}

TEST(ImportPlanner, ProblemsAreListedByLineAndCutShort) {
  std::string file;
  for (int i = 0; i < 30; ++i) file += "bad line\n";
  for (int i = 0; i < 30; ++i) file += std::to_string(kNow + 60) + " 02:00:00:00:01:" + std::to_string(10 + i) + " 198.18.1." + std::to_string(i) + " * *\n";
  Planned planned{"{time: 10m}", file};
  EXPECT_EQ(planned.plan.failures.count, 30U);
  EXPECT_EQ(planned.plan.outside.count, 30U);
  EXPECT_EQ(planned.plan.live, 30U);
  const std::string listed = problems(planned.plan, "f", 20);
  EXPECT_EQ(listed.rfind("f:1: expected EXPIRY MAC ADDRESS HOSTNAME [CLIENT-ID]\nf:2: ", 0), 0U) << listed;
  EXPECT_NE(listed.find("f:20: "), std::string::npos);
  EXPECT_EQ(listed.find("f:21: "), std::string::npos);
  EXPECT_NE(listed.find("f: ... and 40 more (counted in the report)\n"), std::string::npos) << listed;
}

TEST(ImportPlanner, AddressesOutsideThePoolsAreRememberedOnlyUpToALimit) {
  std::string file;
  const std::size_t lines = kOutsideAddressesTracked + 100;
  for (std::size_t i = 0; i < lines; ++i) {
    const auto n = static_cast<std::uint32_t>(i);
    file += std::to_string(kNow + 60) + " 02:00:00:00:00:01 10." + std::to_string(n >> 16) + "." +
            std::to_string((n >> 8) & 255) + "." + std::to_string(n & 255) + " * *\n";
  }
  Planned planned{"{time: 10m}", file};
  EXPECT_EQ(planned.plan.outside.count, lines);
  EXPECT_EQ(planned.plan.live, lines);
  EXPECT_EQ(planned.plan.leases_read, lines);
}

}  // namespace
}  // namespace landlord::migrate
