#pragma once
// The daemon's counters in one place. Each is counted where it happens (the engine, the
// durability machine, the store's queue, the admission gate, the reply sender, the shared view,
// the socket, the server's receive path); gather() copies each of them once into
// control::DaemonCounters. How each is shown (metrics, statistic-get-all, the log line) is its
// row in control/counter_table.hpp. A new daemon counter: a field of control::DaemonCounters,
// its line in gather(), its row in the table.
#include <cstdint>

#include "landlord/control/daemon.hpp"
#include "landlord/durability/machine.hpp"
#include "landlord/engine/admission.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/dns_updates.hpp"
#include "landlord/store/commit_queue.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::server {

// What the server's receive path counts itself.
struct ReceiveCounters {
  std::uint64_t packets_received = 0;    // datagrams read from the socket
  std::uint64_t malformed = 0;           // dropped: not a DHCP message
  std::uint64_t oversized = 0;           // dropped: larger than the receive buffer
  std::uint64_t offer_ping_skipped = 0;  // OFFERs sent unprobed
};

// Where each counter is kept, read at once.
struct CounterSources {
  const engine::Engine& engine;
  const durability::Machine& machine;
  store::CommitQueueCounters queue;
  store::StoreHealth store_health;
  const ReceiveCounters& receive;
  std::uint64_t unroutable = 0, no_route = 0, receive_queue_overflow = 0;
  bool view_current = true;
  std::uint64_t view_sync_failures = 0, dropped_view_stale = 0, dropped_clock_skew = 0;
  bool clock_agrees = true;
  double clock_offset_seconds = 0;
  const engine::AdmissionCounters& admission;
  std::uint64_t chaddr_mismatch = 0, discover_shed = 0, frames_unseen = 0;
  const DnsUpdates* dns = nullptr;  // with `ddns:` only
};

control::DaemonCounters gather(const CounterSources& sources);

// SIGUSR1 and the end of a drain: the table's two info lines, every counter by its log name.
void log_counters(const CounterSources& sources);

}  // namespace landlord::server
