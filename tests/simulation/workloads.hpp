#pragma once
// The runs the tests use, named so a developer can reuse them: the clean and lossy ones, and the
// options one sweep seed stands for (every choice drawn from the seed itself).
#include "simulator.hpp"

namespace landlord::simulation {

// A fleet with every kind of client life: staying, releasing, vanishing, declining, restarting.
inline sim::Workload mixed_fleet(std::size_t clients, Duration duration) {
  sim::Workload workload;
  workload.clients = clients;
  workload.arrival_rate_per_s = 10;
  workload.duration = duration;
  workload.release_fraction = 0.1;
  workload.vanish_fraction = 0.1;
  workload.decline_fraction = 0.05;
  workload.restart_fraction = 0.1;
  return workload;
}

inline LinkFaults lossy_link() {
  LinkFaults faults;
  faults.drop = 0.05;
  faults.duplicate = 0.03;
  faults.delay_min = Duration{1};
  faults.delay_max = Duration{400};  // reorders; below the 3 s shortest retransmission
  return faults;
}

// One seed, one run: fleet size, lease time, offer hold, authority, pool (sometimes smaller
// than the fleet, so expired addresses change hands), faults, store failures, crash rate and a
// rival server's grants all drawn from the seed.
inline SimulationOptions sweep_options(std::uint64_t seed) {
  sim::Random pick(sim::derive_seed(seed, 0x5eed));
  SimulationOptions options;
  options.seed = seed;
  const auto clients = static_cast<std::size_t>(pick.between(50, 160));
  options.workload = mixed_fleet(clients, std::chrono::minutes(pick.between(30, 60)));
  options.workload.arrival_rate_per_s = 1.0 + pick.unit() * 9.0;
  options.workload.release_fraction = pick.unit() * 0.3;
  options.workload.vanish_fraction = pick.unit() * 0.3;
  options.workload.decline_fraction = pick.unit() * 0.1;
  options.workload.restart_fraction = pick.unit() * 0.3;
  options.workload.send_client_id = pick.chance(0.8);
  if (pick.chance(0.1)) {  // a storm: most clients restart, many decline
    options.workload.restart_fraction = 0.8;
    options.workload.decline_fraction = 0.4;
  }
  if (pick.chance(0.5)) {
    options.workload.block_unicast = sim::Window{std::chrono::minutes(pick.between(5, 20)),
                                                 std::chrono::minutes(pick.between(5, 20))};
  }
  const Duration lease_times[] = {std::chrono::minutes(1), std::chrono::minutes(2),
                                  std::chrono::minutes(5), std::chrono::minutes(10)};
  options.lease_time = lease_times[pick.between(0, 3)];
  options.offer_hold = pick.chance(0.3) ? std::chrono::seconds(2) : std::chrono::seconds(30);
  options.authoritative = pick.chance(0.8);
  const auto pool_size =
      static_cast<std::uint32_t>(static_cast<double>(clients) * (0.6 + pick.unit() * 0.8));
  options.pool = {Ipv4{198, 18, 0, 10}, Ipv4{Ipv4{198, 18, 0, 10}.to_uint() + pool_size - 1}};
  const auto link = [&] {
    LinkFaults faults;
    faults.drop = pick.unit() * (pick.chance(0.2) ? 0.3 : 0.1);
    faults.duplicate = pick.unit() * 0.05;
    faults.delay_max = Duration{pick.between(1, 500)};
    return faults;
  };
  options.to_server = link();
  options.to_clients = link();
  options.commit_delay_max = Duration{pick.between(1, 100)};
  options.crashes_per_hour = pick.chance(0.7) ? pick.unit() * 12.0 : 0.0;
  options.store_failure = pick.chance(0.3) ? pick.unit() * 0.05 : 0.0;
  // Drawn last, so the draws above (and the runs of seeds without a rival) stay as they were.
  if (pick.chance(0.3)) {
    options.rival_grants_per_hour = pick.unit() * 600.0;
    options.rival_feed_lag_max = Duration{pick.between(0, 60'000)};
  }
  return options;
}

}  // namespace landlord::simulation
