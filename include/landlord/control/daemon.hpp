#pragma once
// What the control API asks of the running daemon: the one seam between control/ and server/.
// The server implements it; the command handlers (commands.hpp) and tests use it.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/time.hpp"
#include "landlord/config/config.hpp"
#include "landlord/engine/admission.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::control {

// The daemon's own counters, beside the engine's (engine::Counters); each is shown through its
// row in control/counter_table.hpp.
struct DaemonCounters {
  std::uint64_t packets_received = 0;  // datagrams read from the socket
  std::uint64_t malformed = 0;         // dropped: not a DHCP message
  std::uint64_t unroutable = 0;        // replies dropped: no way to reach the client
  std::uint64_t no_route = 0;          // replies dropped: no specific route to the relay or ciaddr
  std::uint64_t receive_queue_overflow = 0;  // dropped by the kernel: the socket's queue was full
  std::uint64_t offer_ping_skipped = 0;      // OFFERs sent unprobed: too many probes at once, send failed
  std::uint64_t oversized = 0;         // dropped: larger than the receive buffer
  std::uint64_t commits = 0;           // store transactions (fsyncs)
  std::uint64_t last_batch_records = 0;  // records in the latest transaction
  std::uint64_t records_written = 0;
  std::uint64_t stale_refusals = 0;    // writes the store refused for a stale fencing token
  std::uint64_t store_failures = 0;    // failed transactions
  std::uint64_t replies_dropped_store_down = 0;
  std::uint64_t commit_backlog = 0;    // records waiting for a failing store
  bool store_healthy = true;
  // A shared (PostgreSQL) store: whether this server's view is current (its last poll of the
  // others' changes worked; requests are not answered while it is not), failed polls, and
  // records learned from the feed. Always current for a store of its own.
  bool view_current = true;
  std::uint64_t view_sync_failures = 0;
  std::uint64_t view_records_learned = 0;
  std::uint64_t dropped_view_stale = 0;  // requests not answered while the view was not current
  // A shared store: this server's clock minus the database's at the last reading (0: none yet, or
  // a store of its own), whether that is within store.max-clock-skew (false before the first
  // reading: server/clock_agreement.hpp), and requests not answered while it was not.
  double clock_offset_seconds = 0;
  bool clock_agrees = true;
  std::uint64_t dropped_clock_skew = 0;
  // Pool starvation defences (engine/admission.hpp): requests refused a new address, by
  // engine::Refusal; direct requests whose chaddr was not their frame's source; DISCOVERs shed
  // for waiting too long; direct broadcasts whose frame was not seen (chaddr unchecked).
  std::uint64_t admitted = 0;  // requests for a new address the engine's limits let through
  std::array<std::uint64_t, engine::kRefusalKinds> admission_refused{};
  std::uint64_t chaddr_mismatch = 0, discover_shed = 0, frames_unseen = 0;
  // store_failures by the store's reason (its StoreError kind: "full", "read-only", "locked",
  // "io", ...), every reason listed (zeros included) so a dashboard's series exist from the start.
  std::vector<std::pair<std::string, std::uint64_t>> store_failures_by_reason{};
  // Renewals and rebinds ACKed while the store refused writes, cut to the lease it holds; and
  // INIT-REBOOTs of the client's own lease answered so.
  std::uint64_t answered_from_durable = 0;
  std::uint64_t reboots_answered_from_durable = 0;
  // Failed WAL checkpoints by the store's reason (store::StoreHealth), every reason listed,
  // while commits succeed; and times the store was reopened after a read-only file system.
  std::vector<std::pair<std::string, std::uint64_t>> checkpoint_failures_by_reason{};
  std::uint64_t store_reopened = 0;
  // Batches of records the store's commit queue could not take (full: records came faster than
  // the store commits them, the store not failing); their replies were dropped, records retried.
  std::uint64_t commit_queue_full = 0;
  // Names in DNS (`ddns:`; zeros without it): work finished (names added, removed), sides left
  // alone as another's, work given up by cause (every cause listed), work not finished, and
  // UPDATE messages sent (retries included).
  std::uint64_t ddns_adds = 0, ddns_removals = 0, ddns_conflicts = 0, ddns_pending = 0, ddns_messages_sent = 0;
  std::vector<std::pair<std::string, std::uint64_t>> ddns_failed_by_cause{};
};

class Daemon {
 public:
  virtual ~Daemon() = default;

  virtual const config::Config& config() const = 0;
  virtual const std::string& config_path() const = 0;
  virtual engine::Engine& engine() = 0;
  virtual TimePoint now() const = 0;
  virtual DaemonCounters counters() const = 0;
  virtual TimePoint started_at() const = 0;
  virtual TimePoint reloaded_at() const = 0;

  // Commits a change the engine already made (an admin change, a reclaim) like an ACK's records:
  // `done` runs on the event loop once durable (success), or with why not. On success the
  // daemon publishes the outcome's event (one per record for a reclaim) and re-arms its expiry
  // timer.
  virtual void commit(engine::Outcome change, std::function<void(Expected<void, std::string>)> done) = 0;

  // Whether this server may end leases by its own clock now, or why not: not while a shared
  // store's clock and this server's disagree beyond store.max-clock-skew (its lease ends would
  // not be the other servers'), nor before they were first compared. The expiry timer,
  // leases-reclaim, lease4-del and lease4-wipe ask, and lease4-add and lease4-update, which
  // write a lease end by this clock.
  virtual Expected<void, std::string> may_end_leases() const = 0;

  // SIGHUP's reload: the file re-read and checked; on error the running config stays.
  virtual Expected<void, std::string> reload() = 0;

  // Runs `step` on the event loop after what is already waiting there (datagrams included):
  // how a long job yields (control/table_scan.hpp).
  virtual void defer(std::function<void()> step) = 0;
  // Runs `work` off the event loop (one worker thread, jobs in order), then `done` on the loop.
  // `work` must touch only what it was given: nothing of the engine or the daemon.
  virtual void offload(std::function<void()> work, std::function<void()> done) = 0;
};

}  // namespace landlord::control
