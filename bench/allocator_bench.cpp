// Allocation from a /8 pool (2^24 addresses), empty and 99.9 % full. The free set's summary
// levels should make the two cost about the same: no scan grows with occupancy.
//   BM_AllocateFromEmptySlash8     pick + take in a fresh pool (reset every 2^20 allocations)
//   BM_AllocateFromNearlyFullSlash8  pick + take with 0.1 % of addresses free, scattered at random
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "landlord/lease/allocator.hpp"

namespace {

using landlord::Ipv4;
using landlord::lease::Allocator;
using landlord::lease::Availability;

constexpr std::uint32_t kSubnet = 1;
const Ipv4 kFirst{10, 0, 0, 0};
const Ipv4 kLast{10, 255, 255, 255};
constexpr std::uint32_t kPoolSize = 1u << 24;
const Availability kClean{};
const Availability kTaken{Availability::Kind::Taken, {}};

void BM_AllocateFromEmptySlash8(benchmark::State& state) {
  Allocator allocator;
  allocator.add_pool(kSubnet, kFirst, kLast);
  std::vector<Ipv4> taken;
  taken.reserve(1u << 20);
  for (auto _ : state) {
    const auto address = allocator.pick(kSubnet);
    allocator.move(*address, kClean, kTaken);
    taken.push_back(*address);
    if (taken.size() == taken.capacity()) {  // stay "empty": under 6.25 % used
      state.PauseTiming();
      for (const Ipv4 used : taken) allocator.move(used, kTaken, kClean);
      taken.clear();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_AllocateFromNearlyFullSlash8(benchmark::State& state) {
  constexpr std::uint32_t kFree = kPoolSize / 1000;  // 99.9 % full
  Allocator allocator;
  allocator.add_pool(kSubnet, kFirst, kLast);
  for (std::uint32_t offset = 0; offset < kPoolSize; ++offset) {
    allocator.move(Ipv4{kFirst.to_uint() + offset}, kClean, kTaken);
  }
  std::mt19937 random(42);
  const auto free_random_addresses = [&] {
    for (std::uint32_t i = 0; i < kFree; ++i) {
      const auto offset = static_cast<std::uint32_t>(random() % kPoolSize);
      allocator.move(Ipv4{kFirst.to_uint() + offset}, kTaken, kClean);
    }
  };
  free_random_addresses();
  for (auto _ : state) {
    auto address = allocator.pick(kSubnet);
    if (!address) {  // all handed out: scatter another 0.1 % of free addresses
      state.PauseTiming();
      free_random_addresses();
      state.ResumeTiming();
      address = allocator.pick(kSubnet);
    }
    allocator.move(*address, kClean, kTaken);
    benchmark::DoNotOptimize(address);
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_AllocateFromEmptySlash8);
BENCHMARK(BM_AllocateFromNearlyFullSlash8);

}  // namespace

// Not a speed figure: the lease table's bytes per lease at one million bound leases (capacity
// of the record slab and the three indexes; issue #6 budgets 150 bytes of RSS per lease).
#include "landlord/lease/lease_table.hpp"

namespace {

void BM_LeaseTableBytesPerLeaseAtOneMillion(benchmark::State& state) {
  constexpr std::uint32_t kLeases = 1'000'000;
  for (auto _ : state) {
    landlord::lease::LeaseTable table;
    for (std::uint32_t i = 0; i < kLeases; ++i) {
      landlord::lease::Lease lease;
      lease.address = Ipv4{kFirst.to_uint() + i};
      const std::uint8_t mac[6] = {2,
                                   0,
                                   static_cast<std::uint8_t>(i >> 24),
                                   static_cast<std::uint8_t>(i >> 16),
                                   static_cast<std::uint8_t>(i >> 8),
                                   static_cast<std::uint8_t>(i)};
      lease.hardware = landlord::HardwareAddress(1, mac);
      lease.client = landlord::ClientKey::from({}, lease.hardware);
      lease.state = landlord::lease::LeaseState::Bound;
      lease.granted_at = landlord::time_from_unix_ms(i);
      lease.lease_time = std::chrono::hours{1};
      table.put(std::move(lease));
    }
    state.counters["bytes_per_lease"] =
        static_cast<double>(table.memory_bytes()) / static_cast<double>(kLeases);
    state.counters["record_bytes"] =
        static_cast<double>(landlord::lease::LeaseTable::record_bytes());
  }
}

BENCHMARK(BM_LeaseTableBytesPerLeaseAtOneMillion)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
