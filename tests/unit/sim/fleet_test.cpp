// A whole fleet against a scripted responder in virtual time: minutes of lease churn run in
// milliseconds, and the lifecycle shows in the counts (renewals at T1 = 0.5 of the lease,
// rebinds at T2 = 0.875 when renewals go unanswered).
#include "landlord/sim/fleet.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "landlord/sim/report.hpp"
#include "scripted_server.hpp"
#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;

Workload lab_workload() {
  Workload workload;
  workload.clients = 200;
  workload.arrival_rate_per_s = 50;
  workload.duration = 600s;
  workload.seed = 11;
  workload.timing = Timing::with_retransmit_base(1s, 5s);
  return workload;
}

std::string violations_of(const Fleet& fleet) {
  std::string text;
  for (const Violation& v : fleet.auditor().violations()) text += v.detail + "\n";
  return text;
}

TEST(Fleet, RenewsAtHalfTheLease) {
  ScriptedServer server({.lease_s = 60});
  Fleet fleet(lab_workload(), test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  Stats stats = fleet.stats();
  EXPECT_EQ(stats.clients_started, 200u);
  EXPECT_EQ(stats.leases, 200u);
  // Each client renews about every 30 s for the ~596 s it lives: ~19 renewals each.
  EXPECT_GT(stats.renewals, 200u * 18);
  EXPECT_EQ(stats.rebinds, 0u);
  EXPECT_EQ(stats.expirations, 0u);
  const Distribution renew = stats.renew_fraction.summary();
  EXPECT_NEAR(renew.p50, 0.5, 0.01);
  EXPECT_NEAR(renew.p99, 0.5, 0.01);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u) << violations_of(fleet);
  EXPECT_EQ(fleet.state_counts()[static_cast<std::size_t>(ClientState::Bound)] +
                fleet.state_counts()[static_cast<std::size_t>(ClientState::Renewing)],
            200u);
}

TEST(Fleet, ReportCarriesTheCounts) {
  ScriptedServer server({.lease_s = 60});
  Workload workload = lab_workload();
  workload.block_unicast = Window{100s, 50s};
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  const Stats& stats = fleet.stats();
  const std::string json = report_json(fleet, RunInfo{"in-process", "scripted", 11, 1.5, 0.5});
  EXPECT_NE(json.find(fmt::format(R"("renewals": {{"count": {}, "started": {})", stats.renewals,
                                  stats.renew_started)),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(fmt::format(R"("rebinds": {{"count": {})", stats.rebinds)),
            std::string::npos);
  EXPECT_NE(json.find(R"("block_unicast": {"from_s": 100.0, "length_s": 50.0})"),
            std::string::npos);
  EXPECT_NE(json.find(R"("violation_count": 0)"), std::string::npos);
  EXPECT_NE(json.find(R"("violations": [])"), std::string::npos);
  const std::string text =
      report_text(fleet, RunInfo{"relay", "renew and rebind both relayed", 11, 1, 1});
  EXPECT_NE(text.find("transport: relay — renew and rebind both relayed"), std::string::npos)
      << text;
  // Replies lost in our own receive queue: null when the transport cannot tell, else counted.
  EXPECT_NE(json.find(R"("receive_drops": null)"), std::string::npos) << json;
  EXPECT_EQ(text.find("lost in our full receive queue"), std::string::npos) << text;
  const RunInfo l2{"l2", "frames", 11, 1, 1, nullptr, 37};
  EXPECT_NE(report_json(fleet, l2).find(R"("receive_drops": 37)"), std::string::npos);
  EXPECT_NE(report_text(fleet, l2).find("lost in our full receive queue 37"), std::string::npos);
}

TEST(Fleet, DefaultTimersWhenTheServerSendsNone) {
  ScriptedServer server({.lease_s = 80, .send_timers = false});
  Fleet fleet(lab_workload(), test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  Stats stats = fleet.stats();
  EXPECT_NEAR(stats.renew_fraction.percentile(0.5), 0.5, 0.01);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u) << violations_of(fleet);
}

TEST(Fleet, BlockedRenewalsRebindAtSevenEighths) {
  ScriptedServer server({.lease_s = 60});
  Workload workload = lab_workload();
  workload.block_unicast = Window{0s, 600s};
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  Stats stats = fleet.stats();
  EXPECT_EQ(stats.renewals, 0u);
  EXPECT_GT(stats.unicast_blocked, 0u);
  EXPECT_GT(stats.rebinds, 200u * 10);  // one every 52.5 s
  EXPECT_EQ(stats.expirations, 0u);
  const Distribution rebind = stats.rebind_fraction.summary();
  EXPECT_NEAR(rebind.p50, 0.875, 0.01);
  EXPECT_NEAR(rebind.p99, 0.875, 0.01);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u) << violations_of(fleet);
}

TEST(Fleet, BlockWindowOnlyAffectsRenewalsInside) {
  ScriptedServer server({.lease_s = 60});
  Workload workload = lab_workload();
  workload.block_unicast = Window{200s, 100s};
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  const Stats& stats = fleet.stats();
  EXPECT_GT(stats.renewals, 200u * 10);
  EXPECT_GT(stats.rebinds, 0u);
  EXPECT_LT(stats.rebinds, 200u * 4);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u) << violations_of(fleet);
}

TEST(Fleet, ChurnReleasesDeclinesRestartsAndLosses) {
  ScriptedServer server({.lease_s = 60});
  Workload workload = lab_workload();
  workload.release_fraction = 0.3;
  workload.vanish_fraction = 0.3;
  workload.decline_fraction = 0.2;
  workload.restart_fraction = 0.2;
  workload.drop_replies = 0.05;
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  const Stats& stats = fleet.stats();
  EXPECT_NEAR(static_cast<double>(stats.releases), 60, 20);
  EXPECT_NEAR(static_cast<double>(stats.vanished), 60, 20);
  EXPECT_NEAR(static_cast<double>(stats.declines), 40, 15);
  EXPECT_GT(stats.reboots, 15u);
  EXPECT_GT(stats.replies_dropped, 0u);
  EXPECT_GT(stats.retransmissions, 0u);
  // Declined clients came back after 10 s and got another address: all leased eventually.
  EXPECT_GE(stats.leases, 200u + stats.declines);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u) << violations_of(fleet);
  EXPECT_EQ(fleet.state_counts()[static_cast<std::size_t>(ClientState::Stopped)],
            stats.releases + stats.vanished);
}

TEST(Fleet, SameSeedReplaysExactly) {
  const auto run = [] {
    ScriptedServer server({.lease_s = 60});
    Workload workload = lab_workload();
    workload.release_fraction = 0.2;
    workload.drop_replies = 0.1;
    Fleet fleet(workload, test::kEpoch);
    test::run_virtual(fleet, server, test::kEpoch);
    return std::tuple{fleet.stats().packets_sent, fleet.stats().renewals,
                      fleet.stats().retransmissions, fleet.stats().releases};
  };
  EXPECT_EQ(run(), run());
}

TEST(Fleet, AuditorCatchesADuplicatingServer) {
  ScriptedServer server({.lease_s = 60, .same_address_for_all = true});
  Workload workload = lab_workload();
  workload.clients = 5;
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  EXPECT_GE(fleet.auditor().violation_count(), 4u);
  EXPECT_EQ(fleet.auditor().violations().front().kind, Violation::Kind::DuplicateAddress);
  const std::string json = report_json(fleet, RunInfo{"in-process", "test", 11, 0, 0});
  EXPECT_NE(json.find("\"kind\": \"duplicate-address\""), std::string::npos) << json;
}

TEST(Fleet, MacsNameTheirClients) {
  Workload workload = lab_workload();
  ScriptedServer server({});
  Fleet fleet(workload, test::kEpoch);
  fleet.advance(test::kEpoch + 1s, server);  // 51 arrivals
  ASSERT_EQ(fleet.client_count(), 51u);
  EXPECT_EQ(fleet.client_of(client_mac(workload.seed, 50)), 50u);
  EXPECT_EQ(fleet.client_of(client_mac(workload.seed, 51)), std::nullopt) << "not arrived yet";
  EXPECT_EQ(fleet.client_of(client_mac(workload.seed + 1, 3)), std::nullopt) << "another run's";
}

}  // namespace
}  // namespace landlord::sim
