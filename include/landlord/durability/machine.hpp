#pragma once
// Commit-then-ack as a sans-I/O state machine (etcd-io/raft's Ready/Advance): the rule that
// no reply whose outcome changed leases leaves before those records are durable, and that a
// failed or stale write is never acknowledged, lives here and only here. The daemon
// (server/) and the deterministic simulation (tests/simulation) both drive this code; they
// bring the I/O: a store, a clock, timers, sockets.
//
//   propose()    an engine outcome: a reply without records is released at once; one with
//                records is held in a slot and its records join the next batch.
//   ready()      Ready: the replies released since the last call (send, or drop and why),
//                the next batch of records to write, and what to tell the operator.
//   committed()  Advance: the store's answer for a batch, in the order batches were handed
//                out. Written: the batch's replies are released to be sent. A stale fencing
//                token: no reply for the outcome it belongs to, and the engine is corrected
//                (Engine::refused). A failed commit: no reply, the records wait in a backlog
//                retried with back-off until written, and while the store fails new outcomes
//                are not acknowledged either (their records join the backlog).
//                A grant whose ACK is dropped so waits as a shorter lease: its address is held
//                no longer than an offer would hold it (Outcome::unacknowledged_until), unless
//                its client asks again; the engine takes the shorter lease when it is written.
//                While the store fails, a RENEWING (or REBINDING) client whose lease is durable
//                is answered all the same, with an ACK cut to what remains of that durable
//                lease (Verdict::DurableRemainder): the ACK promises nothing the store does
//                not hold already, so it needs no write (docs/durability.md). So is a client
//                in INIT-REBOOT asking for that same lease on its link
//                (engine::Outcome::reboot_of_held).
//                A batch the committer cannot take now (not_taken(): its queue is full) is
//                dropped the same way, without marking the store as failing.
//   next_retry() when to call ready() again for a retry: the caller's timer. A backlog is
//                retried in batches of at most Options::retry_batch_max records.
//
// No threads, no Asio, no clock: time is a parameter. Nothing here logs.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::durability {

using CommitResult = Expected<std::vector<store::WriteResult>, store::StoreError>;

// Who asked, and on which link: what the caller logs and routes by when a reply is released.
struct Origin {
  HardwareAddress hardware;
  ClientId client_id;
  Ipv4 giaddr;
  std::uint32_t ingress_index = 0;
  // The caller's own, carried back untouched: when the request arrived (for its latency
  // figures) and which operator's change this is (0: none).
  std::chrono::steady_clock::time_point received{};
  std::uint64_t change_id = 0;
};

enum class Verdict : std::uint8_t {
  Send,         // durable, or nothing to persist: send the reply (if any), log the event
  StaleToken,   // the store holds a newer holder: no reply; the engine was corrected
  Unavailable,  // the store failed or is failing: no reply (the client asks again)
  // The store is failing, but the reply is a renewal's ACK whose lease time, T1 and T2 were
  // cut to what remains of the client's durable lease: send it. Its records still wait for
  // the store (`records`: not durable, not to be published).
  DurableRemainder,
};
std::string_view to_string(Verdict verdict);

// A proposal the machine lets go of. Its pointers and span stay valid until the next
// ready(): the reply is built in place, in the machine's slot, and is not copied.
struct Release {
  Verdict verdict = Verdict::Send;
  const engine::Reply* reply = nullptr;  // none for RELEASE, DECLINE and reclaimed records
  engine::Event event;
  Origin origin;
  std::span<const lease::Lease> records;  // its records (a grant's, the reclaimed ones)
  bool reclaimed = false;  // from propose_reclaimed(): `records` expired or freed
  bool reboot = false;     // an INIT-REBOOT confirming the client's lease (Outcome::reboot_of_held)
  // Unavailable because the committer could not take the batch (its queue was full: not_taken()),
  // not because the store failed: the store may be healthy; the records wait for a retry.
  bool not_taken = false;
};

// A batch to write. Its records are the machine's own, lent, not copied: the span stays valid
// and unchanged until the batch is answered (committed() or not_taken()) and the next ready()
// after that, so a committer may read it from another thread until it reports its answer.
struct Batch {
  std::uint64_t id = 0;
  std::span<const lease::Lease> records;
  bool retry = false;  // the backlog of a failing store, not new outcomes
};

enum class NoticeKind : std::uint8_t {
  StoreFailed,     // a commit failed: `message` is the store's error
  StoreRecovered,  // the backlog is written: acknowledging again
};
struct Notice {
  NoticeKind kind = NoticeKind::StoreFailed;
  std::string message;
  std::size_t records = 0;  // waiting (StoreFailed) or written (StoreRecovered)
};

struct Ready {
  std::vector<Release> released;  // in the order they were decided
  std::vector<Batch> batches;     // to the store, in this order; then committed(id, result)
  std::vector<Notice> notices;
  bool empty() const { return released.empty() && batches.empty() && notices.empty(); }
};

struct Options {
  // Retries of a failing store back off from retry_first, doubling to retry_max: short, so
  // the first ACK after a fault clears comes within about a second.
  Duration retry_first = std::chrono::milliseconds{50};
  Duration retry_max = std::chrono::seconds{1};
  // Other servers write the same store (PostgreSQL): while it fails here, a REBINDING client
  // (broadcasting to any server) is left to them, which can extend its lease for real.
  bool shared_store = false;
  // Records per retry batch at most (whole chains of an address, at least one): a backlog is
  // retried in pieces a committer can take, since one batch larger than the committer's queue
  // would be refused at every retry, forever (store::CommitQueueOptions::capacity_records).
  std::size_t retry_batch_max = 4096;
};

struct Counters {
  std::uint64_t batches = 0, commits = 0, records_written = 0, stale_refusals = 0,
                store_failures = 0, not_taken = 0, replies_dropped_store_down = 0,
                engine_corrections = 0,
                grants_shortened = 0,  // unacknowledged grants written as the shorter lease
                // renewals and rebinds ACKed from the durable lease while the store failed,
                // and INIT-REBOOTs so answered
                answered_from_durable = 0, reboots_answered_from_durable = 0;
  // store_failures by the store's StoreError::Kind (full disk, read-only, locked, ...).
  std::array<std::uint64_t, store::StoreError::kKinds> store_failures_by_kind{};
};

class Machine {
 public:
  explicit Machine(Options options = {});
  // open_ and the queues point into batches_: a copy would point into the original. A move
  // keeps them right (a deque's move hands its blocks over; its elements stay where they are).
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
  Machine(Machine&&) = default;
  Machine& operator=(Machine&&) = default;

  // An outcome of engine.handle(). Without mutations nothing waits: returns false and leaves
  // the outcome alone (the caller sends its reply now). With mutations it takes the outcome
  // (its reply waits for them) and returns true.
  bool propose(engine::Outcome& outcome, const Origin& origin);
  // Records of engine.reclaim(): no reply; released (with the records) once durable.
  void propose_reclaimed(std::vector<lease::Lease> records);

  // Ready: what to do now. Fills `out` (cleared first, capacity kept). A batch is handed out
  // once; more than one may be in flight, answered in order. What the previous call released
  // is recycled here (Advance): act on a Ready before asking for the next.
  void ready(TimePoint now, Ready& out);

  // Advance: the store's answer for batch `id` (the oldest in flight). On success the result
  // has one entry per record handed out, in order: anything else stops the process. Stale
  // writes are turned into engine.refused() corrections.
  void committed(std::uint64_t id, CommitResult result, engine::Engine& engine, TimePoint now);
  // The store could not take batch `id` now (its queue is full): as a failed commit, without
  // marking the store as failing.
  void not_taken(std::uint64_t id, TimePoint now);

  // Whether ready(now) would hand out anything: lets a caller skip it after a turn that
  // changed nothing (what was released before is recycled at the next ready() anyway).
  bool has_ready(TimePoint now) const {
    return !released_.empty() || !notices_.empty() || !open_->records.empty() ||
           (retry_at_ && *retry_at_ <= now && !retry_in_flight_ && !backlog_.empty());
  }

  // A shared store's feed brought a record of `address` (another server wrote it): what this
  // machine knew of the store's lease there no longer holds, so no renewal is answered from it.
  void observed(Ipv4 address);

  // When ready() has a retry to hand out, if ever; nothing else needs a timer.
  std::optional<TimePoint> next_retry() const;
  // Shutting down: retry the backlog at the next ready(), not at the back-off's time.
  void retry_now();

  bool healthy() const { return healthy_; }
  std::size_t batches_in_flight() const { return in_flight_.size(); }
  std::size_t backlog_size() const;  // records waiting for a retry
  // Proposals whose records are not answered yet (released ones are not waiting).
  std::size_t waiting_replies() const {
    return slots_.size() - free_slots_.size() - releasing_.size();
  }
  // Nothing proposed, in flight or waiting for a retry: the engine and the store agree.
  bool idle() const {
    return in_flight_.empty() && backlog_.empty() && open_->records.empty() && released_.empty() &&
           waiting_replies() == 0;
  }
  const Counters& counters() const { return counters_; }

 private:
  // A proposal waiting for its records, in a reused slot (a reply holds a whole Message).
  struct Held {
    std::optional<engine::Reply> reply;
    engine::Event event;
    Origin origin;
    bool reclaimed = false;
    std::optional<TimePoint> unacknowledged_until, held_until;  // a grant's (engine::Outcome)
    bool reboot_of_held = false;                                // engine::Outcome's
  };
  // A batch out at the store: its records, and for each proposal the range of its records.
  struct Part {
    std::uint32_t slot;
    std::uint32_t first, count;
    std::uint64_t sequence;  // proposal order: a later record for an address supersedes it
  };
  struct InFlight {
    std::uint64_t id = 0;
    std::vector<lease::Lease> records;
    std::vector<Part> parts;
    std::vector<std::uint64_t> sequences;  // retry batches: each record's own
    std::vector<std::optional<lease::Lease>> granted;  // retry batches: Waiting::granted
    bool retry = false;
  };
  struct Waiting {
    std::uint64_t sequence;
    lease::Lease record;
    // A dropped grant's record as the engine made it, when `record` is its shorter version.
    std::optional<lease::Lease> granted;
    // Until when the store holds a bound lease of this record's client on its address whether
    // or not this record (and the chain's older ones) get written: known only for a record
    // proposed while nothing else was on its way for the address.
    std::optional<TimePoint> durable_until;
  };

  std::uint32_t hold(engine::Outcome& outcome, const Origin& origin, bool reclaimed);
  void release(std::uint32_t slot, Verdict verdict, std::span<const lease::Lease> records,
               bool not_taken = false);
  void take(engine::Outcome& outcome, const Origin& origin, bool reclaimed);
  void keep_for_retry(std::uint64_t sequence, const lease::Lease& record);
  InFlight& spare_batch();  // an empty batch: a spare one, or a new one in batches_
  void wait(Waiting waiting);  // into its address's chain, in proposal order
  // Whether a refused record of `part` was refused only because older records for its
  // address still wait in the backlog (written out of order, not fenced).
  bool behind_backlog(const InFlight& batch, const Part& part,
                      const std::vector<store::WriteResult>& results) const;
  // A dropped proposal's records to the backlog: a grant's as the shorter lease.
  void keep_unacknowledged(std::uint64_t sequence, std::span<const lease::Lease> records,
                           const Held& held,
                           std::optional<TimePoint> durable_until = std::nullopt);
  // The end of the bound lease the store holds for the client of an outcome proposed now
  // (`record`, its only record), if the machine can know it: nothing else is on its way for
  // the address, so the engine's lease before this outcome (held.held_until) is durable, or
  // what waits for the address is this client's own and carries it.
  std::optional<TimePoint> durable_end(const lease::Lease& record, const Held& held) const;
  // Cuts the held ACK to end at `durable_until`; false if it cannot be answered so.
  bool cut_to_durable(Held& held, const lease::Lease& record, TimePoint durable_until) const;
  // Not written: records to the backlog, replies dropped (not_taken: the committer's queue was full).
  void drop_parts(InFlight& batch, bool not_taken = false);
  void failed(const store::StoreError& error, TimePoint now);
  void retry_answered(InFlight& batch, const CommitResult& result, engine::Engine& engine,
                      TimePoint now);
  bool written(const lease::Lease& record, store::WriteResult result, engine::Engine& engine,
               TimePoint now, const std::optional<lease::Lease>& granted = std::nullopt);
  void forget_superseded(std::uint64_t sequence, const lease::Lease& record);
  void schedule_retry(TimePoint now);
  void maybe_recovered(std::size_t records);

  Options options_;
  bool healthy_ = true;
  bool retry_in_flight_ = false;
  Duration retry_delay_;
  std::optional<TimePoint> retry_at_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t next_batch_ = 1;
  // Every batch lives in batches_ (a deque: they never move) and is reused: open, in flight,
  // answered, spare, open again. The queues hold pointers, so a batch's vectors keep their
  // capacity and nothing is moved from queue to queue.
  std::deque<InFlight> batches_;
  InFlight* open_ = nullptr;  // the batch being filled by proposals
  std::size_t largest_batch_ = 0;  // records in the largest batch yet: room made when one grows
  std::deque<InFlight*> in_flight_;
  // By address, in proposal order: the newest record of each holder in turn. A change of
  // holder keeps the previous holder's last record (its release or expiry) ahead of the new
  // grant, because a store refuses a grant over another client's running lease.
  std::map<Ipv4, std::vector<Waiting>> backlog_;
  std::deque<Held> slots_;           // a deque: slots never move
  std::vector<std::uint32_t> free_slots_;
  std::vector<Release> released_;
  std::vector<std::uint32_t> releasing_;  // slots of released_, freed at the next ready()
  std::vector<InFlight*> answered_;        // batches released_ points into, until then
  std::vector<InFlight*> spare_;           // emptied batches, their vectors' capacity kept
  std::vector<Notice> notices_;
  Counters counters_;
};

}  // namespace landlord::durability
