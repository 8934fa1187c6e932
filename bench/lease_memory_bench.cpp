// Issue #6's memory budget: bytes per lease with 1 M bound leases in memory (target ≤ 150;
// Kea ~600). Realistic clients: option 61 = 01 + MAC, chaddr = that MAC, a hostname on one
// client in three, one-hour leases granted over the last hour.
//   BM_LeaseTableMemory   LeaseTable::put() of every lease
//   BM_EngineMemory       Engine::restore() of every lease (table + allocator, a /8 pool)
// Counters: rss_B_per_lease is the growth of the resident set (/proc/self/statm) over the
// fill, divided by the lease count; capacity_B_per_lease (table only) is LeaseTable's own
// count of the memory its vectors and indexes reserve.
// Each fill runs in a child process of its own: glibc raises its mmap threshold as large blocks
// are freed, so a fill after another one keeps its outgrown vectors on the heap and measures
// the previous fill's history, not the table.
//   build/memory-release/bench/lease_memory_bench
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease_table.hpp"

namespace {

using namespace landlord;

constexpr std::uint32_t kLeaseCount = 1'000'000;
constexpr std::uint32_t kFirstAddress = 0x0A000100u;  // 10.0.1.0

std::int64_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  long size_pages = 0, resident_pages = 0;
  const int read = std::fscanf(statm, "%ld %ld", &size_pages, &resident_pages);
  std::fclose(statm);
  return read == 2 ? static_cast<std::int64_t>(resident_pages) * sysconf(_SC_PAGESIZE) : 0;
}

lease::Lease realistic_lease(std::uint32_t index) {
  const std::array<std::uint8_t, 6> mac{0x02,
                                        0x00,
                                        static_cast<std::uint8_t>(index >> 24),
                                        static_cast<std::uint8_t>(index >> 16),
                                        static_cast<std::uint8_t>(index >> 8),
                                        static_cast<std::uint8_t>(index)};
  const std::array<std::uint8_t, 7> id{0x01, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]};
  lease::Lease lease;
  lease.address = Ipv4{kFirstAddress + index};
  lease.hardware = HardwareAddress(HardwareAddress::kEthernet, mac);
  lease.client_id = ClientId(id);
  lease.client = ClientKey::from(lease.client_id, lease.hardware);
  if (index % 3 == 0) lease.hostname = "host-" + std::to_string(index);
  lease.state = lease::LeaseState::Bound;
  lease.subnet_id = 1;
  // Granted over the last hour, at millisecond resolution like the engine's clock.
  lease.granted_at = time_from_unix_ms(1'800'000'000'000 + index * 3'601LL);
  lease.lease_time = std::chrono::hours{1};
  lease.renew_time = std::chrono::minutes{30};
  lease.rebind_time = std::chrono::seconds{3150};
  lease.fencing_token = 1 + index % 5;
  return lease;
}

struct Measured {
  std::int64_t rss_growth = 0;
  std::int64_t capacity_bytes = 0;  // 0: not counted
  bool complete = false;            // every lease made it into the table
};

// Runs `fill` in a child process and returns what it measured.
template <typename Fill>
Measured in_child(Fill fill) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    const Measured measured = fill();
    const bool written = write(pipe_fds[1], &measured, sizeof measured) == sizeof measured;
    _exit(written ? 0 : 1);
  }
  close(pipe_fds[1]);
  Measured measured;
  if (child < 0 || read(pipe_fds[0], &measured, sizeof measured) != sizeof measured) measured = {};
  close(pipe_fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return measured;
}

void report(benchmark::State& state, const Measured& measured) {
  if (!measured.complete) state.SkipWithError("the fill failed or lost leases");
  state.counters["leases"] = kLeaseCount;
  state.counters["rss_B_per_lease"] = static_cast<double>(measured.rss_growth) / kLeaseCount;
  if (measured.capacity_bytes != 0) {
    state.counters["capacity_B_per_lease"] =
        static_cast<double>(measured.capacity_bytes) / kLeaseCount;
  }
}

void BM_LeaseTableMemory(benchmark::State& state) {
  for (auto _ : state) {
    report(state, in_child([] {
             const std::int64_t before = resident_bytes();
             auto table = std::make_unique<lease::LeaseTable>();
             for (std::uint32_t i = 0; i < kLeaseCount; ++i) table->put(realistic_lease(i));
             return Measured{resident_bytes() - before,
                             static_cast<std::int64_t>(table->memory_bytes()),
                             table->size() == kLeaseCount};
           }));
  }
}

config::Config slash8_config() {
  config::Config config;
  config::Subnet subnet;
  subnet.id = 1;
  subnet.subnet = Cidr{Ipv4{10, 0, 0, 0}, 8};
  subnet.pools = {{Ipv4{10, 0, 1, 0}, Ipv4{10, 255, 255, 254}}};
  subnet.lease = config.lease;
  config.subnets = {subnet};
  return config;
}

void BM_EngineMemory(benchmark::State& state) {
  const config::Config config = slash8_config();
  for (auto _ : state) {
    report(state, in_child([&] {
             const std::int64_t before = resident_bytes();
             auto engine = std::make_unique<engine::Engine>(config);
             for (std::uint32_t i = 0; i < kLeaseCount; ++i) engine->restore(realistic_lease(i));
             const std::int64_t growth = resident_bytes() - before;
             std::size_t count = 0;
             engine->for_each_lease([&](const lease::Lease&) { ++count; });
             return Measured{growth, 0, count == kLeaseCount};
           }));
  }
}

// One iteration each: a fill is the measurement (the time shown is the parent's, not the fill's).
BENCHMARK(BM_LeaseTableMemory)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineMemory)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
