// Lease store figures: durable commits per second at several batch sizes (each batch is one
// transaction, one fsync of the WAL), group commit through the CommitQueue, and start-up load
// time for a million leases. Plain main: the figures are a handful of timed loops, each bounded
// in count and time.
//
//   store_bench [--dir /tmp] [--seconds 3] [--load-count 1000000] [--only commit|queue|load]
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "landlord/store/commit_queue.hpp"
#include "landlord/store/sqlite_lease_store.hpp"

namespace {

using namespace landlord;
using Clock = std::chrono::steady_clock;

struct Settings {
  std::filesystem::path directory = "/tmp";
  double seconds = 3;  // per commit measurement, at most
  std::uint32_t load_count = 1'000'000;
  std::string only;  // "commit", "queue" or "load": run just that part
};

lease::Lease sample_lease(std::uint32_t index, lease::FencingToken token) {
  lease::Lease record;
  record.address = Ipv4{Ipv4{10, 0, 0, 0}.to_uint() + index};
  const auto byte = [&](int shift) { return static_cast<std::uint8_t>(index >> shift); };
  const std::uint8_t mac[] = {0x02, 0x00, byte(24), byte(16), byte(8), byte(0)};
  record.hardware = HardwareAddress{HardwareAddress::kEthernet, mac};
  record.client = ClientKey::from(record.client_id, record.hardware);
  record.hostname = "host-" + std::to_string(index);
  record.state = lease::LeaseState::Bound;
  record.subnet_id = 1;
  record.granted_at = time_from_unix_ms(1'790'000'000'000 + index);
  record.lease_time = std::chrono::hours{1};
  record.renew_time = std::chrono::minutes{30};
  record.rebind_time = std::chrono::minutes{52};
  record.fencing_token = token;
  return record;
}

// This process's CPU time: on a shared machine it says what the work costs when wall time
// also counts waiting for a core.
double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void fail(const store::StoreError& error) {
  std::fprintf(stderr, "store_bench: %s\n", error.message.c_str());
  std::exit(1);
}

// A fresh store file (and its -wal/-shm) for one measurement.
std::unique_ptr<store::SqliteLeaseStore> fresh_store(const std::filesystem::path& file) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  auto opened = store::SqliteLeaseStore::open({.path = file.string()});
  if (!opened) fail(opened.error());
  return std::move(*opened);
}

void bench_batches(const Settings& settings, std::size_t batch_size) {
  const auto file = settings.directory / "store_bench_commit.db";
  auto sqlite = fresh_store(file);
  constexpr std::uint32_t kAddresses = 1 << 20;  // commit loop bound: at most this many records
  std::vector<lease::Lease> batch;
  std::uint64_t records = 0, transactions = 0;
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  while (seconds_since(start) < settings.seconds && records + batch_size <= kAddresses) {
    batch.clear();
    for (std::size_t index = 0; index < batch_size; ++index) {
      batch.push_back(sample_lease(static_cast<std::uint32_t>(records + index), 1));
    }
    if (auto committed = sqlite->commit(batch); !committed) fail(committed.error());
    records += batch_size;
    ++transactions;
  }
  const double elapsed = seconds_since(start);
  const double cpu = cpu_seconds() - cpu_start;  // the checkpointer's thread included
  std::printf(
      "commit batch=%-4zu %9.0f leases/s  %7.0f transactions(fsyncs)/s  %7.3f ms/commit"
      "  CPU %6.1f us/lease  (%llu leases in %.2f s)\n",
      batch_size, records / elapsed, transactions / elapsed, 1e3 * elapsed / transactions,
      1e6 * cpu / static_cast<double>(records), static_cast<unsigned long long>(records), elapsed);
  sqlite.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}

// Single-record submissions from one producer as fast as the queue takes them: the batches
// come from load alone.
void bench_commit_queue(const Settings& settings) {
  const auto file = settings.directory / "store_bench_queue.db";
  auto sqlite = fresh_store(file);
  std::atomic<std::uint64_t> completed{0};
  std::uint64_t submitted = 0;
  const auto start = Clock::now();
  {
    store::CommitQueue queue(
        *sqlite,
        {.batch_max = 256, .batch_wait = std::chrono::milliseconds{2}, .capacity_records = 4096});
    constexpr std::uint64_t kMaxSubmissions = 1 << 20;
    while (seconds_since(start) < settings.seconds && submitted < kMaxSubmissions) {
      auto record = sample_lease(static_cast<std::uint32_t>(submitted), 1);
      if (queue.submit({std::move(record)}, [&](store::CommitQueue::Result result) {
            if (!result) fail(result.error());
            completed.fetch_add(1, std::memory_order_relaxed);
          })) {
        ++submitted;
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds{50});  // full: back off
      }
    }
    queue.shutdown();
    const double elapsed = seconds_since(start);
    const auto counters = queue.counters();
    std::printf(
        "commit queue (1-lease submissions, batch_max 256) %9.0f leases/s  %7.0f "
        "transactions(fsyncs)/s  mean batch %.1f  (%llu leases in %.2f s)\n",
        completed.load() / elapsed, counters.commits / elapsed,
        static_cast<double>(counters.records) / static_cast<double>(counters.commits),
        static_cast<unsigned long long>(completed.load()), elapsed);
  }
  sqlite.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}

void bench_load(const Settings& settings) {
  const auto file = settings.directory / "store_bench_load.db";
  {
    auto sqlite = fresh_store(file);
    const auto start = Clock::now();
    std::vector<lease::Lease> batch;
    for (std::uint32_t index = 0; index < settings.load_count; ++index) {
      batch.push_back(sample_lease(index, index));
      if (batch.size() == 10'000 || index + 1 == settings.load_count) {
        if (auto committed = sqlite->commit(batch); !committed) fail(committed.error());
        batch.clear();
      }
    }
    const double elapsed = seconds_since(start);
    std::printf("fill   %u leases in batches of 10000: %.2f s (%.0f leases/s)\n",
                settings.load_count, elapsed, settings.load_count / elapsed);
  }  // close: the WAL is checkpointed into the database file
  std::printf("file   %.1f MiB\n", std::filesystem::file_size(file) / (1024.0 * 1024.0));

  auto start = Clock::now();
  auto opened = store::SqliteLeaseStore::open({.path = file.string()});
  if (!opened) fail(opened.error());
  auto& sqlite = **opened;
  std::printf("open   %.3f s\n", seconds_since(start));

  std::uint64_t visited = 0;
  start = Clock::now();
  double cpu_start = cpu_seconds();
  if (auto loaded = sqlite.load([&](lease::Lease&&) { ++visited; }); !loaded) fail(loaded.error());
  double elapsed = seconds_since(start);
  std::printf("load   %llu leases streamed to a visitor: %.3f s wall, %.3f s CPU (%.0f leases/s)\n",
              static_cast<unsigned long long>(visited), elapsed, cpu_seconds() - cpu_start,
              visited / elapsed);

  std::vector<lease::Lease> records;
  records.reserve(settings.load_count);
  start = Clock::now();
  cpu_start = cpu_seconds();
  auto loaded = sqlite.load([&](lease::Lease&& record) { records.push_back(std::move(record)); });
  if (!loaded) fail(loaded.error());
  elapsed = seconds_since(start);
  std::printf(
      "load   %zu leases into a vector: %.3f s wall, %.3f s CPU (%.0f leases/s, %.0f "
      "ns/lease)\n",
      records.size(), elapsed, cpu_seconds() - cpu_start, records.size() / elapsed,
      1e9 * elapsed / records.size());
  opened->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}

std::string filesystem_type(const std::filesystem::path& directory) {
  struct statfs info {};
  if (::statfs(directory.c_str(), &info) != 0) return "unknown";
  switch (static_cast<unsigned long>(info.f_type)) {
    case 0xEF53: return "ext2/3/4";
    case 0x01021994: return "tmpfs (fsync is free: figures are not disk figures)";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794c7630: return "overlayfs";
    default: return "other";
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int index = 1; index + 1 < argc; index += 2) {
    const std::string_view option = argv[index];
    const char* value = argv[index + 1];
    if (option == "--dir") {
      settings.directory = value;
    } else if (option == "--seconds") {
      settings.seconds = std::atof(value);
    } else if (option == "--only") {
      settings.only = value;
    } else if (option == "--load-count") {
      settings.load_count = static_cast<std::uint32_t>(std::atol(value));
    } else {
      std::fprintf(stderr,
                   "usage: store_bench [--dir DIR] [--seconds S] [--load-count N]"
                   " [--only commit|queue|load]\n");
      return 2;
    }
  }
  {
    const auto probe_file = settings.directory / "store_bench_probe.db";
    auto probe = fresh_store(probe_file);
    const auto durability = probe->durability();
    if (!durability) fail(durability.error());
    std::printf("store_bench: journal_mode=%s synchronous=%d, files in %s (%s)\n",
                durability->journal_mode.c_str(), durability->synchronous,
                settings.directory.c_str(), filesystem_type(settings.directory).c_str());
    probe.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(probe_file.string() + suffix);
    }
  }
  const auto wanted = [&](std::string_view part) {
    return settings.only.empty() || settings.only == part;
  };
  if (wanted("commit")) {
    for (const std::size_t batch_size : {1, 8, 16, 256}) bench_batches(settings, batch_size);
  }
  if (wanted("queue")) bench_commit_queue(settings);
  if (wanted("load")) bench_load(settings);
  return 0;
}
