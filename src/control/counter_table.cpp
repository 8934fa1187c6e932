#include "landlord/control/counter_table.hpp"

#include <fmt/format.h>

namespace landlord::control {
namespace {

using Reading = CounterReading;

constexpr CounterFamily kReceived{"landlord_messages_received_total", "counter", "DHCP messages handled, by type."};
constexpr CounterFamily kSent{"landlord_messages_sent_total", "counter", "DHCP replies decided, by type."};
constexpr CounterFamily kLeaseEvents{"landlord_lease_events_total", "counter", "Lease events, by kind."};
constexpr CounterFamily kPackets{"landlord_packets_received_total", "counter", "Datagrams read from the DHCP socket."};
constexpr CounterFamily kDropped{
    "landlord_packets_dropped_total", "counter",
    "Packets dropped, by reason: requests malformed, oversized, ignored or lost in a full "
    "receive queue (receive_queue_overflow, counted by the kernel), relayed copies of a "
    "renewal just answered (duplicate); replies unroutable, "
    "with no route to the relay or ciaddr (no_route), or not acknowledged while the store "
    "is down (store_down)."};
constexpr CounterFamily kRefused{
    "landlord_admission_refused_total", "counter",
    "Requests dropped by the pool starvation defences before the engine saw them, by reason: a "
    "request for a new address over its client's, relay's or circuit's rate (client_rate, "
    "relay_rate, circuit_rate), with its relay, circuit-id, remote-id, MAC prefix or direct "
    "sending host at its lease cap (relay_leases, circuit_leases, remote_leases, mac_prefix_leases, "
    "source_leases) or its source at its outstanding offers (source_offers); a direct broadcast "
    "whose chaddr is not the frame's source address (chaddr_mismatch); a DISCOVER that waited longer than discover-max-wait "
    "(discover_shed)."};
constexpr CounterFamily kFramesUnseen{
    "landlord_admission_frames_unseen_total", "counter",
    "Direct broadcast requests whose Ethernet frame the server did not see: their chaddr was not "
    "checked (admission.verify-chaddr)."};
constexpr CounterFamily kPoolExhausted{"landlord_pool_exhausted_total", "counter", "DISCOVERs with no free address."};
constexpr CounterFamily kPingConflicts{
    "landlord_offer_ping_conflicts_total", "counter",
    "Addresses about to be offered that answered an ICMP echo (offer-ping): declined, not offered."};
constexpr CounterFamily kLeftToPeers{
    "landlord_discovers_left_to_peers_total", "counter",
    "DISCOVERs not answered: in another peer's RFC 3074 hash buckets (peers.servers)."};
constexpr CounterFamily kRebootsLeft{
    "landlord_reboots_left_to_peers_total", "counter",
    "INIT-REBOOTs not answered (peers.servers), by reason: the lease is another peer's token "
    "(peer_holds_lease), or no lease of the client is known here and the client is another "
    "peer's (peer_owns_client). Answered by any peer once the client has tried for "
    "answer-all-after."};
constexpr CounterFamily kPingSkipped{
    "landlord_offer_ping_skipped_total", "counter",
    "OFFERs sent without their offer-ping: too many probes at once, or the echo could not be sent."};
constexpr CounterFamily kShortened{
    "landlord_leases_shortened_total", "counter",
    "New leases granted a pool's shorter adaptive lease time (lease: {shrink-above, to})."};
constexpr CounterFamily kStoreHealthy{"landlord_store_healthy", "gauge", "1 while the lease store accepts writes."};
constexpr CounterFamily kViewCurrent{
    "landlord_store_view_current", "gauge",
    "1 while this server's view of a shared store is current (its last poll worked)."};
constexpr CounterFamily kViewSyncFailures{"landlord_store_view_sync_failures_total", "counter",
                                          "Failed polls of a shared store's changes."};
constexpr CounterFamily kViewLearned{"landlord_store_view_records_learned_total", "counter",
                                     "Records other servers wrote that changed this server's view."};
constexpr CounterFamily kViewStale{"landlord_dropped_view_stale_total", "counter",
                                   "Requests not answered while the view of a shared store was not current."};
constexpr CounterFamily kClockOffset{
    "landlord_store_clock_offset_seconds", "gauge",
    "This server's clock minus the shared store's, at the last reading (0 without one)."};
constexpr CounterFamily kClockAgrees{
    "landlord_store_clock_agrees", "gauge",
    "1 while this server's clock is within store.max-clock-skew of the shared store's (0 before the first reading)."};
constexpr CounterFamily kClockSkew{
    "landlord_dropped_clock_skew_total", "counter",
    "Requests not answered while this server's clock disagreed with the shared store's, or before the first reading."};
constexpr CounterFamily kDdnsDone{"landlord_ddns_updates_total", "counter",
                                   "Names in DNS: adds and removals finished, by operation."};
constexpr CounterFamily kDdnsConflicts{
    "landlord_ddns_conflicts_total", "counter",
    "Names in DNS: records left alone, held by another client (its DHCID) or by an operator (no DHCID)."};
constexpr CounterFamily kDdnsFailed{"landlord_ddns_failed_total", "counter",
                                    "Names in DNS: work given up after ddns.max-attempts, by cause."};
constexpr CounterFamily kDdnsPending{"landlord_ddns_pending", "gauge", "Names in DNS: work not finished yet."};
constexpr CounterFamily kDdnsSent{"landlord_ddns_messages_sent_total", "counter",
                                  "Names in DNS: UPDATE messages sent, retries included."};
constexpr CounterFamily kBacklog{"landlord_store_backlog_records", "gauge", "Records waiting for a failing store."};
constexpr CounterFamily kCommits{"landlord_store_commits_total", "counter", "Store transactions (one fsync each)."};
constexpr CounterFamily kWritten{"landlord_store_records_written_total", "counter", "Lease records made durable."};
constexpr CounterFamily kFailures{"landlord_store_failures_total", "counter", "Failed store transactions."};
constexpr CounterFamily kFailuresByReason{
    "landlord_store_commit_failures_total", "counter",
    "Failed store transactions by the store's reason: the disk is full (full), the file or its "
    "file system refuses writes (read_only), another process holds the lock (locked), an I/O "
    "error or the file gone (io), corrupt, foreign, other."};
constexpr CounterFamily kDownRenewals{
    "landlord_store_down_renewals_answered_total", "counter",
    "Renewals and rebinds ACKed while the store refused writes: not extended, the lease time "
    "cut to what remains of the lease the store holds (no write)."};
constexpr CounterFamily kDownReboots{
    "landlord_store_down_reboots_answered_total", "counter",
    "INIT-REBOOTs of a client's own bound lease on its link ACKed while the store refused "
    "writes: the lease time cut to what remains of the lease the store holds (no write)."};
constexpr CounterFamily kCheckpointFailures{
    "landlord_store_checkpoint_failures_total", "counter",
    "Failed WAL checkpoints (SQLite) by the store's reason, while commits may still succeed: "
    "nothing is lost, but the WAL grows until a checkpoint works."};
constexpr CounterFamily kReopened{
    "landlord_store_reopened_total", "counter",
    "Times the store was opened again (and found to be the same store) after it closed its "
    "files for a file system that turned read-only."};
constexpr CounterFamily kQueueFull{
    "landlord_store_commit_queue_full_total", "counter",
    "Batches of records the store's commit queue could not take (full: records came faster "
    "than the store commits them; the store is not failing). Their replies were not sent; "
    "the records wait and are retried."};
constexpr CounterFamily kStale{"landlord_store_stale_refusals_total", "counter",
                               "Writes the store refused for a stale fencing token."};

// A row's reader from a member of the engine's or the daemon's counters.
template <auto Member>
std::uint64_t engine_count(const Reading& reading) {
  return reading.engine.*Member;
}
template <auto Member>
std::uint64_t daemon_count(const Reading& reading) {
  return static_cast<std::uint64_t>(reading.daemon.*Member);  // a bool gauge: 1 or 0
}

std::vector<CounterRow> make_table() {
  using E = engine::Counters;
  using D = DaemonCounters;
  constexpr LogLine kLog = LogLine::Counters;
  std::vector<CounterRow> rows = {
      {&kReceived, R"(type="discover")", kLog, "discovers", "pkt4-discover-received", engine_count<&E::discovers>},
      {&kReceived, R"(type="request")", kLog, "requests", "pkt4-request-received", engine_count<&E::requests>},
      {&kReceived, R"(type="decline")", kLog, "declines", "pkt4-decline-received", engine_count<&E::declines>},
      {&kReceived, R"(type="release")", kLog, "releases", "pkt4-release-received", engine_count<&E::releases>},
      {&kReceived, R"(type="inform")", kLog, "informs", "pkt4-inform-received", engine_count<&E::informs>},
      {&kSent, R"(type="offer")", kLog, "offers", "pkt4-offer-sent", engine_count<&E::offers>},
      {&kSent, R"(type="ack")", LogLine::None, "", "pkt4-ack-sent",
       [](const Reading& r) { return r.engine.grants + r.engine.renewals + r.engine.rebinds + r.engine.informs; }},
      {&kSent, R"(type="nak")", kLog, "naks", "pkt4-nak-sent", engine_count<&E::naks>},
      {&kLeaseEvents, R"(event="grant")", kLog, "grants", "", engine_count<&E::grants>},
      {&kLeaseEvents, R"(event="renew")", kLog, "renewals", "", engine_count<&E::renewals>},
      {&kLeaseEvents, R"(event="rebind")", kLog, "rebinds", "", engine_count<&E::rebinds>},
      {&kLeaseEvents, R"(event="release")", LogLine::None, "", "", engine_count<&E::releases>},
      {&kLeaseEvents, R"(event="decline")", LogLine::None, "", "", engine_count<&E::declines>},
      {&kLeaseEvents, R"(event="expire")", kLog, "expirations", "reclaimed-leases", engine_count<&E::expirations>},
      {&kLeaseEvents, R"(event="nak")", LogLine::None, "", "", engine_count<&E::naks>},
      {&kPackets, "", LogLine::None, "", "pkt4-received", daemon_count<&D::packets_received>},
      {&kDropped, R"(reason="malformed")", kLog, "malformed", "pkt4-parse-failed", daemon_count<&D::malformed>},
      {&kDropped, R"(reason="oversized")", LogLine::None, "", "", daemon_count<&D::oversized>},
      {&kDropped, R"(reason="ignored")", kLog, "ignored", "", engine_count<&E::ignored>},
      {&kDropped, R"(reason="duplicate")", kLog, "duplicates", "", engine_count<&E::duplicates>},
      {&kDropped, R"(reason="unroutable")", kLog, "unroutable", "", daemon_count<&D::unroutable>},
      {&kDropped, R"(reason="no_route")", kLog, "no_route", "pkt4-no-route", daemon_count<&D::no_route>},
      {&kDropped, R"(reason="receive_queue_overflow")", kLog, "receive_queue_overflow", "pkt4-receive-queue-overflow",
       daemon_count<&D::receive_queue_overflow>},
      {&kDropped, R"(reason="store_down")", kLog, "dropped_store_down", "",
       daemon_count<&D::replies_dropped_store_down>},
      // Kea's total of requests dropped on receipt (not the replies dropped).
      {nullptr, "", LogLine::None, "", "pkt4-receive-drop",
       [](const Reading& r) {
         return r.daemon.malformed + r.daemon.oversized + r.engine.ignored + r.daemon.receive_queue_overflow;
       }},
      {nullptr, "", LogLine::Admission, "admitted", "", daemon_count<&D::admitted>},
  };
  for (std::size_t i = 0; i < engine::kRefusalKinds; ++i) {
    const std::string_view kind = engine::to_string(static_cast<engine::Refusal>(i));
    rows.push_back({&kRefused, fmt::format("reason=\"{}\"", kind), LogLine::Admission, std::string{kind}, "",
                    [i](const Reading& r) { return r.daemon.admission_refused[i]; }});
  }
  std::vector<CounterRow> more = {
      {&kRefused, R"(reason="chaddr_mismatch")", LogLine::Admission, "chaddr_mismatch", "",
       daemon_count<&D::chaddr_mismatch>},
      {&kRefused, R"(reason="discover_shed")", LogLine::Admission, "discover_shed", "",
       daemon_count<&D::discover_shed>},
      {&kFramesUnseen, "", LogLine::Admission, "frames_unseen", "", daemon_count<&D::frames_unseen>},
      {&kPoolExhausted, "", kLog, "pool_exhausted", "v4-allocation-fail", engine_count<&E::pool_exhausted>},
      {&kPingConflicts, "", LogLine::None, "", "", engine_count<&E::conflicts>},
      {&kLeftToPeers, "", LogLine::None, "", "", engine_count<&E::left_to_peers>},
      {&kRebootsLeft, R"(reason="peer_holds_lease")", LogLine::None, "", "", engine_count<&E::reboots_left_to_holder>},
      {&kRebootsLeft, R"(reason="peer_owns_client")", LogLine::None, "", "", engine_count<&E::reboots_left_to_owner>},
      {&kPingSkipped, "", LogLine::None, "", "", daemon_count<&D::offer_ping_skipped>},
      {&kShortened, "", LogLine::None, "", "leases-shortened", engine_count<&E::shortened_leases>},
      {&kStoreHealthy, "", LogLine::None, "", "", daemon_count<&D::store_healthy>},
      {&kViewCurrent, "", LogLine::None, "", "", daemon_count<&D::view_current>},
      {&kViewSyncFailures, "", LogLine::None, "", "", daemon_count<&D::view_sync_failures>},
      {&kViewLearned, "", LogLine::None, "", "", daemon_count<&D::view_records_learned>},
      {&kViewStale, "", LogLine::None, "", "", daemon_count<&D::dropped_view_stale>},
      {.family = &kClockOffset, .real = [](const Reading& r) { return r.daemon.clock_offset_seconds; }},
      {&kClockAgrees, "", LogLine::None, "", "", daemon_count<&D::clock_agrees>},
      {&kClockSkew, "", LogLine::None, "", "", daemon_count<&D::dropped_clock_skew>},
      {&kBacklog, "", LogLine::None, "", "", daemon_count<&D::commit_backlog>},
      {&kCommits, "", kLog, "commits", "", daemon_count<&D::commits>},
      {nullptr, "", kLog, "last_batch", "", daemon_count<&D::last_batch_records>},
      {&kWritten, "", kLog, "records_written", "", daemon_count<&D::records_written>},
      {&kFailures, "", kLog, "store_failures", "", daemon_count<&D::store_failures>},
      {.family = &kFailuresByReason, .labels = "reason",
       .by_name = [](const Reading& r) -> const NamedCounts& { return r.daemon.store_failures_by_reason; }},
      {&kDownRenewals, "", LogLine::None, "", "", daemon_count<&D::answered_from_durable>},
      {&kDownReboots, "", LogLine::None, "", "", daemon_count<&D::reboots_answered_from_durable>},
      {.family = &kCheckpointFailures, .labels = "reason",
       .by_name = [](const Reading& r) -> const NamedCounts& { return r.daemon.checkpoint_failures_by_reason; }},
      {&kReopened, "", LogLine::None, "", "", daemon_count<&D::store_reopened>},
      {&kQueueFull, "", LogLine::None, "", "", daemon_count<&D::commit_queue_full>},
      {&kStale, "", kLog, "stale_refusals", "", daemon_count<&D::stale_refusals>},
      {&kDdnsDone, R"(operation="add")", LogLine::None, "", "", daemon_count<&D::ddns_adds>},
      {&kDdnsDone, R"(operation="remove")", LogLine::None, "", "", daemon_count<&D::ddns_removals>},
      {&kDdnsConflicts, "", LogLine::None, "", "", daemon_count<&D::ddns_conflicts>},
      {.family = &kDdnsFailed, .labels = "cause",
       .by_name = [](const Reading& r) -> const NamedCounts& { return r.daemon.ddns_failed_by_cause; }},
      {&kDdnsPending, "", LogLine::None, "", "", daemon_count<&D::ddns_pending>},
      {&kDdnsSent, "", LogLine::None, "", "", daemon_count<&D::ddns_messages_sent>},
  };
  for (auto& row : more) rows.push_back(std::move(row));
  return rows;
}

}  // namespace

std::string_view log_line_prefix(LogLine line) {
  switch (line) {
    case LogLine::Counters: return "counters";
    case LogLine::Admission: return "admission";
    case LogLine::None: break;
  }
  return "";
}

const std::vector<CounterRow>& counter_table() {
  static const std::vector<CounterRow> table = make_table();
  return table;
}

std::string counter_log_line(LogLine line, const CounterReading& reading) {
  std::string text{log_line_prefix(line)};
  text += ':';
  for (const CounterRow& row : counter_table()) {
    if (row.log == line) fmt::format_to(std::back_inserter(text), " {}={}", row.log_name, row.count(reading));
  }
  return text;
}

}  // namespace landlord::control
