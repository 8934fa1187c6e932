#pragma once
// The deterministic simulation (docs/testing.md): the real engine and the real simulated
// fleet in one process under virtual time, the wire codec on every packet both ways, a lossy
// network between them, commit-then-ack by the daemon's own durability machine
// (durability/machine.hpp) in front of a lease store, crash-restarts of the server, and
// invariants checked as it runs. Everything random is drawn from one seed, so a failure
// replays exactly from it.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "invariants.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/config/config.hpp"
#include "landlord/durability/machine.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/sim/fleet.hpp"
#include "landlord/store/lease_store.hpp"
#include "lossy_network.hpp"

namespace landlord::simulation {

using namespace std::chrono_literals;

inline constexpr Ipv4 kServerAddress{198, 18, 0, 1};  // the server's interface address
inline constexpr TimePoint kSimulationEpoch = time_from_unix_ms(1'800'000'000'000);  // virtual t0

enum class StoreKind : std::uint8_t { Memory, Sqlite };

struct SimulationOptions {
  std::uint64_t seed = 1;
  sim::Workload workload;  // its seed is derived from `seed`
  Duration lease_time = 10min;
  Duration offer_hold = 30s;  // short holds race REQUESTs delayed or retransmitted
  bool authoritative = true;
  Cidr subnet{Ipv4{198, 18, 0, 0}, 21};  // holds kServerAddress
  config::AddressRange pool{Ipv4{198, 18, 0, 10}, Ipv4{198, 18, 7, 250}};

  LinkFaults to_server, to_clients;
  // The store answers a batch of the durability machine a uniform draw in [min, max] after it
  // was handed out, and never before the previous one (the commit queue is FIFO); batches
  // due together commit in one transaction, as the daemon's group commit does.
  Duration commit_delay_min{1};
  Duration commit_delay_max{20};

  // A commit transaction fails (memory store only: its fault injection) with this
  // probability: the machine drops its replies and retries its records, `commit_retry` later
  // (its back-off doubles to twice that).
  double store_failure = 0;
  Duration commit_retry = 1s;
  // Every commit in this window (from the start of the run) fails as a full disk does (memory
  // store only): the machine acknowledges nothing until it ends, then writes its backlog.
  std::optional<sim::Window> store_outage;

  // A rival server sharing the store, as a peer on PostgreSQL does: at this rate it grants an
  // address this server has free or on offer to a client of its own, writing straight to the
  // store with the next fencing token (the race of two servers granting one address). This
  // server learns of it from the store's feed (Engine::observe) up to `rival_feed_lag_max`
  // later; until then a grant of its own on that address must be refused by token, and never
  // acknowledged. Memory or SQLite store alike: the store's own rule arbitrates.
  double rival_grants_per_hour = 0;
  Duration rival_feed_lag_max = 30s;

  // Server crashes: the engine and every uncommitted reply are thrown away; after the
  // downtime (packets to the server are lost meanwhile) a new engine is rebuilt from the store.
  double crashes_per_hour = 0;
  Duration downtime_max = 5s;
  Duration uptime_min = 10s;  // between a restart and the next crash

  StoreKind store = StoreKind::Memory;
  std::string sqlite_path;  // StoreKind::Sqlite: a fresh file, removed by the caller

  // A deliberately broken pipeline that acknowledges before the commit: the checks must
  // catch it once crashes lose what was acknowledged (the test that proves they can fail).
  bool ack_before_commit = false;
  // A deliberately broken pipeline that acknowledges a grant the store refused for a stale
  // token: the checks must catch it once a rival server writes first.
  bool ack_refused_grants = false;
  // A deliberately late reclaimer, run this long after next_deadline(): the expiry checks
  // must catch it.
  Duration reclaim_late_by{0};

  // Replaying a failure: print every request, reply and commit about this address, and each
  // crash and restart, as they happen.
  std::optional<Ipv4> trace_address;

  Duration audit_interval = 30s;   // full-table checks; cheaper ones run on every event
  std::size_t reclaim_batch = 64;  // reclaim(now, max): bounded passes, as the daemon does
};

struct SimulationReport {
  std::uint64_t seed = 0;
  Duration virtual_time{0};
  double wall_seconds = 0;
  // Of every delivered packet and commit: equal runs, equal digests. FNV-1a's offset basis.
  std::uint64_t digest = 0xcbf29ce484222325ull;

  sim::Stats fleet;
  std::vector<sim::Violation> auditor_violations;
  std::size_t auditor_violation_count = 0;
  std::vector<Finding> findings;  // server-side invariants
  std::size_t finding_count = 0;

  engine::Counters engine;  // summed over every engine the run built
  std::size_t crashes = 0, commits = 0, failed_commits = 0, records_committed = 0, audits = 0,
              agreement_checks = 0, lost_to_crashes = 0, lost_while_down = 0,
              undeliverable = 0,  // replies to a ciaddr nobody had any more
              out_of_order_refusals = 0,  // refused behind a failed earlier record: no violation
              rival_grants = 0,      // a rival's writes that the store took
              rival_lost_races = 0,  // a rival's writes the store refused (ours came first)
              rival_fenced = 0,      // our writes refused because a rival's came first
              answered_from_durable = 0,  // renewals ACKed from the durable lease in an outage
              reboots_answered_from_durable = 0;  // INIT-REBOOTs so answered
  NetworkCounters to_server, to_clients;

  bool clean() const { return auditor_violation_count == 0 && finding_count == 0; }
  double virtual_hours_per_wall_second() const;
  // Counters on one line, then every violation on its own.
  std::string summary() const;
};

class Simulator {
 public:
  explicit Simulator(SimulationOptions options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Runs the workload's duration plus one lease time (so the last leases end on the server).
  SimulationReport run();

 private:
  class ClientSide;
  // A batch the durability machine handed out, waiting for the store.
  struct StoreBatch {
    std::uint64_t id;
    std::vector<lease::Lease> records;
    TimePoint commit_at;
  };

  config::Config make_config() const;
  TimePoint fleet_end() const { return start_ + options_.workload.duration; }
  bool step(TimePoint end);
  void finish();
  void open_store();
  void start_engine(TimePoint now);
  void crash(TimePoint now);
  void schedule_crash(TimePoint after);
  void schedule_rival(TimePoint after);
  void rival_grant(TimePoint now);
  void deliver_feed();
  std::optional<Ipv4> rival_target();

  void on_client_transmission(sim::Transmission& transmission);
  void deliver(Datagram datagram);
  void serve(const Datagram& datagram);
  std::optional<Datagram> encode_reply(const engine::Reply& reply);
  void send_reply(const engine::Reply& reply);
  void drive();  // the machine's Ready: replies to the network, batches to the store
  void commit_due();
  bool idle() const { return machine_ && machine_->idle() && store_queue_.empty(); }
  void reclaim_due();
  void audit();
  void check_free_set(Ipv4 address);
  void check_agreement();
  StoreSnapshot snapshot();
  void fold_engine_counters();
  bool traced(Ipv4 address) const { return options_.trace_address == address; }
  void trace_exchange(const wire::Message& request, const engine::Outcome& outcome);
  void trace(const std::string& line) const;
  void mix(std::uint64_t value);

  SimulationOptions options_;
  config::Config config_;
  TimePoint start_;
  TimePoint now_;
  sim::Random random_;  // the server side's choices: commit delays, crash times
  sim::Random rival_random_;  // the rival's own draws: other seeds' runs stay as they were
  sim::Fleet fleet_;
  std::unique_ptr<ClientSide> client_side_;
  LossyNetwork network_;
  std::unique_ptr<store::LeaseStore> store_;
  std::unique_ptr<engine::Engine> engine_;  // null while the server is down
  std::optional<TimePoint> restart_at_;
  std::optional<TimePoint> crash_at_;
  std::optional<TimePoint> rival_at_;
  std::multimap<TimePoint, lease::Lease> feed_;  // the rival's writes, due at this server
  // Reclaim passes at one instant; beyond a bound the engine's deadline is stuck in the past.
  TimePoint reclaim_instant_;
  std::size_t reclaim_passes_ = 0;
  std::optional<TimePoint> reclaim_stuck_at_;
  std::unique_ptr<durability::Machine> machine_;  // null while the server is down
  durability::Ready ready_;
  std::deque<StoreBatch> store_queue_;
  TimePoint last_commit_at_;
  TimePoint next_audit_;
  bool agreement_due_ = false;
  Invariants invariants_;
  SimulationReport report_;
};

// LANDLORD_SIM_TRACE=<address>: the address to trace, if any.
std::optional<Ipv4> trace_address_from_environment();

// Reads LANDLORD_SIM_SEED (one seed) or LANDLORD_SIM_SEEDS (how many, from
// LANDLORD_SIM_FIRST_SEED or 1): the seed sweep's list. Without either, `default_count` seeds
// from 1. A value that is not a whole number, or a count of 0, is an error.
Expected<std::vector<std::uint64_t>, std::string> seeds_from_environment(std::size_t default_count);

}  // namespace landlord::simulation
