// How long a landlord server takes to learn another's write through the PostgreSQL change feed
// (issue #14), polling by snapshot or woken by the writer's NOTIFY (store.sync-notify): one
// PostgresLeaseStore commits --writes transactions of --batch leases, --gap-ms apart (0: back to
// back, the load case), as another server's ACKs would; a server::ViewSync, the daemon's own
// feed thread, polls every --interval-ms on a connection of its own (mode poll), or listens and
// polls on each notification besides (mode notify; the writer then NOTIFYs, at most once per
// --notify-interval-ms, PostgresOptions::notify_interval, and after the last commit), and
// posts what it finds to an io_context. Mode none: the writer alone, the baseline for the
// database's cost. The lag of a commit is from its commit returning (the other server could ACK)
// to its first row reaching this server's loop. Then the feed runs --idle-s seconds with no
// writes. The caller reads the cluster's CPU time (/proc) and transactions around a run.
//   feed_lag URL [--mode poll|notify|none] [--interval-ms 100] [--writes 400] [--gap-ms 23]
//                [--batch 1] [--idle-s 10] [--notify-interval-ms 10]
// Prints one line: mode interval_ms commits write_s commits_per_s lag_p50_ms lag_p99_ms
// lag_max_ms polls notified_polls notifies (lags -1 when nothing was written or mode none;
// notifies: the writer's NOTIFYs, carried by its commits or sent alone after them).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
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

std::string text_option(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int index = 2; index + 1 < argc; ++index) {
    if (argv[index] == name) return argv[index + 1];
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
    std::fprintf(stderr, "usage: feed_lag URL [--mode poll|notify|none] [--interval-ms N] [--writes N] "
                         "[--gap-ms N] [--batch N] [--idle-s N] [--notify-interval-ms N]\n");
    return 2;
  }
  const std::string url = argv[1];
  const std::string mode = text_option(argc, argv, "--mode", "poll");
  if (mode != "poll" && mode != "notify" && mode != "none") {
    std::fprintf(stderr, "feed_lag: --mode is poll, notify or none\n");
    return 2;
  }
  const auto interval = std::chrono::milliseconds{option(argc, argv, "--interval-ms", 100)};
  const auto writes = static_cast<std::uint32_t>(option(argc, argv, "--writes", 400));
  const auto gap = std::chrono::milliseconds{option(argc, argv, "--gap-ms", 23)};
  const auto batch = static_cast<std::uint32_t>(std::max(1L, option(argc, argv, "--batch", 1)));
  const auto idle = std::chrono::seconds{option(argc, argv, "--idle-s", 10)};
  const auto notify_interval = std::chrono::milliseconds{option(
      argc, argv, "--notify-interval-ms", store::PostgresOptions::kNotifyInterval.count())};
  if (static_cast<std::uint64_t>(writes) * batch > 130'000) {
    std::fprintf(stderr, "feed_lag: at most 130000 leases (198.18.0.0/15)\n");
    return 2;
  }
  const bool notify = mode == "notify";

  // Two server-ids, as two servers have: the feed ignores notifications of its own server's.
  auto writer = store::PostgresLeaseStore::open(
      {.url = url, .writer = Ipv4{198, 18, 0, 1}, .notify = notify, .notify_interval = notify_interval});
  auto feed = store::PostgresLeaseStore::open({.url = url, .writer = Ipv4{198, 18, 0, 2}});
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
  std::mutex mutex;
  std::map<std::uint32_t, Clock::time_point> seen;  // lease index -> reached the loop
  const server::Clock lease_clock;
  std::unique_ptr<server::ViewSync> sync;
  if (mode != "none") {
    sync = std::make_unique<server::ViewSync>(
        io, std::move(*feed), std::move(*cursor), interval, notify,
        [&lease_clock] { return lease_clock.now(); },
        server::ViewSync::Handlers{
            .changes =
                [&](std::vector<lease::Lease> records) {
                  const auto now = Clock::now();
                  std::lock_guard lock(mutex);
                  for (const auto& record : records) {
                    seen.emplace(record.address.to_uint() - Ipv4{198, 18, 0, 0}.to_uint(), now);
                  }
                },
            .failed = [](const store::StoreError& error) {
              std::fprintf(stderr, "feed_lag: poll failed: %s\n", error.message.c_str());
            },
            .recovered = [] {},
            .clock = {},
        });
  }
  std::thread loop([&] { io.run(); });

  // Writes at a gap that is no multiple of the interval, so they fall all over the poll cycle.
  std::vector<Clock::time_point> committed(writes);
  const auto began = Clock::now();
  for (std::uint32_t index = 0; index < writes; ++index) {
    std::vector<lease::Lease> records;
    for (std::uint32_t lease = 0; lease < batch; ++lease) records.push_back(lease_number(index * batch + lease));
    auto result = (*writer)->commit(records);
    committed[index] = Clock::now();
    if (!result) {
      std::fprintf(stderr, "feed_lag: commit: %s\n", result.error().message.c_str());
      return 1;
    }
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
  }
  const double write_s = std::chrono::duration<double>(Clock::now() - began).count();
  // Every commit's first row in the view, or a poll interval and two seconds more.
  const auto caught_up = [&] {
    std::lock_guard lock(mutex);
    for (std::uint32_t index = 0; index < writes; ++index) {
      if (!seen.contains(index * batch)) return false;
    }
    return true;
  };
  for (const auto until = Clock::now() + interval + std::chrono::seconds{2};
       sync && Clock::now() < until && !caught_up();) {
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  if (idle.count() > 0) {
    std::fprintf(stderr, "feed_lag: writes done; idle for %lld s\n", static_cast<long long>(idle.count()));
    std::fflush(stderr);
    std::this_thread::sleep_for(idle);
  }
  const std::uint64_t polls = sync ? sync->polls() : 0, notified = sync ? sync->notified_polls() : 0;
  const auto notifications = (*writer)->notifications();
  if (sync) sync->stop();
  work.reset();
  loop.join();

  std::vector<double> lags_ms;
  for (std::uint32_t index = 0; index < writes && sync; ++index) {
    if (auto found = seen.find(index * batch); found != seen.end()) {
      lags_ms.push_back(std::chrono::duration<double, std::milli>(found->second - committed[index]).count());
    }
  }
  if (sync && lags_ms.size() != writes) {
    std::fprintf(stderr, "feed_lag: learned %zu of %u commits\n", lags_ms.size(), writes);
    return 1;
  }
  std::printf("%s %lld %u %.1f %.0f %.1f %.1f %.1f %llu %llu %llu\n", mode.c_str(),
              static_cast<long long>(interval.count()), writes, write_s,
              write_s > 0 ? writes / write_s : 0.0, percentile(lags_ms, 0.5),
              percentile(lags_ms, 0.99), percentile(lags_ms, 1.0),
              static_cast<unsigned long long>(polls), static_cast<unsigned long long>(notified),
              static_cast<unsigned long long>(notifications.carried + notifications.trailing));
  return 0;
}
