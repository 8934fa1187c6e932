#include "landlord/control/metrics.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

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
  const engine::Counters& engine = daemon.engine().counters();
  const DaemonCounters counters = daemon.counters();

  out.family("landlord_messages_received_total", "counter", "DHCP messages handled, by type.");
  const std::pair<std::string_view, std::uint64_t> received[] = {
      {"discover", engine.discovers}, {"request", engine.requests}, {"decline", engine.declines},
      {"release", engine.releases}, {"inform", engine.informs}};
  for (const auto& [type, value] : received) {
    out.sample("landlord_messages_received_total", fmt::format("type=\"{}\"", type), static_cast<double>(value));
  }
  out.family("landlord_messages_sent_total", "counter", "DHCP replies decided, by type.");
  const std::pair<std::string_view, std::uint64_t> sent[] = {
      {"offer", engine.offers},
      {"ack", engine.grants + engine.renewals + engine.rebinds + engine.informs},
      {"nak", engine.naks}};
  for (const auto& [type, value] : sent) {
    out.sample("landlord_messages_sent_total", fmt::format("type=\"{}\"", type), static_cast<double>(value));
  }
  out.family("landlord_lease_events_total", "counter", "Lease events, by kind.");
  const std::pair<std::string_view, std::uint64_t> events[] = {
      {"grant", engine.grants}, {"renew", engine.renewals}, {"rebind", engine.rebinds},
      {"release", engine.releases}, {"decline", engine.declines}, {"expire", engine.expirations},
      {"nak", engine.naks}};
  for (const auto& [kind, value] : events) {
    out.sample("landlord_lease_events_total", fmt::format("event=\"{}\"", kind), static_cast<double>(value));
  }
  out.single("landlord_packets_received_total", "counter", "Datagrams read from the DHCP socket.",
             static_cast<double>(counters.packets_received));
  out.family("landlord_packets_dropped_total", "counter",
             "Packets dropped, by reason: requests malformed, oversized, ignored or lost in a full "
             "receive queue (receive_queue_overflow, counted by the kernel), relayed copies of a "
             "renewal just answered (duplicate); replies unroutable, "
             "with no route to the relay or ciaddr (no_route), or not acknowledged while the store "
             "is down (store_down).");
  const std::pair<std::string_view, std::uint64_t> dropped[] = {
      {"malformed", counters.malformed}, {"oversized", counters.oversized},
      {"ignored", engine.ignored}, {"duplicate", engine.duplicates}, {"unroutable", counters.unroutable},
      {"no_route", counters.no_route}, {"receive_queue_overflow", counters.receive_queue_overflow},
      {"store_down", counters.replies_dropped_store_down}};
  for (const auto& [reason, value] : dropped) {
    out.sample("landlord_packets_dropped_total", fmt::format("reason=\"{}\"", reason), static_cast<double>(value));
  }
  out.family("landlord_admission_refused_total", "counter",
             "Requests dropped by the pool starvation defences before the engine saw them, by reason: a "
             "request for a new address over its client's, relay's or circuit's rate (client_rate, "
             "relay_rate, circuit_rate), with its relay, circuit-id, remote-id, MAC prefix or direct "
             "sending host at its lease cap (relay_leases, circuit_leases, remote_leases, mac_prefix_leases, "
             "source_leases) or its source at its outstanding offers (source_offers); a direct broadcast "
             "whose chaddr is not the frame's source address (chaddr_mismatch); a DISCOVER that waited longer than discover-max-wait "
             "(discover_shed).");
  for (std::size_t i = 0; i < engine::kRefusalKinds; ++i) {
    out.sample("landlord_admission_refused_total",
               fmt::format("reason=\"{}\"", engine::to_string(static_cast<engine::Refusal>(i))),
               static_cast<double>(counters.admission_refused[i]));
  }
  out.sample("landlord_admission_refused_total", "reason=\"chaddr_mismatch\"",
             static_cast<double>(counters.chaddr_mismatch));
  out.sample("landlord_admission_refused_total", "reason=\"discover_shed\"",
             static_cast<double>(counters.discover_shed));
  out.single("landlord_admission_frames_unseen_total", "counter",
             "Direct broadcast requests whose Ethernet frame the server did not see: their chaddr was not "
             "checked (admission.verify-chaddr).",
             static_cast<double>(counters.frames_unseen));
  out.single("landlord_pool_exhausted_total", "counter", "DISCOVERs with no free address.",
             static_cast<double>(engine.pool_exhausted));
  out.single("landlord_offer_ping_conflicts_total", "counter",
             "Addresses about to be offered that answered an ICMP echo (offer-ping): declined, not offered.",
             static_cast<double>(engine.conflicts));
  out.single("landlord_discovers_left_to_peers_total", "counter",
             "DISCOVERs not answered: in another peer's RFC 3074 hash buckets (peers.servers).",
             static_cast<double>(engine.left_to_peers));
  out.family("landlord_reboots_left_to_peers_total", "counter",
             "INIT-REBOOTs not answered (peers.servers), by reason: the lease is another peer's token "
             "(peer_holds_lease), or no lease of the client is known here and the client is another "
             "peer's (peer_owns_client). Answered by any peer once the client has tried for "
             "answer-all-after.");
  out.sample("landlord_reboots_left_to_peers_total", "reason=\"peer_holds_lease\"",
             static_cast<double>(engine.reboots_left_to_holder));
  out.sample("landlord_reboots_left_to_peers_total", "reason=\"peer_owns_client\"",
             static_cast<double>(engine.reboots_left_to_owner));
  out.single("landlord_offer_ping_skipped_total", "counter",
             "OFFERs sent without their offer-ping: too many probes at once, or the echo could not be sent.",
             static_cast<double>(counters.offer_ping_skipped));
  out.single("landlord_leases_shortened_total", "counter",
             "New leases granted a pool's shorter adaptive lease time (lease: {shrink-above, to}).",
             static_cast<double>(engine.shortened_leases));

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

  out.single("landlord_store_healthy", "gauge", "1 while the lease store accepts writes.",
             counters.store_healthy ? 1 : 0);
  out.single("landlord_store_view_current", "gauge",
             "1 while this server's view of a shared store is current (its last poll worked).",
             counters.view_current ? 1 : 0);
  out.single("landlord_store_view_sync_failures_total", "counter",
             "Failed polls of a shared store's changes.", static_cast<double>(counters.view_sync_failures));
  out.single("landlord_store_view_records_learned_total", "counter",
             "Records other servers wrote that changed this server's view.",
             static_cast<double>(counters.view_records_learned));
  out.single("landlord_dropped_view_stale_total", "counter",
             "Requests not answered while the view of a shared store was not current.",
             static_cast<double>(counters.dropped_view_stale));
  out.single("landlord_store_clock_offset_seconds", "gauge",
             "This server's clock minus the shared store's, at the last reading (0 without one).",
             counters.clock_offset_seconds);
  out.single("landlord_store_clock_agrees", "gauge",
             "1 while this server's clock is within store.max-clock-skew of the shared store's (0 before the first reading).",
             counters.clock_agrees ? 1 : 0);
  out.single("landlord_dropped_clock_skew_total", "counter",
             "Requests not answered while this server's clock disagreed with the shared store's, or before the first reading.",
             static_cast<double>(counters.dropped_clock_skew));
  out.single("landlord_store_backlog_records", "gauge", "Records waiting for a failing store.",
             static_cast<double>(counters.commit_backlog));
  out.single("landlord_store_commits_total", "counter", "Store transactions (one fsync each).",
             static_cast<double>(counters.commits));
  out.single("landlord_store_records_written_total", "counter", "Lease records made durable.",
             static_cast<double>(counters.records_written));
  out.single("landlord_store_failures_total", "counter", "Failed store transactions.",
             static_cast<double>(counters.store_failures));
  out.family("landlord_store_commit_failures_total", "counter",
             "Failed store transactions by the store's reason: the disk is full (full), the file or its "
             "file system refuses writes (read_only), another process holds the lock (locked), an I/O "
             "error or the file gone (io), corrupt, foreign, other.");
  const auto by_reason = [&out](const char* family, const auto& by_kind) {
    for (const auto& [reason, value] : by_kind) {
      std::string name = reason;
      std::replace(name.begin(), name.end(), '-', '_');  // "read-only" as a label value like the others
      out.sample(family, fmt::format("reason=\"{}\"", name), static_cast<double>(value));
    }
  };
  by_reason("landlord_store_commit_failures_total", counters.store_failures_by_reason);
  out.single("landlord_store_down_renewals_answered_total", "counter",
             "Renewals and rebinds ACKed while the store refused writes: not extended, the lease time "
             "cut to what remains of the lease the store holds (no write).",
             static_cast<double>(counters.answered_from_durable));
  out.single("landlord_store_down_reboots_answered_total", "counter",
             "INIT-REBOOTs of a client's own bound lease on its link ACKed while the store refused "
             "writes: the lease time cut to what remains of the lease the store holds (no write).",
             static_cast<double>(counters.reboots_answered_from_durable));
  out.family("landlord_store_checkpoint_failures_total", "counter",
             "Failed WAL checkpoints (SQLite) by the store's reason, while commits may still succeed: "
             "nothing is lost, but the WAL grows until a checkpoint works.");
  by_reason("landlord_store_checkpoint_failures_total", counters.checkpoint_failures_by_reason);
  out.single("landlord_store_reopened_total", "counter",
             "Times the store was opened again (and found to be the same store) after it closed its "
             "files for a file system that turned read-only.",
             static_cast<double>(counters.store_reopened));
  out.single("landlord_store_commit_queue_full_total", "counter",
             "Batches of records the store's commit queue could not take (full: records came faster "
             "than the store commits them; the store is not failing). Their replies were not sent; "
             "the records wait and are retried.",
             static_cast<double>(counters.commit_queue_full));
  out.single("landlord_store_stale_refusals_total", "counter",
             "Writes the store refused for a stale fencing token.", static_cast<double>(counters.stale_refusals));
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
