// The top of the test pyramid: whole runs of the real engine against the real simulated fleet.
// Each run must end with no auditor violation and no server-side finding; the counters show
// that the run actually exercised what it claims to. A failing run prints its seed and the
// command that replays it (docs/testing.md).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "simulator.hpp"
#include "workloads.hpp"

namespace landlord::simulation {
namespace {

constexpr fmt::string_view kReplay =
    "LANDLORD_SIM_SEED={} ./simulation_test --gtest_filter=Simulation.SeedSweep";

// Every run reports its speed: virtual hours per wall second (docs/testing.md quotes them).
void print(const SimulationReport& report) { std::printf("%s\n", report.summary().c_str()); }

double median(const sim::Histogram& samples) { return samples.percentile(0.5); }

TEST(Simulation, CleanRunThousandClientsThreeHours) {
  SimulationOptions options;
  options.seed = 1;
  options.workload = mixed_fleet(1000, std::chrono::hours(3));
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();

  // Every stage of a lease's life happened, on both sides.
  const engine::Counters& engine = report.engine;
  EXPECT_EQ(report.fleet.clients_started, 1000u);
  EXPECT_GT(engine.discovers, 0u);
  EXPECT_GT(engine.offers, 0u);
  EXPECT_GT(engine.grants, 0u);
  EXPECT_GT(engine.renewals, 0u);
  EXPECT_GT(engine.declines, 0u);
  EXPECT_GT(engine.releases, 0u);
  EXPECT_GT(engine.expirations, 0u);
  EXPECT_GT(report.fleet.reboots, 0u);
  EXPECT_GT(report.fleet.vanished, 0u);
  // A network that loses nothing leaves no client needing to rebind or retry, and a server
  // with room for everyone refuses no one.
  EXPECT_EQ(engine.rebinds, 0u);
  EXPECT_EQ(report.fleet.rebinds, 0u);
  EXPECT_EQ(engine.naks, 0u);
  EXPECT_EQ(engine.pool_exhausted, 0u);
  EXPECT_EQ(report.fleet.gave_up, 0u);
  EXPECT_EQ(report.fleet.retransmissions, 0u);
  // Renewals cluster at T1 = 0.5 of the lease.
  ASSERT_FALSE(report.fleet.renew_fraction.count() == 0);
  EXPECT_NEAR(median(report.fleet.renew_fraction), 0.5, 0.01);
  EXPECT_GT(report.agreement_checks, 100u);
}

TEST(Simulation, LossyNetworkWithUnicastBlockedForcesRebinds) {
  SimulationOptions options;
  options.seed = 2;
  options.workload = mixed_fleet(400, std::chrono::hours(2));
  // RENEWING requests are lost for 30 minutes: clients reach T2 and rebind by broadcast.
  options.workload.block_unicast = sim::Window{std::chrono::minutes(40), std::chrono::minutes(30)};
  options.to_server = lossy_link();
  options.to_clients = lossy_link();
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();

  EXPECT_GT(report.to_server.dropped, 0u);
  EXPECT_GT(report.to_server.duplicated, 0u);
  EXPECT_GT(report.to_clients.dropped, 0u);
  EXPECT_GT(report.to_clients.duplicated, 0u);
  EXPECT_GT(report.fleet.retransmissions, 0u);
  EXPECT_GT(report.fleet.unicast_blocked, 0u);
  EXPECT_GT(report.engine.rebinds, 0u);
  ASSERT_FALSE(report.fleet.rebind_fraction.count() == 0);
  ASSERT_FALSE(report.fleet.renew_fraction.count() == 0);
  EXPECT_NEAR(median(report.fleet.renew_fraction), 0.5, 0.01);
  EXPECT_NEAR(median(report.fleet.rebind_fraction), 0.875, 0.01);
}

TEST(Simulation, CrashRestartsAndStoreFailuresLoseNothingAcknowledged) {
  SimulationOptions options;
  options.seed = 3;
  options.workload = mixed_fleet(400, std::chrono::hours(2));
  options.to_server = lossy_link();
  options.to_clients = lossy_link();
  options.commit_delay_max = Duration{200};  // wide windows for a crash to fall into
  options.crashes_per_hour = 12;
  options.store_failure = 0.02;  // and now and then a transaction fails: retried, never acked
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GE(report.crashes, 10u);
  EXPECT_GT(report.failed_commits, 0u);
  EXPECT_GT(report.lost_to_crashes, 0u);  // replies died with their uncommitted records
  EXPECT_GT(report.lost_while_down, 0u);
  EXPECT_GT(report.engine.renewals, 0u);
  EXPECT_GT(report.engine.expirations, 0u);
}

// Stale fencing tokens, injected: a rival server on the same store grants addresses this one
// has free or on offer, and this one hears of it up to 30 s later. Each of this server's
// grants that lost the race is refused by the store's token check and never acknowledged
// (a client told otherwise would fail `acked-lease-lost`: the store names the rival's client),
// and the engine takes the rival's lease from the feed and ends it on time (`store-overdue`,
// `not-drained`).
TEST(Simulation, RivalServersGrantsAreFencedNeverAcknowledged) {
  SimulationOptions options;
  options.seed = 5;
  options.workload = mixed_fleet(400, std::chrono::hours(1));
  options.to_server = lossy_link();
  options.lease_time = std::chrono::minutes(5);
  options.rival_grants_per_hour = 1200;  // one every 3 s
  options.rival_feed_lag_max = 30s;
  options.commit_delay_max = Duration{300};  // grants long on their way: the rival can win
  options.crashes_per_hour = 4;
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GE(report.rival_grants, 400u);
  EXPECT_GT(report.rival_fenced, 0u);        // this server's write came second: refused
  EXPECT_GT(report.engine.fenced, 0u);       // ... and the engine gave the grant up
  EXPECT_GT(report.engine.learned, 0u);      // the feed brought the rival's leases
  EXPECT_GT(report.rival_lost_races, 0u);    // and the other way round: ours came first
  EXPECT_GE(report.engine.grants, 400u);     // every client still got an address
}

// Issue #16: a full disk for two minutes while clients arrive and leave again without waiting
// for it. Their grants were never acknowledged; once the store takes writes again those grants
// must end as an offer would, so the clients who come after the outage all find an address.
// (Those arriving in its last half minute are still there when it ends: they are ACKed then.)
TEST(Simulation, GrantsNeverAcknowledgedDuringAStoreOutageDoNotExhaustThePool) {
  SimulationOptions options;
  options.seed = 16;
  options.workload.clients = 300;
  options.workload.arrival_rate_per_s = 1;  // client i arrives at i s
  options.workload.duration = std::chrono::minutes(6);
  options.workload.vanish_fraction = 1;  // everyone leaves 10-30 s after arriving
  options.workload.stay = 20s;
  options.lease_time = 10min;
  options.store_outage = sim::Window{10s, 120s};  // clients 10..129 arrive in it
  options.pool = {Ipv4{198, 18, 0, 10}, Ipv4{198, 18, 0, 249}};  // 240 addresses
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GT(report.failed_commits, 0u);
  // 10 clients before the outage and 170 after it: every one of them gets a lease.
  EXPECT_GE(report.fleet.leases, 180u) << report.summary();
  EXPECT_EQ(report.engine.pool_exhausted, 0u) << report.summary();
}

// Issue #16: bound clients renewing while the store refuses writes are answered from the lease
// the store holds: an ACK cut to what remains of it, never past it. `acked-lease-lost` holds
// every client's lease against the store at each audit, during the outage too; the auditor
// checks each ACK as a client would. The leases run out during the outage (2 min leases, a
// 3-minute outage), so the clients end up asking for new ones, unanswered until it ends.
TEST(Simulation, RenewalsDuringAStoreOutageAreAnsweredFromTheDurableLease) {
  SimulationOptions options;
  options.seed = 17;
  options.workload.clients = 100;
  options.workload.arrival_rate_per_s = 10;  // all bound in the first 10 s
  options.workload.duration = std::chrono::minutes(8);
  options.lease_time = 2min;
  options.store_outage = sim::Window{30s, 180s};  // T1 (60-70 s) and the leases' ends in it
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GT(report.failed_commits, 0u);
  // Each client renews at T1 and again at the shorter T1 of each answer, about log2(60) times.
  EXPECT_GE(report.answered_from_durable, 300u) << report.summary();
  EXPECT_EQ(report.engine.naks, 0u) << "silence, never a NAK";
  EXPECT_EQ(report.engine.pool_exhausted, 0u) << report.summary();
}

// Issue #16: clients restarting (INIT-REBOOT, asking for their remembered address) while the
// store refuses writes are answered from the lease the store holds, as renewals are: an ACK cut
// to what remains of it, never past it (the auditor and `acked-lease-lost` check each one),
// never a NAK. Every client restarts once, 15-60 s after it arrived: most in the outage.
TEST(Simulation, RebootsDuringAStoreOutageAreAnsweredFromTheDurableLease) {
  SimulationOptions options;
  options.seed = 19;
  options.workload.clients = 100;
  options.workload.arrival_rate_per_s = 10;  // all bound in the first 10 s
  options.workload.duration = std::chrono::minutes(8);
  options.workload.restart_fraction = 1;
  options.workload.stay = 60s;
  options.lease_time = 10min;
  options.store_outage = sim::Window{20s, 180s};
  const SimulationReport report = Simulator(options).run();
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GT(report.failed_commits, 0u);
  EXPECT_GE(report.fleet.reboots, 100u) << report.summary();
  EXPECT_GE(report.reboots_answered_from_durable, 60u) << report.summary();
  EXPECT_EQ(report.engine.naks, 0u) << "silence, never a NAK";
  EXPECT_EQ(report.engine.pool_exhausted, 0u) << report.summary();
}

TEST(Simulation, CrashRestartsOnSqliteStore) {
  // tmpfs when there is one: the point is the store's semantics across reopen, not fsync speed.
  const std::filesystem::path directory =
      std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  const std::filesystem::path file =
      directory / ("landlord-simulation-" + std::to_string(::getpid()) + ".db");
  SimulationOptions options;
  options.seed = 4;
  options.workload = mixed_fleet(150, std::chrono::hours(1));
  options.lease_time = std::chrono::minutes(5);
  options.to_server = lossy_link();
  options.to_clients = lossy_link();
  options.crashes_per_hour = 12;
  options.store = StoreKind::Sqlite;
  options.sqlite_path = file.string();
  const SimulationReport report = Simulator(options).run();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  print(report);
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_GE(report.crashes, 3u);
  EXPECT_GT(report.records_committed, 0u);
}

TEST(Simulation, VanishedClientsLeasesEndWithinLeaseTimeAndOnePass) {
  SimulationOptions options;
  options.seed = 5;
  options.workload = mixed_fleet(200, std::chrono::minutes(30));
  options.workload.release_fraction = 0;
  options.workload.decline_fraction = 0;
  options.workload.restart_fraction = 0;
  options.workload.vanish_fraction = 1.0;  // everyone goes silent, within 2.5 to 7.5 minutes
  options.workload.stay = std::chrono::minutes(5);
  const SimulationReport report = Simulator(options).run();
  print(report);
  // `store-overdue` held all along with a slack of one commit (no crashes here): every silent
  // client's lease was expired and written within lease time + one reclaim pass.
  EXPECT_TRUE(report.clean()) << report.summary();
  EXPECT_EQ(report.fleet.vanished, 200u);
  EXPECT_EQ(report.engine.grants, 200u);
  EXPECT_EQ(report.engine.expirations, 200u);  // one lease each, each ended by the server
}

TEST(Simulation, SeedSweep) {
  // LANDLORD_SIM_SEED=S replays one seed; LANDLORD_SIM_SEEDS=N (and LANDLORD_SIM_FIRST_SEED)
  // runs a longer sweep.
  // LANDLORD_SIM_TRACE=<address> prints what happened to one address along the way.
  const auto seeds = seeds_from_environment(20);
  ASSERT_TRUE(seeds.has_value()) << seeds.error();
  ASSERT_FALSE(seeds->empty());
  double virtual_hours = 0, wall_seconds = 0, expected_crashes = 0;
  std::size_t seeds_run = 0, crashes = 0, rival_grants = 0, rival_fenced = 0;
  for (const std::uint64_t seed : *seeds) {
    SimulationOptions options = sweep_options(seed);
    options.trace_address = trace_address_from_environment();
    const SimulationReport report = Simulator(options).run();
    ++seeds_run;
    const double hours =
        std::chrono::duration<double, std::ratio<3600>>(report.virtual_time).count();
    virtual_hours += hours;
    wall_seconds += report.wall_seconds;
    crashes += report.crashes;
    rival_grants += report.rival_grants;
    rival_fenced += report.rival_fenced;
    expected_crashes += options.crashes_per_hour * hours;
    if (!report.clean()) {
      ADD_FAILURE() << "seed=" << seed << " failed; replay with:\n  "
                    << fmt::format(fmt::runtime(kReplay), seed) << "\n"
                    << report.summary();
    } else if (seeds->size() == 1) {
      print(report);
    }
    // Each seed really ran its workload: the whole fleet arrived, the whole time passed, and
    // most clients were granted a lease (a pool may be smaller than the fleet, some vanish).
    EXPECT_EQ(report.fleet.clients_started, options.workload.clients) << "seed=" << seed;
    EXPECT_GE(report.virtual_time, options.workload.duration) << "seed=" << seed;
    EXPECT_GE(report.engine.grants, options.workload.clients / 2) << "seed=" << seed;
  }
  std::printf("%zu seeds: %.1f virtual hours in %.2f wall seconds (%.1f virtual h/s), "
              "%zu crashes (%.1f expected), %zu rival grants, %zu of ours fenced\n",
              seeds_run, virtual_hours, wall_seconds,
              wall_seconds > 0 ? virtual_hours / wall_seconds : 0.0, crashes, expected_crashes,
              rival_grants, rival_fenced);
  EXPECT_EQ(seeds_run, seeds->size());
  // Crash-restarts happened about as often as the seeds asked: at seeded random moments, and
  // none while down or after the fleet stopped, so about two thirds of crashes_per_hour times
  // the hours (55 of 85 over the default seeds); a sweep that expects many is held to a quarter.
  if (expected_crashes >= 40) {
    EXPECT_GE(static_cast<double>(crashes), expected_crashes / 4);
  }
}

// The sweep's seed list refuses what would quietly run nothing.
TEST(Simulation, SeedListFromTheEnvironment) {
  const auto with = [](const char* name, const char* value, auto check) {
    ::setenv(name, value, 1);
    check(seeds_from_environment(20));
    ::unsetenv(name);
  };
  ::unsetenv("LANDLORD_SIM_SEED");
  ::unsetenv("LANDLORD_SIM_SEEDS");
  ::unsetenv("LANDLORD_SIM_FIRST_SEED");
  ASSERT_TRUE(seeds_from_environment(20).has_value());
  EXPECT_EQ(seeds_from_environment(20)->size(), 20u);
  EXPECT_EQ(seeds_from_environment(20)->front(), 1u);
  with("LANDLORD_SIM_SEEDS", "0", [](const auto& seeds) { EXPECT_FALSE(seeds.has_value()); });
  with("LANDLORD_SIM_SEEDS", "many", [](const auto& seeds) { EXPECT_FALSE(seeds.has_value()); });
  with("LANDLORD_SIM_SEEDS", "5x", [](const auto& seeds) { EXPECT_FALSE(seeds.has_value()); });
  with("LANDLORD_SIM_SEED", "-1", [](const auto& seeds) { EXPECT_FALSE(seeds.has_value()); });
  with("LANDLORD_SIM_FIRST_SEED", "x", [](const auto& seeds) { EXPECT_FALSE(seeds.has_value()); });
  with("LANDLORD_SIM_SEEDS", "3", [](const auto& seeds) {
    ASSERT_TRUE(seeds.has_value());
    EXPECT_EQ(*seeds, (std::vector<std::uint64_t>{1, 2, 3}));
  });
  with("LANDLORD_SIM_SEED", "137", [](const auto& seeds) {
    ASSERT_TRUE(seeds.has_value());
    EXPECT_EQ(*seeds, (std::vector<std::uint64_t>{137}));
  });
}

}  // namespace
}  // namespace landlord::simulation
