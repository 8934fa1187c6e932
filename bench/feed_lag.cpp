// How long a landlord server takes to learn another's write through the PostgreSQL change feed
// (issue #14): one PostgresLeaseStore commits a lease every --gap-ms (as another server's
// ACK would), and a server::ViewSync, the daemon's own feed thread, polls every --interval-ms on
// a connection of its own and posts what it finds to an io_context. The lag of a write is from
// its commit returning (the other server could ACK) to its row reaching this server's loop.
// Then the same feed runs --idle-s seconds with no writes, for the database's cost of polling:
// the CPU time of the cluster's processes (/proc) per second, read by the caller around it.
//   feed_lag URL [--interval-ms 100] [--writes 400] [--gap-ms 23] [--idle-s 10]
// Prints: interval_ms writes lag_p50_ms lag_p99_ms lag_max_ms (one line, for bench/feed_lag.sh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "landlord/server/clock.hpp"
#include "landlord/server/view_sync.hpp"
#include "landlord/store/postgres_lease_store.hpp"

namespace {

using namespace landlord;
using Clock = std::chrono::steady_clock;

lease::Lease lease_number(std::uint32_t index) {
  lease::Lease record;
  record.address = Ipv4{Ipv4{198, 18, 0, 0}.to_uint() + index};
  const std::uint8_t mac[] = {0x02, 0x00, 0x00, static_cast<std::uint8_t>(index >> 16),
                              static_cast<std::uint8_t>(index >> 8), static_cast<std::uint8_t>(index)};
  record.hardware = HardwareAddress{HardwareAddress::kEthernet, mac};
  record.client = ClientKey::from(record.client_id, record.hardware);
  record.state = lease::LeaseState::Bound;
  record.subnet_id = 1;
  record.granted_at = time_from_unix_ms(1'790'000'000'000);
  record.lease_time = std::chrono::hours{1};
  record.renew_time = std::chrono::minutes{30};
  record.rebind_time = std::chrono::minutes{52};
  record.fencing_token = 1;
  return record;
}

long option(int argc, char** argv, const std::string& name, long fallback) {
  for (int index = 2; index + 1 < argc; ++index) {
    if (argv[index] == name) return std::atol(argv[index + 1]);
  }
  return fallback;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(fraction * values.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: feed_lag URL [--interval-ms N] [--writes N] [--gap-ms N] [--idle-s N]\n");
    return 2;
  }
  const std::string url = argv[1];
  const auto interval = std::chrono::milliseconds{option(argc, argv, "--interval-ms", 100)};
  const auto writes = static_cast<std::uint32_t>(option(argc, argv, "--writes", 400));
  const auto gap = std::chrono::milliseconds{option(argc, argv, "--gap-ms", 23)};
  const auto idle = std::chrono::seconds{option(argc, argv, "--idle-s", 10)};

  auto writer = store::PostgresLeaseStore::open({.url = url});
  auto feed = store::PostgresLeaseStore::open({.url = url});
  if (!writer || !feed) {
    std::fprintf(stderr, "feed_lag: %s\n", (!writer ? writer.error() : feed.error()).message.c_str());
    return 1;
  }
  auto cursor = (*feed)->now();
  if (!cursor) {
    std::fprintf(stderr, "feed_lag: %s\n", cursor.error().message.c_str());
    return 1;
  }

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::map<std::uint32_t, Clock::time_point> seen;  // on the loop's thread only
  const server::Clock lease_clock;
  server::ViewSync sync{io, std::move(*feed), std::move(*cursor), interval,
                        [&lease_clock] { return lease_clock.now(); },
                        server::ViewSync::Handlers{
                            .changes =
                                [&](std::vector<lease::Lease> records) {
                                  const auto now = Clock::now();
                                  for (const auto& record : records) {
                                    const auto index = record.address.to_uint() -
                                                       Ipv4{198, 18, 0, 0}.to_uint();
                                    seen.emplace(index, now);
                                  }
                                },
                            .failed = [](const store::StoreError& error) {
                              std::fprintf(stderr, "feed_lag: poll failed: %s\n", error.message.c_str());
                            },
                            .recovered = [] {},
                        }};
  std::thread loop([&] { io.run(); });

  // Writes at a gap that is no multiple of the interval, so they fall all over the poll cycle.
  std::vector<Clock::time_point> committed(writes);
  for (std::uint32_t index = 0; index < writes; ++index) {
    const std::vector batch{lease_number(index)};
    auto result = (*writer)->commit(batch);
    committed[index] = Clock::now();
    if (!result) {
      std::fprintf(stderr, "feed_lag: commit: %s\n", result.error().message.c_str());
      return 1;
    }
    std::this_thread::sleep_for(gap);
  }
  std::this_thread::sleep_for(interval * 3);
  std::fprintf(stderr, "feed_lag: writes done; idle polling for %lld s\n",
               static_cast<long long>(idle.count()));
  std::fflush(stderr);
  std::this_thread::sleep_for(idle);
  sync.stop();
  work.reset();
  loop.join();

  std::vector<double> lags_ms;
  for (const auto& [index, at] : seen) {
    if (index < writes) {
      lags_ms.push_back(std::chrono::duration<double, std::milli>(at - committed[index]).count());
    }
  }
  if (lags_ms.size() != writes) {
    std::fprintf(stderr, "feed_lag: learned %zu of %u writes\n", lags_ms.size(), writes);
    return 1;
  }
  std::printf("%lld %u %.1f %.1f %.1f\n", static_cast<long long>(interval.count()), writes,
              percentile(lags_ms, 0.5), percentile(lags_ms, 0.99), percentile(lags_ms, 1.0));
  return 0;
}
