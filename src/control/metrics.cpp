#include "landlord/control/metrics.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "landlord/control/counter_table.hpp"

namespace landlord::control {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {}

void Histogram::observe(double value) {
  const auto bucket = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot snapshot{bounds_, {}, sum_.load(std::memory_order_relaxed), 0};
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    snapshot.cumulative.push_back(running);
  }
  snapshot.count = running;  // +Inf, consistent with the buckets even while others observe
  return snapshot;
}

namespace {

class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(text_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, std::string_view labels, double value) {
    if (labels.empty()) {
      fmt::format_to(std::back_inserter(text_), "{} {}\n", name, value);
    } else {
      fmt::format_to(std::back_inserter(text_), "{}{{{}}} {}\n", name, labels, value);
    }
  }
  void single(std::string_view name, std::string_view type, std::string_view help, double value) {
    family(name, type, help);
    sample(name, "", value);
  }
  void histogram(std::string_view name, std::string_view help, const Histogram& histogram) {
    family(name, "histogram", help);
    const auto snapshot = histogram.snapshot();
    for (std::size_t i = 0; i < snapshot.bounds.size(); ++i) {
      sample(fmt::format("{}_bucket", name), fmt::format("le=\"{}\"", snapshot.bounds[i]),
             static_cast<double>(snapshot.cumulative[i]));
    }
    sample(fmt::format("{}_bucket", name), "le=\"+Inf\"", static_cast<double>(snapshot.count));
    sample(fmt::format("{}_sum", name), "", snapshot.sum);
    sample(fmt::format("{}_count", name), "", static_cast<double>(snapshot.count));
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// The counter table's rows (counter_table.hpp), a family's HELP and TYPE before its first row.
void render_rows(Writer& out, const CounterReading& reading) {
  const CounterFamily* family = nullptr;
  for (const CounterRow& row : counter_table()) {
    if (row.family == nullptr) continue;
    if (row.family != family) {
      family = row.family;
      out.family(family->name, family->type, family->help);
    }
    if (row.by_name) {
      for (const auto& [name, value] : row.by_name(reading)) {
        std::string label = name;
        std::replace(label.begin(), label.end(), '-', '_');  // "read-only" as a label value like the others
        out.sample(family->name, fmt::format("{}=\"{}\"", row.labels, label), static_cast<double>(value));
      }
    } else {
      out.sample(family->name, row.labels, row.real ? row.real(reading) : static_cast<double>(row.count(reading)));
    }
  }
}

}  // namespace

TableCounts::TableCounts(std::vector<engine::PoolUsage> pool_usage, TimePoint counted_at)
    : usage(std::move(pool_usage)), now(counted_at) {
  for (const auto& subnet : usage) pools.emplace_back(subnet.pools.size());
}

void TableCounts::count(const lease::Lease& lease) {
  SubnetLeaseCounts& entry = subnets[lease.subnet_id];
  switch (lease.state) {
    case lease::LeaseState::Offered: ++entry.offered; break;
    case lease::LeaseState::Declined: ++entry.declined; break;
    case lease::LeaseState::Released: ++entry.released; break;
    case lease::LeaseState::Expired: ++entry.expired; break;
    case lease::LeaseState::Bound: {
      ++entry.bound;
      const auto phase = lease.phase(now);
      if (phase == lease::Phase::PastT1) ++entry.past_t1;
      if (phase == lease::Phase::PastT2 || phase == lease::Phase::Expired) ++entry.past_t2;
      break;
    }
  }
  // usage[i] is subnet i + 1 (engine::Engine::pool_usage).
  if (lease.subnet_id < 1 || lease.subnet_id > usage.size()) return;
  const auto& ranges = usage[lease.subnet_id - 1].pools;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (lease.address < ranges[i].first || ranges[i].last < lease.address) continue;
    PoolLeaseCounts& pool = pools[lease.subnet_id - 1][i];
    if (lease.state == lease::LeaseState::Offered) ++pool.offered;
    if (lease.state == lease::LeaseState::Bound) ++pool.bound;
    if (lease.state == lease::LeaseState::Declined) ++pool.declined;
  }
}

const SubnetLeaseCounts& TableCounts::subnet(std::uint32_t subnet_id) const {
  static const SubnetLeaseCounts kNone;
  const auto found = subnets.find(subnet_id);
  return found == subnets.end() ? kNone : found->second;
}

TableCounts count_table(Daemon& daemon) {
  TableCounts table{daemon.engine().pool_usage(), daemon.now()};
  daemon.engine().for_each_lease([&](const lease::Lease& lease) { table.count(lease); });
  return table;
}

void count_table(Daemon& daemon, TableScanner& scanner, std::function<void(const TableCounts&)> done) {
  auto table = std::make_shared<TableCounts>(daemon.engine().pool_usage(), daemon.now());
  scanner.scan([table](const lease::Lease& lease) { table->count(lease); },
               [table, done = std::move(done)] { done(*table); });
}

std::string render_metrics(Daemon& daemon, const Metrics& metrics, const TransportCounters& transport,
                           const TableCounts& table) {
  Writer out;
  const DaemonCounters counters = daemon.counters();
  render_rows(out, CounterReading{daemon.engine().counters(), counters});

  // Per subnet: the allocator's classes and the lease table's states and phases.
  const auto& subnets = daemon.config().subnets;
  const auto label = [&](std::uint32_t id) {
    const std::string cidr = id >= 1 && id <= subnets.size() ? subnets[id - 1].subnet.to_string() : "?";
    return fmt::format("subnet_id=\"{}\",subnet=\"{}\"", id, cidr);
  };
  const auto& usage = table.usage;
  const auto pool_label = [&](std::uint32_t id, const engine::RangeUsage& pool) {
    return label(id) + fmt::format(",pool=\"{}-{}\"", pool.first.to_string(), pool.last.to_string());
  };
  out.family("landlord_pool_addresses", "gauge", "Addresses of a pool (reserved ones included).");
  for (const auto& subnet : usage) {
    for (const auto& pool : subnet.pools) {
      out.sample("landlord_pool_addresses", pool_label(subnet.subnet_id, pool), static_cast<double>(pool.total));
    }
  }
  out.family("landlord_pool_free_addresses", "gauge",
             "Addresses of a pool free to allocate (never used, or their lease ended).");
  for (const auto& subnet : usage) {
    for (const auto& pool : subnet.pools) {
      out.sample("landlord_pool_free_addresses", pool_label(subnet.subnet_id, pool),
                 static_cast<double>(pool.free_clean + pool.free_affinity));
    }
  }
  out.family("landlord_pool_lease_shortened", "gauge",
             "1 while a pool's use is above its adaptive lease's shrink-above: new leases get its shorter time.");
  for (const auto& subnet : usage) {
    for (const auto& pool : subnet.pools) {
      out.sample("landlord_pool_lease_shortened", pool_label(subnet.subnet_id, pool), pool.lease_shortened ? 1 : 0);
    }
  }
  out.family("landlord_pool_leases", "gauge", "Addresses of a pool offered, bound or declined.");
  const std::pair<std::string_view, std::uint64_t PoolLeaseCounts::*> pool_states[] = {
      {"offered", &PoolLeaseCounts::offered}, {"bound", &PoolLeaseCounts::bound}, {"declined", &PoolLeaseCounts::declined}};
  for (const auto& subnet : usage) {
    for (std::size_t i = 0; i < subnet.pools.size(); ++i) {
      const PoolLeaseCounts& entry = table.pools[subnet.subnet_id - 1][i];
      for (const auto& [state, member] : pool_states) {
        out.sample("landlord_pool_leases",
                   pool_label(subnet.subnet_id, subnet.pools[i]) + fmt::format(",state=\"{}\"", state),
                   static_cast<double>(entry.*member));
      }
    }
  }
  const std::pair<std::string_view, std::uint64_t SubnetLeaseCounts::*> states[] = {
      {"offered", &SubnetLeaseCounts::offered}, {"bound", &SubnetLeaseCounts::bound},
      {"past_t1", &SubnetLeaseCounts::past_t1}, {"past_t2", &SubnetLeaseCounts::past_t2},
      {"declined", &SubnetLeaseCounts::declined}, {"released", &SubnetLeaseCounts::released},
      {"expired", &SubnetLeaseCounts::expired}};
  out.family("landlord_leases", "gauge",
             "Lease records of a subnet by state; past_t1 and past_t2 are bound leases in that phase.");
  for (const auto& subnet : usage) {
    const SubnetLeaseCounts& entry = table.subnet(subnet.subnet_id);
    for (const auto& [state, member] : states) {
      out.sample("landlord_leases", label(subnet.subnet_id) + fmt::format(",state=\"{}\"", state),
                 static_cast<double>(entry.*member));
    }
  }

  out.histogram("landlord_request_to_ack_seconds",
                "From a REQUEST's arrival to its ACK leaving, the commit included.",
                metrics.request_to_ack_seconds);
  out.histogram("landlord_commit_duration_seconds", "Time the store took for one transaction.",
                metrics.commit_seconds);
  out.histogram("landlord_commit_batch_records", "Lease records per store transaction.",
                metrics.commit_batch_records);

  out.single("landlord_control_requests_total", "counter", "Control API requests answered.",
             static_cast<double>(metrics.control_requests.load()));
  out.single("landlord_control_rejected_total", "counter",
             "Control connections refused or dropped: too many, too large, too slow, bad token.",
             static_cast<double>(metrics.control_rejected.load()));
  out.single("landlord_control_connections_refused_total", "counter",
             "Control connections refused at the connection limit, every open one busy.",
             static_cast<double>(metrics.control_refused.load()));
  out.single("landlord_control_connections_evicted_total", "counter",
             "Idle control connections closed to admit a new one at the connection limit.",
             static_cast<double>(metrics.control_evicted.load()));
  out.single("landlord_control_connections", "gauge", "Open control API connections.",
             static_cast<double>(transport.connections_open));
  out.single("landlord_event_streams", "gauge", "Open /events streams.",
             static_cast<double>(transport.event_streams));
  out.single("landlord_event_streams_dropped_total", "counter", "/events readers dropped for being too slow.",
             static_cast<double>(transport.event_streams_dropped));
  out.single("landlord_events_published_total", "counter", "Lease events published.",
             static_cast<double>(metrics.events_published.load()));
  out.single("landlord_event_hook_runs_total", "counter", "events.exec programs started.",
             static_cast<double>(metrics.event_hook_runs.load()));
  out.single("landlord_event_hook_failures_total", "counter",
             "events.exec runs that failed: could not start, non-zero exit, killed at the timeout.",
             static_cast<double>(metrics.event_hook_failures.load()));
  out.single("landlord_event_hook_dropped_total", "counter", "Events not run: events.exec queue full.",
             static_cast<double>(metrics.event_hook_dropped.load()));
  return out.take();
}

}  // namespace landlord::control
