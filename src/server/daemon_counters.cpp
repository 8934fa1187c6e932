#include "daemon_counters.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "landlord/control/counter_table.hpp"

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
  counters.last_batch_records = sources.queue.last_batch_records;
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
  counters.admitted = sources.admission.admitted;
  std::copy(std::begin(sources.admission.refused), std::end(sources.admission.refused),
            counters.admission_refused.begin());
  counters.chaddr_mismatch = sources.chaddr_mismatch;
  counters.discover_shed = sources.discover_shed;
  counters.frames_unseen = sources.frames_unseen;
  for (std::size_t kind = 0; kind < store::StoreError::kKinds; ++kind) {
    counters.store_failures_by_reason.emplace_back(store::to_string(static_cast<store::StoreError::Kind>(kind)),
                                                   commits.store_failures_by_kind[kind]);
  }
  for (std::size_t cause = 1; cause < DnsUpdates::kCauses; ++cause) {  // 0 is "none"
    counters.ddns_failed_by_cause.emplace_back(ddns::cause_text(static_cast<ddns::Cause>(cause)),
                                               sources.dns ? sources.dns->counters().failed[cause] : 0);
  }
  if (sources.dns != nullptr) {
    const DnsUpdates::Counters& dns = sources.dns->counters();
    counters.ddns_adds = dns.adds_done;
    counters.ddns_removals = dns.removals_done;
    counters.ddns_conflicts = dns.conflicts;
    counters.ddns_pending = sources.dns->pending();
    counters.ddns_messages_sent = dns.messages_sent;
  }
  return counters;
}

void log_counters(const CounterSources& sources) {
  const control::DaemonCounters daemon = gather(sources);
  const control::CounterReading reading{sources.engine.counters(), daemon};
  for (const control::LogLine line : {control::LogLine::Counters, control::LogLine::Admission}) {
    spdlog::info("{}", control::counter_log_line(line, reading));
  }
}

}  // namespace landlord::server
