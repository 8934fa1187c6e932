#include "simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "landlord/store/memory_lease_store.hpp"
#include "landlord/store/sqlite_lease_store.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::simulation {

namespace {

constexpr std::size_t kReclaimPassesPerInstant = 100'000;  // beyond this the engine is stuck

void add(engine::Counters& total, const engine::Counters& more) {
  total.discovers += more.discovers;
  total.offers += more.offers;
  total.requests += more.requests;
  total.grants += more.grants;
  total.renewals += more.renewals;
  total.rebinds += more.rebinds;
  total.naks += more.naks;
  total.declines += more.declines;
  total.releases += more.releases;
  total.informs += more.informs;
  total.expirations += more.expirations;
  total.ignored += more.ignored;
  total.pool_exhausted += more.pool_exhausted;
  total.fenced += more.fenced;
  total.learned += more.learned;
}

void earliest(std::optional<TimePoint>& next, std::optional<TimePoint> candidate) {
  if (candidate && (!next || *candidate < *next)) next = candidate;
}

}  // namespace

// The fleet's Sink: every client transmission enters the network here.
class Simulator::ClientSide final : public sim::Sink {
 public:
  explicit ClientSide(Simulator& simulator) : simulator_(simulator) {}
  void send(sim::Transmission& transmission) override {
    simulator_.on_client_transmission(transmission);
  }

 private:
  Simulator& simulator_;
};

Simulator::Simulator(SimulationOptions options)
    : options_([&] {
        options.workload.seed = sim::derive_seed(options.seed, 0x3041);
        return options;
      }()),
      config_(make_config()),
      start_(kSimulationEpoch),
      now_(kSimulationEpoch),
      random_(sim::derive_seed(options_.seed, 0x5e4)),
      rival_random_(sim::derive_seed(options_.seed, 0x71a1)),
      fleet_(options_.workload, kSimulationEpoch),
      client_side_(std::make_unique<ClientSide>(*this)),
      network_(options_.seed, options_.to_server, options_.to_clients),
      last_commit_at_(kSimulationEpoch),
      next_audit_(kSimulationEpoch + options_.audit_interval),
      // A record due in the store waits for its commit, and may wait for a restart and a few
      // retries of failed transactions: nothing more.
      invariants_(options_.commit_delay_max + Duration{1} +
                  (options_.crashes_per_hour > 0 ? options_.downtime_max : Duration{0}) +
                  (options_.store_failure > 0 ? 4 * options_.commit_retry : Duration{0}) +
                  // nothing is written during an outage, expirations included
                  (options_.store_outage ? options_.store_outage->length : Duration{0})) {
  report_.seed = options_.seed;
}

Simulator::~Simulator() = default;

config::Config Simulator::make_config() const {
  config::Config config;
  config.source = "simulation";
  config.server.authoritative = options_.authoritative;
  config.store.type = config::StoreSection::Type::Memory;
  config.lease.time = options_.lease_time;
  config.lease.offer_hold = options_.offer_hold;
  config::Subnet subnet;
  subnet.id = 1;
  subnet.subnet = options_.subnet;
  subnet.pools = {options_.pool};
  subnet.options = {{wire::option::kRouters, {198, 18, 0, 1}},
                    {wire::option::kDnsServers, {198, 18, 0, 53}}};
  subnet.lease = config.lease;
  config.subnets = {subnet};
  return config;
}

SimulationReport Simulator::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  // After the fleet stops, every lease must end on the server: one lease time (or decline
  // hold) and a minute for what was in flight.
  const TimePoint end =
      fleet_end() + std::max(options_.lease_time, config_.lease.decline_hold) + 1min;
  start_engine(now_);
  schedule_rival(now_);
  while (step(end)) {
  }
  now_ = end;
  finish();
  report_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report_;
}

// One piece of work: the earliest due, in a fixed order at equal times (determinism).
bool Simulator::step(TimePoint end) {
  const auto fleet_due = [&]() -> std::optional<TimePoint> {
    const auto due = fleet_.next_deadline();
    if (due && *due < fleet_end()) return due;
    return std::nullopt;
  }();
  const auto commit_due_at = store_queue_.empty()
                                 ? std::nullopt
                                 : std::optional<TimePoint>(store_queue_.front().commit_at);
  const auto retry_at = machine_ ? machine_->next_retry() : std::nullopt;
  std::optional<TimePoint> reclaim_at = engine_ ? engine_->next_deadline() : std::nullopt;
  if (reclaim_at) *reclaim_at += options_.reclaim_late_by;
  if (reclaim_at && reclaim_stuck_at_ && *reclaim_at <= *reclaim_stuck_at_) {
    reclaim_at = *reclaim_stuck_at_ + Duration{1};
  }
  std::optional<TimePoint> next;
  const auto feed_due = feed_.empty() ? std::nullopt
                                      : std::optional<TimePoint>(feed_.begin()->first);
  for (const auto& candidate : {restart_at_, network_.next_due(), commit_due_at, retry_at,
                                reclaim_at, fleet_due, crash_at_, rival_at_, feed_due,
                                std::optional<TimePoint>(next_audit_)}) {
    earliest(next, candidate);
  }
  if (!next || *next > end) return false;
  now_ = std::max(now_, *next);

  const auto due = [&](const std::optional<TimePoint>& at) { return at && *at <= now_; };
  if (due(restart_at_)) {
    restart_at_.reset();
    if (options_.trace_address) trace("restart from the store");
    start_engine(now_);
  } else if (due(network_.next_due())) {
    deliver(network_.take());
  } else if (due(commit_due_at)) {
    commit_due();
  } else if (due(retry_at)) {
    drive();
  } else if (due(reclaim_at)) {
    reclaim_due();
  } else if (due(fleet_due)) {
    fleet_.advance(now_, sim::Fleet::as_ns(now_), *client_side_);
  } else if (due(crash_at_)) {
    crash(now_);
  } else if (due(rival_at_)) {
    rival_grant(now_);
  } else if (due(feed_due)) {
    deliver_feed();
  } else {
    audit();
    next_audit_ += options_.audit_interval;
  }
  return true;
}

// The end: every check once more, every lease over, and the report filled in.
void Simulator::finish() {
  audit();
  if (engine_ && idle()) check_agreement();
  for (const auto& [address, record] : snapshot()) {
    if (record.state == lease::LeaseState::Bound || record.state == lease::LeaseState::Declined) {
      invariants_.report(now_, "not-drained",
                         fmt::format("{} still held after every client stopped and its lease "
                                     "time passed",
                                     describe(record)));
    }
  }
  fold_engine_counters();
  report_.virtual_time = now_ - start_;
  report_.fleet = fleet_.stats();
  report_.auditor_violations = fleet_.auditor().violations();
  report_.auditor_violation_count = fleet_.auditor().violation_count();
  if (report_.fleet.unparsable > 0) {
    invariants_.report(
        now_, "codec",
        fmt::format("the fleet could not parse {} replies", report_.fleet.unparsable));
  }
  report_.findings = invariants_.findings();
  report_.finding_count = invariants_.count();
  report_.out_of_order_refusals = invariants_.out_of_order_refusals();
  report_.rival_fenced = invariants_.rival_fenced();
  report_.to_server = network_.counters(Direction::ToServer);
  report_.to_clients = network_.counters(Direction::ToClients);
}

// ---- the server: store, engine, crashes

void Simulator::open_store() {
  if (options_.store == StoreKind::Memory) {
    store_ = std::make_unique<store::MemoryLeaseStore>();
    return;
  }
  store_.reset();  // the old connection closes first, as a dead process's would
  auto opened = store::SqliteLeaseStore::open({options_.sqlite_path});
  if (!opened) {
    throw std::runtime_error("cannot open the simulation's SQLite store: " +
                             opened.error().message);
  }
  store_ = std::move(*opened);
}

// Start-up as the daemon does it: the store opened (SQLite: a new connection to the file),
// every stored record restored before the first packet.
void Simulator::start_engine(TimePoint now) {
  if (!store_ || options_.store == StoreKind::Sqlite) open_store();
  engine_ = std::make_unique<engine::Engine>(config_);
  // The daemon's machine, with the simulation's retry time: a failing store is retried after
  // commit_retry, backing off to twice that.
  // A rival writing the same store is a PostgreSQL peer: the daemon's machine then leaves
  // rebinding clients to it during an outage.
  machine_ = std::make_unique<durability::Machine>(durability::Options{
      options_.commit_retry, 2 * options_.commit_retry, options_.rival_grants_per_hour > 0});
  const auto loaded =
      store_->load([&](lease::Lease&& record) { engine_->restore(std::move(record)); });
  if (!loaded) invariants_.report(now, "store-error", loaded.error().message);
  // The store kept every commit, and what was restored is exactly what is stored.
  const StoreSnapshot records = snapshot();
  invariants_.check_store_keeps_commits(records, now);
  invariants_.check_engine_matches_store(*engine_, records, now);
  ++report_.agreement_checks;
  schedule_crash(now);
}

void Simulator::schedule_crash(TimePoint after) {
  if (options_.crashes_per_hour <= 0) return;
  const double mean_ms = 3'600'000.0 / options_.crashes_per_hour;
  const double wait_ms = -std::log(1.0 - random_.unit()) * mean_ms;
  const TimePoint at = after + options_.uptime_min + Duration{static_cast<std::int64_t>(wait_ms)};
  if (at < start_ + options_.workload.duration) crash_at_ = at;
}

// The process dies: its memory, its offer holds and every reply still waiting for its commit
// are gone. What was committed stays in the store (SQLite: the connection is closed too).
void Simulator::crash(TimePoint now) {
  const std::size_t lost = store_queue_.size() + (machine_->backlog_size() > 0 ? 1 : 0);
  if (options_.trace_address) trace(fmt::format("crash: {} uncommitted batches lost", lost));
  ++report_.crashes;
  invariants_.on_crash();
  mix(0xc4a54);
  fold_engine_counters();
  engine_.reset();
  machine_.reset();
  report_.lost_to_crashes += lost;
  store_queue_.clear();
  feed_.clear();  // the new engine reads the rival's writes from the store
  crash_at_.reset();
  restart_at_ = now + Duration{random_.between(1, options_.downtime_max.count())};
}

// ---- the rival server

void Simulator::schedule_rival(TimePoint after) {
  rival_at_.reset();
  if (options_.rival_grants_per_hour <= 0) return;
  const double mean_ms = 3'600'000.0 / options_.rival_grants_per_hour;
  const double wait_ms = -std::log(1.0 - rival_random_.unit()) * mean_ms;
  const TimePoint at = after + Duration{static_cast<std::int64_t>(wait_ms) + 1};
  if (at < fleet_end()) rival_at_ = at;
}

// An address the rival may grant, whose last rival write this server has seen: one this
// server has on offer (the race the fence is for), one it has free, or any address of the pool
// (one this server holds is refused by the store, unless this server's grant is still on its
// way there: then the rival wins and this server's write is the one refused).
std::optional<Ipv4> Simulator::rival_target() {
  const auto unseen = [&](Ipv4 address) {
    return std::any_of(feed_.begin(), feed_.end(),
                       [&](const auto& entry) { return entry.second.address == address; });
  };
  const double kind = rival_random_.unit();
  if (kind < 0.4) {
    std::vector<Ipv4> offered;
    engine_->for_each_lease([&](const lease::Lease& lease) {
      if (lease.state == lease::LeaseState::Offered) offered.push_back(lease.address);
    });
    if (offered.empty()) return std::nullopt;
    const Ipv4 address = offered[static_cast<std::size_t>(
        rival_random_.between(0, static_cast<std::int64_t>(offered.size()) - 1))];
    return unseen(address) ? std::nullopt : std::optional<Ipv4>(address);
  }
  for (int attempt = 0; attempt < 20; ++attempt) {
    const Ipv4 address{options_.pool.first.to_uint() +
                       static_cast<std::uint32_t>(rival_random_.between(
                           0, static_cast<std::int64_t>(options_.pool.size()) - 1))};
    const auto record = engine_->find(address);
    const bool free = !record || record->state == lease::LeaseState::Expired ||
                      record->state == lease::LeaseState::Released;
    if ((free || kind >= 0.7) && !unseen(address)) return address;
  }
  return std::nullopt;
}

// The rival grants an address to a client of its own: a conditional write with the next token,
// as a peer's would be. The store decides; this server hears of it through the feed.
void Simulator::rival_grant(TimePoint now) {
  schedule_rival(now);
  if (!engine_) return;
  const auto address = rival_target();
  if (!address) return;
  lease::Lease record;
  record.address = *address;
  const std::uint32_t number = static_cast<std::uint32_t>(report_.rival_grants +
                                                          report_.rival_lost_races);
  const std::array<std::uint8_t, 6> mac{0x02, 0x52, 0x49,  // locally administered: "RI"
                                        static_cast<std::uint8_t>(number >> 16),
                                        static_cast<std::uint8_t>(number >> 8),
                                        static_cast<std::uint8_t>(number)};
  record.hardware = HardwareAddress(HardwareAddress::kEthernet, mac);
  record.client = ClientKey::from({}, record.hardware);
  record.state = lease::LeaseState::Bound;
  record.subnet_id = 1;
  record.granted_at = now;
  record.lease_time = options_.lease_time;
  record.renew_time = options_.lease_time / 2;
  record.rebind_time = options_.lease_time * 7 / 8;
  record.fencing_token = invariants_.store_token(*address) + 1;
  const std::vector<lease::Lease> batch{record};
  const auto results = store_->commit(batch);
  if (!results) {
    invariants_.report(now, "store-error", results.error().message);
    return;
  }
  if (options_.trace_address) trace(fmt::format("rival writes {}: {}", describe(record),
                                                results->front() == store::WriteResult::Written
                                                    ? "written"
                                                    : "refused"));
  mix(0x71a1 ^ record.address.to_uint());
  if (results->front() != store::WriteResult::Written) {
    ++report_.rival_lost_races;  // this server's record got there first: the rival backs off
    return;
  }
  ++report_.rival_grants;
  invariants_.on_rival_write(record);
  const Duration lag{rival_random_.between(0, options_.rival_feed_lag_max.count())};
  feed_.emplace(now + lag, record);
}

// The store's feed brings the rival's write to this server's engine.
void Simulator::deliver_feed() {
  const lease::Lease record = feed_.begin()->second;
  feed_.erase(feed_.begin());
  if (!engine_) return;
  machine_->observed(record.address);  // as the daemon's learn() does
  engine_->observe(record);
  invariants_.on_observed(record.address, now_);
  check_free_set(record.address);
}

// Called once per engine: when it crashes, or at the end of the run.
void Simulator::fold_engine_counters() {
  if (engine_) add(report_.engine, engine_->counters());
  if (machine_) {
    report_.answered_from_durable += machine_->counters().answered_from_durable;
    report_.reboots_answered_from_durable += machine_->counters().reboots_answered_from_durable;
  }
}

// ---- packets

void Simulator::on_client_transmission(sim::Transmission& transmission) {
  std::array<std::uint8_t, 1500> buffer{};
  const auto built = wire::build(transmission.message, buffer);
  if (!built) {
    invariants_.report(now_, "codec", "a client message did not encode");
    return;
  }
  const bool broadcast = transmission.destination == sim::Destination::Broadcast;
  if (!broadcast && transmission.server != kServerAddress) {
    invariants_.report(now_, "routing",
                       fmt::format("a client unicast to {}, which is not the server",
                                   transmission.server.to_string()));
    return;
  }
  Datagram datagram;
  datagram.direction = Direction::ToServer;
  datagram.payload.assign(buffer.begin(),
                          buffer.begin() + static_cast<std::ptrdiff_t>(built->size));
  datagram.to_broadcast = broadcast;
  datagram.source = transmission.message.ciaddr;
  network_.send(std::move(datagram), now_);
}

void Simulator::deliver(Datagram datagram) {
  mix(static_cast<std::uint64_t>(unix_ms(now_)) * 2 +
      static_cast<std::uint64_t>(datagram.direction));
  for (const std::uint8_t byte : datagram.payload) mix(byte);
  if (datagram.direction == Direction::ToClients) {
    if (datagram.to_address && fleet_.holder_of(*datagram.to_address) != datagram.chaddr) {
      ++report_.undeliverable;  // nobody, or another client, has that address now
      return;
    }
    fleet_.receive(datagram.payload, now_, sim::Fleet::as_ns(now_), *client_side_);
    return;
  }
  if (!engine_) {
    ++report_.lost_while_down;
    return;
  }
  serve(datagram);
}

void Simulator::serve(const Datagram& datagram) {
  const auto message = wire::parse(datagram.payload);
  if (!message) {
    invariants_.report(
        now_, "codec",
        fmt::format("a client message did not parse: {}", wire::to_string(message.error().kind)));
    return;
  }
  engine::Ingress ingress;
  ingress.interface_index = 1;
  ingress.interface_name = "sim0";
  ingress.interface_address = kServerAddress;
  ingress.source_address = datagram.source;
  ingress.source_port = engine::kClientPort;
  ingress.to_broadcast = datagram.to_broadcast;
  engine::Outcome outcome = engine_->handle(*message, ingress, now_);
  if (options_.trace_address) trace_exchange(*message, outcome);
  check_free_set(outcome.event.address);
  if (outcome.reply) check_free_set(outcome.reply->message.yiaddr);
  for (const lease::Lease& record : outcome.mutations) check_free_set(record.address);
  if (options_.ack_before_commit && outcome.reply && !outcome.mutations.empty()) {
    send_reply(*outcome.reply);  // the deliberately broken pipeline: the ACK does not wait
    outcome.reply.reset();
  }
  const durability::Origin origin{message->hardware_address(), message->client_id(),
                                  message->giaddr, ingress.interface_index, {}, 0};
  if (!machine_->propose(outcome, origin) && outcome.reply) send_reply(*outcome.reply);
  drive();
}

void Simulator::send_reply(const engine::Reply& reply) {
  if (auto datagram = encode_reply(reply)) network_.send(std::move(*datagram), now_);
}

// RFC 2131 §4.1 as the engine decided it; the in-process link then hands the reply to the
// client by chaddr, which is what the broadcast, the ciaddr unicast and the direct unicast to
// yiaddr all amount to on one link.
std::optional<Datagram> Simulator::encode_reply(const engine::Reply& reply) {
  const wire::Message& message = reply.message;
  const bool routed = [&] {
    switch (reply.route) {
      case engine::Route::Relay:
        return false;  // giaddr is always 0 here
      case engine::Route::Ciaddr:
        return !message.ciaddr.is_zero() && reply.destination == message.ciaddr;
      case engine::Route::Broadcast:
        return reply.destination == kBroadcast;
      case engine::Route::DirectToClient:
        return !message.yiaddr.is_zero() && reply.destination == message.yiaddr;
    }
    return false;
  }();
  if (!routed || reply.port != engine::kClientPort) {
    invariants_.report(
        now_, "routing",
        fmt::format("{} reply to {}:{} (ciaddr {}, yiaddr {})", engine::to_string(reply.route),
                    reply.destination.to_string(), reply.port, message.ciaddr.to_string(),
                    message.yiaddr.to_string()));
    return std::nullopt;
  }
  std::array<std::uint8_t, 1500> buffer{};
  const std::size_t limit = std::min<std::size_t>(reply.max_size, buffer.size());
  const auto built = wire::build(message, std::span(buffer.data(), limit));
  if (!built || built->omitted > 0) {
    invariants_.report(now_, "codec", "a server reply did not encode whole");
    return std::nullopt;
  }
  Datagram datagram;
  datagram.direction = Direction::ToClients;
  datagram.payload.assign(buffer.begin(),
                          buffer.begin() + static_cast<std::ptrdiff_t>(built->size));
  datagram.to_broadcast = reply.route == engine::Route::Broadcast;
  datagram.source = kServerAddress;
  if (reply.route == engine::Route::Ciaddr) datagram.to_address = reply.destination;
  datagram.chaddr = message.hardware_address();
  return datagram;
}

// ---- commit-then-ack: the durability machine decides, the simulation is its I/O

// The machine's Ready: released replies go to the network, batches to the store's queue.
void Simulator::drive() {
  machine_->ready(now_, ready_);
  for (const durability::Release& release : ready_.released) {
    const bool broken = options_.ack_refused_grants &&
                        release.verdict == durability::Verdict::StaleToken;
    // A renewal cut to its durable lease leaves during an outage: the client's lease must then
    // still be in the store (acked-lease-lost checks it like any other ACK).
    const bool sent = release.verdict == durability::Verdict::Send ||
                      release.verdict == durability::Verdict::DurableRemainder;
    if ((sent || broken) && release.reply != nullptr) {
      send_reply(*release.reply);
    }
  }
  for (const durability::Batch& batch : ready_.batches) {
    const Duration delay{
        random_.between(options_.commit_delay_min.count(), options_.commit_delay_max.count())};
    const TimePoint commit_at = std::max(last_commit_at_, now_ + delay);
    last_commit_at_ = commit_at;
    // A copy: the lent records are the machine's, and a simulated crash drops the machine
    // with batches still queued.
    store_queue_.push_back({batch.id, {batch.records.begin(), batch.records.end()}, commit_at});
  }
}

// Whatever is due commits in one transaction (group commit); the machine gets each batch's
// share of the answer, and releases the replies that are durable now.
void Simulator::commit_due() {
  std::vector<lease::Lease> transaction;
  std::vector<std::pair<std::uint64_t, std::size_t>> batches;  // id, record count
  while (!store_queue_.empty() && store_queue_.front().commit_at <= now_) {
    StoreBatch& batch = store_queue_.front();
    batches.emplace_back(batch.id, batch.records.size());
    transaction.insert(transaction.end(), std::make_move_iterator(batch.records.begin()),
                       std::make_move_iterator(batch.records.end()));
    store_queue_.pop_front();
  }
  if (batches.empty()) return;
  const bool full = options_.store_outage && options_.store_outage->contains(now_ - start_);
  const bool inject = options_.store == StoreKind::Memory && !transaction.empty() &&
                      (full || random_.chance(options_.store_failure));
  if (inject) {
    static_cast<store::MemoryLeaseStore&>(*store_).fail_next_commit_at(
        transaction.front().address,
        full ? store::StoreError{store::StoreError::Kind::Full, "injected: database or disk is full"}
             : store::StoreError{store::StoreError::Kind::Io, "injected: disk I/O error"});
  }
  const auto results = store_->commit(transaction);
  if (!results) {
    if (!inject) invariants_.report(now_, "store-error", results.error().message);
    invariants_.on_failed_commit(transaction);
    ++report_.failed_commits;
    // Nothing is durable: the machine drops the replies and keeps the records for its retry.
    for (const auto& [id, count] : batches) {
      machine_->committed(id, unexpected(results.error()), *engine_, now_);
    }
    drive();
    return;
  }
  invariants_.on_commit(transaction, *results, now_);
  for (std::size_t i = 0; options_.trace_address && i < transaction.size(); ++i) {
    if (!traced(transaction[i].address)) continue;
    trace(fmt::format(
        "commit {} {}", describe(transaction[i]),
        (*results)[i] == store::WriteResult::Written ? "written" : "REFUSED (stale)"));
  }
  ++report_.commits;
  report_.records_committed += transaction.size();
  for (const lease::Lease& record : transaction) {
    mix(record.address.to_uint());
    mix(record.fencing_token);
    mix(static_cast<std::uint64_t>(record.state));
  }
  auto result = results->begin();
  for (const auto& [id, count] : batches) {
    const auto share = static_cast<std::ptrdiff_t>(count);
    machine_->committed(id, std::vector<store::WriteResult>(result, result + share), *engine_,
                        now_);
    result += share;
  }
  // A stale answer corrects the engine: another engine step.
  for (std::size_t i = 0; i < transaction.size(); ++i) {
    if ((*results)[i] != store::WriteResult::Written) check_free_set(transaction[i].address);
  }
  drive();
  if (idle() && agreement_due_) check_agreement();
}

void Simulator::reclaim_due() {
  if (reclaim_instant_ != now_) reclaim_passes_ = 0;
  reclaim_instant_ = now_;
  if (++reclaim_passes_ > kReclaimPassesPerInstant) {
    invariants_.report(now_, "reclaim-stuck",
                       "next_deadline() stays in the past after many reclaim passes");
    reclaim_stuck_at_ = now_;
    return;
  }
  auto records = engine_->reclaim(now_, options_.reclaim_batch);
  for (const lease::Lease& record : records) check_free_set(record.address);
  if (records.empty()) return;
  machine_->propose_reclaimed(std::move(records));
  drive();
}

// ---- checks

// Debug builds: after every engine step, each address it touched is filed in the allocator's
// free set where its lease record puts it (O(1) per address, unlike the full audit).
void Simulator::check_free_set([[maybe_unused]] Ipv4 address) {
#ifndef NDEBUG
  if (address.is_zero() || engine_->free_set_agrees(address)) return;
  const auto record = engine_->find(address);
  invariants_.report(now_, "free-set-mismatch",
                     fmt::format("the free set files {} apart from its record {}",
                                 address.to_string(),
                                 record ? describe(*record) : std::string("(none)")));
#endif
}

StoreSnapshot Simulator::snapshot() {
  StoreSnapshot records;
  const auto loaded = store_->load([&](lease::Lease&& record) {
    const Ipv4 address = record.address;
    records.insert_or_assign(address, std::move(record));
  });
  if (!loaded) invariants_.report(now_, "store-error", loaded.error().message);
  return records;
}

void Simulator::audit() {
  ++report_.audits;
  if (engine_) invariants_.check_engine(*engine_, options_.pool.size(), now_);
  const StoreSnapshot records = snapshot();
  invariants_.check_client_leases_durable(fleet_, records, now_);
  invariants_.check_store_expiry(records, now_);
  invariants_.check_store_keeps_commits(records, now_);
  agreement_due_ = true;
  if (engine_ && idle()) check_agreement();
}

// The engine and the store agree whenever nothing is waiting to commit.
void Simulator::check_agreement() {
  agreement_due_ = false;
  ++report_.agreement_checks;
  invariants_.check_engine_matches_store(*engine_, snapshot(), now_);
}

void Simulator::trace_exchange(const wire::Message& request, const engine::Outcome& outcome) {
  const auto requested = request.options.get_ipv4(wire::option::kRequestedAddress);
  const bool about = traced(request.ciaddr) || (requested && traced(*requested)) ||
                     traced(outcome.event.address) ||
                     (outcome.reply && traced(outcome.reply->message.yiaddr));
  if (!about) return;
  const auto type = request.type();
  std::string line =
      fmt::format("{} from {} xid={:#010x} ciaddr={} requested={} -> {} ({})",
                  type ? wire::to_string(*type) : "?", request.hardware_address().to_string(),
                  request.xid, request.ciaddr.to_string(), requested ? requested->to_string() : "-",
                  engine::to_string(outcome.event.kind), outcome.event.reason);
  if (outcome.reply) {
    const auto reply_type = outcome.reply->message.type();
    line += fmt::format(", {} yiaddr={} via {}", reply_type ? wire::to_string(*reply_type) : "?",
                        outcome.reply->message.yiaddr.to_string(),
                        engine::to_string(outcome.reply->route));
  }
  if (!outcome.mutations.empty()) line += fmt::format(", {} to commit", outcome.mutations.size());
  trace(line);
}

void Simulator::trace(const std::string& line) const {
  std::printf("trace +%lld ms %s\n", static_cast<long long>((now_ - start_).count()), line.c_str());
}

void Simulator::mix(std::uint64_t value) {
  constexpr std::uint64_t kPrime = 0x100000001b3ull;  // FNV-1a, a word at a time
  report_.digest = (report_.digest ^ value) * kPrime;
}

}  // namespace landlord::simulation
