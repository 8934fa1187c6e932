#pragma once
// GET /metrics: the Prometheus text exposition format (version 0.0.4). Counters and gauges
// are read from the daemon when scraped; the histograms are fed as things happen, from the
// event loop (REQUEST->ACK latency) and the store's worker thread (commits), so they count
// with atomics.
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "landlord/control/daemon.hpp"
#include "landlord/control/table_scan.hpp"

namespace landlord::control {

class Histogram {
 public:
  // `bounds`: upper bounds of the buckets, increasing; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    std::uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bucket, not cumulative
  std::atomic<double> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

// The histograms the daemon feeds. Latencies in seconds, batch sizes in records.
struct Metrics {
  Histogram request_to_ack_seconds{{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                    0.05, 0.1, 0.25, 0.5, 1}};
  Histogram commit_seconds{{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                            0.1, 0.25, 0.5, 1}};
  Histogram commit_batch_records{{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}};
  // control_rejected: refused or dropped connections, whatever the reason; control_refused of
  // them: at the connection limit with every connection busy; control_evicted: idle connections
  // closed to admit a new one at the limit.
  std::atomic<std::uint64_t> control_requests{0}, control_rejected{0}, control_refused{0}, control_evicted{0},
      events_published{0},
      event_hook_runs{0}, event_hook_failures{0}, event_hook_dropped{0};
};

// What the control transport reports about itself.
struct TransportCounters {
  std::uint64_t connections_open = 0;
  std::uint64_t event_streams = 0;
  std::uint64_t event_streams_dropped = 0;
};

// The lease table counted for /metrics and statistic-get-all: offered, bound and declined
// records per pool, and every state (with the phases of bound leases) per subnet.
struct PoolLeaseCounts {
  std::uint64_t offered = 0, bound = 0, declined = 0;
};
struct SubnetLeaseCounts {
  std::uint64_t offered = 0, bound = 0, past_t1 = 0, past_t2 = 0, declined = 0, released = 0,
                expired = 0;
};
struct TableCounts {
  TableCounts(std::vector<engine::PoolUsage> pool_usage, TimePoint counted_at);
  void count(const lease::Lease& lease);
  const SubnetLeaseCounts& subnet(std::uint32_t subnet_id) const;

  std::vector<engine::PoolUsage> usage;             // the allocator's, when the count began
  std::vector<std::vector<PoolLeaseCounts>> pools;  // [subnet index][pool index], as usage
  std::map<std::uint32_t, SubnetLeaseCounts> subnets;
  TimePoint now;  // phases are as of this time
};
// Counts the table at once (tests, tools) ...
TableCounts count_table(Daemon& daemon);
// ... or in pieces between packets (the control API), then calls `done` on the event loop.
void count_table(Daemon& daemon, TableScanner& scanner, std::function<void(const TableCounts&)> done);

// The exposition text: the daemon's counters now, the table as `table` counted it.
std::string render_metrics(Daemon& daemon, const Metrics& metrics, const TransportCounters& transport,
                           const TableCounts& table);

}  // namespace landlord::control
