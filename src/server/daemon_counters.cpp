#include "daemon_counters.hpp"

#include <algorithm>
#include <string>

#include <spdlog/spdlog.h>

namespace landlord::server {

control::DaemonCounters gather(const CounterSources& sources) {
  const durability::Counters& commits = sources.machine.counters();
  control::DaemonCounters counters;
  counters.packets_received = sources.receive.packets_received;
  counters.malformed = sources.receive.malformed;
  counters.unroutable = sources.unroutable;
  counters.no_route = sources.no_route;
  counters.receive_queue_overflow = sources.receive_queue_overflow;
  counters.offer_ping_skipped = sources.receive.offer_ping_skipped;
  counters.oversized = sources.receive.oversized;
  counters.commits = sources.queue.commits;  // transactions (fsyncs)
  counters.records_written = commits.records_written;
  counters.stale_refusals = commits.stale_refusals;
  counters.store_failures = commits.store_failures;
  counters.replies_dropped_store_down = commits.replies_dropped_store_down;
  counters.commit_backlog = sources.machine.backlog_size();
  counters.store_healthy = sources.machine.healthy();
  counters.answered_from_durable = commits.answered_from_durable;
  counters.reboots_answered_from_durable = commits.reboots_answered_from_durable;
  for (std::size_t kind = 0; kind < store::StoreError::kKinds; ++kind) {
    counters.checkpoint_failures_by_reason.emplace_back(store::to_string(static_cast<store::StoreError::Kind>(kind)),
                                                        sources.store_health.checkpoint_failures[kind]);
  }
  counters.store_reopened = sources.store_health.reopened;
  counters.commit_queue_full = commits.not_taken;
  counters.view_current = sources.view_current;
  counters.view_sync_failures = sources.view_sync_failures;
  counters.view_records_learned = sources.engine.counters().learned;
  counters.dropped_view_stale = sources.dropped_view_stale;
  counters.clock_agrees = sources.clock_agrees;
  counters.clock_offset_seconds = sources.clock_offset_seconds;
  counters.dropped_clock_skew = sources.dropped_clock_skew;
  std::copy(std::begin(sources.admission.refused), std::end(sources.admission.refused),
            counters.admission_refused.begin());
  counters.chaddr_mismatch = sources.chaddr_mismatch;
  counters.discover_shed = sources.discover_shed;
  counters.frames_unseen = sources.frames_unseen;
  for (std::size_t kind = 0; kind < store::StoreError::kKinds; ++kind) {
    counters.store_failures_by_reason.emplace_back(store::to_string(static_cast<store::StoreError::Kind>(kind)),
                                                   commits.store_failures_by_kind[kind]);
  }
  return counters;
}

void log_counters(const CounterSources& sources) {
  const engine::Counters& engine = sources.engine.counters();
  const control::DaemonCounters daemon = gather(sources);
  spdlog::info(
      "counters: discovers={} offers={} requests={} grants={} renewals={} rebinds={} naks={} "
      "declines={} releases={} informs={} expirations={} ignored={} duplicates={} pool_exhausted={} "
      "malformed={} unroutable={} no_route={} receive_queue_overflow={} commits={} last_batch={} records_written={} "
      "stale_refusals={} store_failures={} dropped_store_down={}",
      engine.discovers, engine.offers, engine.requests, engine.grants, engine.renewals, engine.rebinds, engine.naks,
      engine.declines, engine.releases, engine.informs, engine.expirations, engine.ignored, engine.duplicates,
      engine.pool_exhausted, daemon.malformed, daemon.unroutable, daemon.no_route, daemon.receive_queue_overflow,
      daemon.commits, sources.queue.last_batch_records, daemon.records_written, daemon.stale_refusals,
      daemon.store_failures, daemon.replies_dropped_store_down);
  std::string refused;
  for (std::size_t i = 0; i < engine::kRefusalKinds; ++i) {
    refused += fmt::format(" {}={}", engine::to_string(static_cast<engine::Refusal>(i)), daemon.admission_refused[i]);
  }
  spdlog::info("admission: admitted={}{} chaddr_mismatch={} discover_shed={} frames_unseen={}",
               sources.admission.admitted, refused, daemon.chaddr_mismatch, daemon.discover_shed,
               daemon.frames_unseen);
}

}  // namespace landlord::server
