// The simulation harness on its own: the packet simulator does what its faults say, a run is a
// function of its seed, and the checks catch a server that breaks commit-then-ack.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lossy_network.hpp"
#include "simulator.hpp"
#include "workloads.hpp"

namespace landlord::simulation {
namespace {

const TimePoint kNow = time_from_unix_ms(1'800'000'000'000);

Datagram packet(std::uint8_t tag) {
  Datagram datagram;
  datagram.payload = {tag};
  return datagram;
}

std::vector<std::pair<TimePoint, std::uint8_t>> drain(LossyNetwork& network) {
  std::vector<std::pair<TimePoint, std::uint8_t>> delivered;
  while (const auto due = network.next_due())
    delivered.emplace_back(*due, network.take().payload[0]);
  return delivered;
}

TEST(LossyNetwork, PerfectLinkDeliversInOrderAfterItsDelay) {
  LossyNetwork network(1, LinkFaults{0, 0, Duration{5}, Duration{5}}, LinkFaults{});
  for (std::uint8_t tag = 0; tag < 10; ++tag) network.send(packet(tag), kNow);
  const auto delivered = drain(network);
  ASSERT_EQ(delivered.size(), 10u);
  for (std::uint8_t tag = 0; tag < 10; ++tag) {
    EXPECT_EQ(delivered[tag].first, kNow + Duration{5});
    EXPECT_EQ(delivered[tag].second, tag);  // equal delays keep send order
  }
}

TEST(LossyNetwork, DropsDuplicatesAndReordersAsConfigured) {
  LossyNetwork network(7, LinkFaults{0.2, 0.1, Duration{1}, Duration{300}}, LinkFaults{});
  constexpr int kPackets = 5000;
  for (int i = 0; i < kPackets; ++i) network.send(packet(static_cast<std::uint8_t>(i)), kNow);
  const auto delivered = drain(network);
  const NetworkCounters& counters = network.counters(Direction::ToServer);
  EXPECT_EQ(counters.sent, static_cast<std::uint64_t>(kPackets));
  EXPECT_EQ(delivered.size(), kPackets - counters.dropped + counters.duplicated);
  EXPECT_NEAR(static_cast<double>(counters.dropped) / kPackets, 0.2, 0.03);
  EXPECT_NEAR(static_cast<double>(counters.duplicated) / kPackets, 0.08, 0.03);  // of the kept
  EXPECT_TRUE(std::is_sorted(delivered.begin(), delivered.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; }));
  const bool reordered = std::any_of(delivered.begin() + 1, delivered.end(),
                                     [&](const auto& d) { return d.second < (&d - 1)->second; });
  EXPECT_TRUE(reordered);
  for (const auto& [due, tag] : delivered) {
    EXPECT_GE(due, kNow + Duration{1});
    EXPECT_LE(due, kNow + Duration{300});
  }
}

TEST(LossyNetwork, EachDirectionHasItsOwnFaults) {
  LossyNetwork network(3, LinkFaults{1.0, 0, Duration{1}, Duration{1}}, LinkFaults{});
  Datagram to_clients = packet(1);
  to_clients.direction = Direction::ToClients;
  network.send(packet(0), kNow);
  network.send(to_clients, kNow);
  const auto delivered = drain(network);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].second, 1);
  EXPECT_EQ(network.counters(Direction::ToServer).dropped, 1u);
}

SimulationOptions small_lossy_run(std::uint64_t seed) {
  SimulationOptions options;
  options.seed = seed;
  options.workload = mixed_fleet(80, std::chrono::minutes(30));
  options.lease_time = std::chrono::minutes(5);
  options.to_server = lossy_link();
  options.to_clients = lossy_link();
  options.crashes_per_hour = 10;
  return options;
}

TEST(Simulator, ARunIsAFunctionOfItsSeed) {
  const SimulationReport first = Simulator(small_lossy_run(11)).run();
  const SimulationReport again = Simulator(small_lossy_run(11)).run();
  const SimulationReport other = Simulator(small_lossy_run(12)).run();
  EXPECT_EQ(first.digest, again.digest);
  EXPECT_EQ(first.commits, again.commits);
  EXPECT_EQ(first.crashes, again.crashes);
  EXPECT_EQ(first.fleet.packets_sent, again.fleet.packets_sent);
  EXPECT_EQ(first.engine.grants, again.engine.grants);
  EXPECT_NE(first.digest, other.digest);
}

// The sweep draws every dimension its comment promises: over the default 20 seeds (what CI
// runs) each kind of run appears at least once, so a draw that collapsed to one value (a seed
// ignored, a chance of 0) would leave part of the server untested.
TEST(Simulator, SweepOptionsCoverEveryKindOfRun) {
  std::set<std::size_t> fleet_sizes;
  std::set<Duration::rep> lease_times;
  std::size_t storms = 0, blocked = 0, unblocked = 0, small_pools = 0, large_pools = 0,
              crashing = 0, steady = 0, failing_stores = 0, short_holds = 0, not_authoritative = 0,
              dropping = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const SimulationOptions options = sweep_options(seed);
    EXPECT_EQ(options.seed, seed);
    fleet_sizes.insert(options.workload.clients);
    lease_times.insert(options.lease_time.count());
    storms += options.workload.restart_fraction == 0.8 ? 1 : 0;
    (options.workload.block_unicast ? blocked : unblocked) += 1;
    const std::size_t pool_size = options.pool.last.to_uint() - options.pool.first.to_uint() + 1;
    (pool_size < options.workload.clients ? small_pools : large_pools) += 1;
    (options.crashes_per_hour > 0 ? crashing : steady) += 1;
    failing_stores += options.store_failure > 0 ? 1 : 0;
    short_holds += options.offer_hold == std::chrono::seconds(2) ? 1 : 0;
    not_authoritative += options.authoritative ? 0 : 1;
    dropping += options.to_server.drop > 0 && options.to_clients.drop > 0 ? 1 : 0;
  }
  EXPECT_GE(fleet_sizes.size(), 10u);
  EXPECT_EQ(lease_times.size(), 4u);  // 1, 2, 5 and 10 minutes
  EXPECT_GE(storms, 1u);
  EXPECT_GE(blocked, 1u);
  EXPECT_GE(unblocked, 1u);
  EXPECT_GE(small_pools, 1u);
  EXPECT_GE(large_pools, 1u);
  EXPECT_GE(crashing, 1u);
  EXPECT_GE(steady, 1u);
  EXPECT_GE(failing_stores, 1u);
  EXPECT_GE(short_holds, 1u);
  EXPECT_GE(not_authoritative, 1u);
  EXPECT_GE(dropping, 1u);
}

// A server that acknowledges before its records are durable loses leases in a crash. The
// harness must notice: this is the test that shows the durability checks can fail.
TEST(Simulator, CatchesAnAckSentBeforeItsCommit) {
  SimulationOptions options = small_lossy_run(5);
  options.to_server = LinkFaults{};
  options.to_clients = LinkFaults{};
  options.ack_before_commit = true;
  options.commit_delay_min = Duration{500};
  options.commit_delay_max = Duration{2000};
  options.crashes_per_hour = 30;
  const SimulationReport report = Simulator(options).run();
  EXPECT_GT(report.crashes, 0u);
  const bool lost = std::any_of(report.findings.begin(), report.findings.end(),
                                [](const Finding& f) { return f.rule == "acked-lease-lost"; });
  EXPECT_TRUE(lost) << report.summary();
}

// A grant the store refused because a rival server wrote the address first, acknowledged
// anyway: the client holds an address the store gives to the rival's client.
TEST(Simulator, CatchesAGrantAcknowledgedOverARivalsWrite) {
  SimulationOptions options = small_lossy_run(7);
  options.crashes_per_hour = 0;
  options.rival_grants_per_hour = 3000;
  options.ack_refused_grants = true;
  const SimulationReport report = Simulator(options).run();
  EXPECT_GT(report.rival_fenced, 0u) << report.summary();
  const bool lost = std::any_of(report.findings.begin(), report.findings.end(),
                                [](const Finding& f) { return f.rule == "acked-lease-lost"; });
  EXPECT_TRUE(lost) << report.summary();
}

// A server that expires leases late keeps addresses from the pool; the expiry checks see it.
TEST(Simulator, CatchesALateReclaimer) {
  SimulationOptions options = small_lossy_run(6);
  options.crashes_per_hour = 0;
  options.reclaim_late_by = std::chrono::minutes(2);
  const SimulationReport report = Simulator(options).run();
  const auto fired = [&](std::string_view rule) {
    return std::any_of(report.findings.begin(), report.findings.end(),
                       [&](const Finding& f) { return f.rule == rule; });
  };
  EXPECT_TRUE(fired("engine-overdue-bound")) << report.summary();
  EXPECT_TRUE(fired("store-overdue")) << report.summary();
}

TEST(Simulator, TheSameRunWithCommitThenAckIsClean) {
  SimulationOptions options = small_lossy_run(5);
  options.to_server = LinkFaults{};
  options.to_clients = LinkFaults{};
  options.commit_delay_min = Duration{500};
  options.commit_delay_max = Duration{2000};
  options.crashes_per_hour = 30;
  const SimulationReport report = Simulator(options).run();
  EXPECT_GT(report.crashes, 0u);
  EXPECT_TRUE(report.clean()) << report.summary();
}

}  // namespace
}  // namespace landlord::simulation
