#include "landlord/server/server.hpp"

#include <algorithm>
#include <csignal>
#include <functional>
#include <memory>
#include <span>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "admission_gate.hpp"
#include "daemon_counters.hpp"
#include "event_log.hpp"
#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/control/daemon.hpp"
#include "landlord/control/event_exec.hpp"
#include "landlord/control/metrics.hpp"
#include "landlord/control/service.hpp"
#include "landlord/control/worker.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/commit_pipeline.hpp"
#include "landlord/server/dns_updates.hpp"
#include "landlord/server/expiry.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/link_view.hpp"
#include "landlord/server/offer_ping.hpp"
#include "landlord/server/operator_changes.hpp"
#include "landlord/server/privileges.hpp"
#include "landlord/server/reload.hpp"
#include "landlord/server/restore.hpp"
#include "landlord/server/service_notify.hpp"
#include "landlord/server/store_watch.hpp"
#include "landlord/server/view_sync.hpp"
#include "landlord/store/commit_queue.hpp"
#include "landlord/store/open_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "landlord/wire/options.hpp"
#include "landlord/config/values.hpp"
#include "packet_socket.hpp"
#include "reply_sender.hpp"
#include "shared_view.hpp"

// The daemon's Server is the event loop's glue: it owns the pieces, each with one job in a file
// of its own (docs/architecture.md, "The daemon's pieces"), and passes a request from one to the
// next — socket (packet_socket), admission (admission_gate), engine, durability (commit_pipeline),
// reply (reply_sender) — and ended leases from the expiry timer (expiry) to the durability
// machine. It decides nothing itself that a piece could; it reads the clock (Clock) for them.
namespace landlord::server {

void apply_overrides(config::Config& config, const ServerOptions& options) {
  if (options.store_path) config.store.path = *options.store_path;
  if (options.log_level) config.log.level = *options.log_level;
}

namespace {

constexpr std::size_t kBatchesPerWakeup = 2;   // of kReceiveBatch: a burst never starves timers
constexpr auto kDrainLimit = std::chrono::seconds{10};
// Addresses offer-ping tries for one DISCOVER before it leaves the client to retransmit.
constexpr int kOfferPingAttempts = 3;

Duration lease_time_of(std::span<const lease::Lease> records) {
  return records.empty() ? Duration{0} : records.front().lease_time;
}

// A shared store (PostgreSQL): other servers may answer a rebinding client while ours fails.
durability::Options durability_options(const config::Config& config) {
  durability::Options options;
  options.shared_store = config.store.type == config::StoreSection::Type::Postgresql;
  // A retry of waiting records takes at most a quarter of the commit queue: it is always taken
  // once the queue drains, and leaves room for new outcomes.
  options.retry_batch_max = store::CommitQueueOptions{}.capacity_records / 4;
  return options;
}

class Server final : public control::Daemon {
 public:
  Server(boost::asio::io_context& io, config::Config config, ServerOptions options,
         engine::Engine& engine, store::CommitQueue& queue, const store::LeaseStore& store,
         PacketSocket socket, control::Metrics& metrics)
      : io_(io),
        config_(std::move(config)),
        options_(std::move(options)),
        engine_(engine),
        queue_(queue),
        store_(store),
        committer_(queue),
        pipeline_(io, committer_, engine, clock_,
                  [this](const durability::Release& release) { on_released(release); },
                  durability_options(config_)),
        socket_(std::move(socket)),
        replies_(io, socket_, links_, config_.server.listen.port),
        expiry_(io, engine, pipeline_, clock_, [this] { return may_end_leases().has_value(); }),
        drain_timer_(io),
        signals_(io, SIGTERM, SIGINT, SIGHUP),
        metrics_(metrics),
        heartbeat_(io, notifier_, [this] { return readiness_.status(); }),
        shared_(config_.store.type == config::StoreSection::Type::Postgresql, config_.store.max_clock_skew),
        readiness_(notifier_, shared_.clock(), [this] { return status_line(engine_.pool_usage()); }),
        gate_(config_, engine) {
    signals_.add(SIGUSR1);
    socket_.on_send_failure([this](const Destination& destination, std::error_code error) {
      send_log_.log(clock_.steady(), spdlog::level::warn, "send to {}:{} failed: {}",
                    destination.address.to_string(), destination.port, error.message());
    });
  }

  Expected<void, std::string> start() {
    if (auto missing = links_.refresh(config_.server.interfaces, clock_.steady()); !missing.empty()) {
      return unexpected("interface " + missing + " from server.interfaces does not exist");
    }
    if (!socket_.sends_frames() && !config_.server.interfaces.empty()) {
      spdlog::warn(
          "cannot open a packet socket ({}): replies to clients without an address go through "
          "ARP entries, and fail past the kernel's neighbour table size",
          socket_.frame_error());
    }
    spdlog::info(
        "serving on {}:{} ({})", config_.server.listen.address.to_string(),
        config_.server.listen.port,
        config_.server.interfaces.empty()
            ? std::string{"relayed traffic only"}
            : "interfaces " + fmt::format("{}", fmt::join(config_.server.interfaces, ", ")));
    if (config_.control.enabled) {
      control_ = std::make_unique<control::Service>(io_, *this, metrics_);
      if (auto started = control_->start(config_.control); !started) return started;
      spdlog::info("control API on {}{}", config_.control.socket,
                   config_.control.listen
                       ? fmt::format(" and {}:{}", config_.control.listen->address.to_string(),
                                     config_.control.listen->port)
                       : std::string{});
    }
    open_offer_ping();
    gate_.open_frame_sources(config_);
    if (config_.events.exec) {
      exec_ = std::make_unique<control::EventExec>(io_, *config_.events.exec,
                                                   control::EventExecLimits{}, &metrics_);
      spdlog::info("lease events run {}", *config_.events.exec);
    }
    if (auto started = start_dns_updates(); !started) return started;
    started_at_ = reloaded_at_ = clock_.now();
    wait_for_signal();
    wait_for_datagrams();
    // Leases that ended while we were down are reclaimed at once: their deadline has passed.
    expiry_.rearm();
    // The store is loaded and every socket bound: systemd may order dependants after us now, or
    // once the first clock reading agrees with a shared store's (ServiceReadiness).
    readiness_.started();
    heartbeat_.start();
    return {};
  }

 private:
  // Names in DNS: the work the store says is not settled (pending, or failed before the
  // restart) is sent again, so a DNS server that was down or a restart only delays it. What
  // each piece of work settles as is written into its lease record like any change.
  Expected<void, std::string> start_dns_updates() {
    if (!config_.ddns.enabled) return {};
    dns_ = std::make_unique<DnsUpdates>(
        io_, config_.ddns.settings, clock_,
        [this](Ipv4 address, const std::string& fqdn, bool added, lease::DnsState result) {
          settle_dns(address, fqdn, added, result);
        });
    if (auto started = dns_->start(); !started) return started;
    std::size_t resent = 0;
    engine_.for_each_lease([&](const lease::Lease& record) {
      if (!record.fqdn.empty() && dns_->resume(record)) ++resent;
    });
    spdlog::info("ddns: updates to {}:{} for {}{}{}", config_.ddns.settings.server.address.to_string(),
                 config_.ddns.settings.server.port, config_.ddns.settings.forward_zone.to_text(),
                 config_.ddns.key_file.empty() ? " (unsigned)" : ", signed with the key in " + config_.ddns.key_file,
                 resent == 0 ? std::string{} : fmt::format("; {} leases' records sent again", resent));
    return {};
  }

  void settle_dns(Ipv4 address, const std::string& fqdn, bool added, lease::DnsState result) {
    engine::Outcome settled = engine_.dns_settled(address, fqdn, added, result);
    if (settled.mutations.empty()) return;  // newer work on the address stands
    durability::Origin origin;
    origin.received = clock_.steady();
    const bool held = pipeline_.propose(settled, origin);
    LANDLORD_ASSERT(held);  // it has mutations: the machine holds it until they are answered
    pipeline_.drive();
  }

  // ---- receiving -----------------------------------------------------------------------
  void wait_for_datagrams() {
    socket_.socket().async_wait(boost::asio::ip::udp::socket::wait_read,
                                [this](const boost::system::error_code& error) {
                                  if (error || draining_) return;
                                  read_datagrams();
                                  wait_for_datagrams();
                                });
  }

  // Up to kReceiveBatch datagrams per recvmmsg(2) call.
  void read_datagrams() {
    for (std::size_t batch = 0; batch < kBatchesPerWakeup; ++batch) {
      std::error_code error;
      const std::size_t count = socket_.receive_batch(error);
      if (error) {
        spdlog::warn("receive failed: {}", error.message());
        return;
      }
      received_.packets_received += count;
      if (count > 0) gate_.frames_arrived(links_.served());
      for (std::size_t i = 0; i < count; ++i) {
        handle_datagram(socket_.datagram(i), socket_.payload(i));
      }
      // The burst's records go to the store as one batch; replies wait for it.
      pipeline_.drive();
      if (count < kReceiveBatch) return;
    }
  }

  void handle_datagram(const Datagram& datagram, std::span<const std::uint8_t> bytes) {
    if (!shared_.accepts()) return;
    if (datagram.truncated) {
      ++received_.oversized;
      malformed_log_.log(clock_.steady(), spdlog::level::warn, "dropped an oversized datagram from {}",
                         datagram.source.to_string());
      return;
    }
    if (auto error = wire::parse_into(bytes, request_)) {
      ++received_.malformed;
      malformed_log_.log(clock_.steady(), spdlog::level::warn,
                         "dropped a malformed packet from {}:{} ({} bytes): {} at byte {}",
                         datagram.source.to_string(), datagram.source_port, datagram.size,
                         wire::to_string(error->kind), error->offset);
      return;
    }
    if (request_.op != wire::Op::BootRequest) return;
    const Link* link = links_.find(datagram.interface_index, clock_);
    const engine::Ingress ingress = make_ingress(datagram, link);
    const bool debug = spdlog::should_log(spdlog::level::debug);  // its arguments cost, too
    if (!serves(request_, ingress, links_.served())) {
      if (!debug) return;
      spdlog::debug("ignored a direct {} from {} on link {}: not a served interface",
                    request_.type() ? wire::to_string(*request_.type()) : "message",
                    request_.hardware_address().to_string(), datagram.interface_index);
      return;
    }
    if (debug) {
      spdlog::debug("received {} xid {:#010x} from {} {}:{} on {} to {}",
                    wire::to_string(*request_.type()), request_.xid,
                    request_.hardware_address().to_string(), datagram.source.to_string(),
                    datagram.source_port, link != nullptr ? link->name : "?",
                    datagram.header_destination.to_string());
    }
    auto admitted = gate_.admit(request_, datagram, ingress, link, links_.served(),
                                clock_);
    if (!admitted) return;
    engine::Outcome& outcome = *admitted;
    if (outcome.probe_first && outcome.reply && offer_ping_) {
      probe_offer(std::make_shared<PendingOffer>(PendingOffer{std::move(outcome), request_, datagram, 0}));
    } else {
      dispatch(std::move(outcome), request_, datagram.interface_index);
    }
    expiry_.rearm();
  }

  // ---- offer-ping: the OFFER waits for an ICMP echo to its address, the loop does not ----
  struct PendingOffer {
    engine::Outcome outcome;
    wire::Message request;  // the DISCOVER, handled again after a conflict
    Datagram datagram;
    int attempts = 0;
  };

  void open_offer_ping() {
    const bool wanted = std::any_of(config_.subnets.begin(), config_.subnets.end(),
                                    [](const config::Subnet& subnet) { return subnet.offer_ping.has_value(); });
    if (!wanted || offer_ping_) return;
    auto opened = OfferPing::open(io_);
    if (!opened) {
      spdlog::warn("offer-ping is configured but {}: OFFERs leave without it", opened.error());
      return;
    }
    offer_ping_ = std::move(*opened);
  }

  void probe_offer(std::shared_ptr<PendingOffer> pending) {
    const Ipv4 address = pending->outcome.reply->message.yiaddr;
    offer_ping_->probe(address, *pending->outcome.probe_first, [this, pending, address](OfferPing::Answer answer) {
      if (draining_) return;
      const std::uint32_t ingress_index = pending->datagram.interface_index;
      if (answer != OfferPing::Answer::Answered) {
        if (answer == OfferPing::Answer::NotProbed) ++received_.offer_ping_skipped;
        dispatch(std::move(pending->outcome), pending->request, ingress_index);
        return;
      }
      // In use by a host that never asked us: out of the pool for decline-hold (durable like a
      // DECLINE), and the same DISCOVER is answered with the next free address.
      spdlog::warn("offer-ping: {} answered an ICMP echo: not offered to {}, declined", address.to_string(),
                   pending->request.hardware_address().to_string());
      dispatch(engine_.conflict(address, clock_.now()), pending->request, ingress_index);
      pipeline_.drive();
      if (++pending->attempts >= kOfferPingAttempts) {
        spdlog::warn("offer-ping: {} addresses in use in a row; {} gets no OFFER this time", kOfferPingAttempts,
                     pending->request.hardware_address().to_string());
        expiry_.rearm();
        return;
      }
      engine::Outcome next = engine_.handle(
          pending->request, make_ingress(pending->datagram, links_.find(ingress_index, clock_)), clock_.now());
      if (next.probe_first && next.reply) {
        pending->outcome = std::move(next);
        probe_offer(pending);
      } else {
        dispatch(std::move(next), pending->request, ingress_index);
      }
      expiry_.rearm();
    });
  }

  // ---- deciding and replying -----------------------------------------------------------
  // Commit-then-ack is the durability machine's (durability/machine.hpp): an outcome whose
  // records must be durable is proposed, and its reply comes back through on_released().
  void dispatch(engine::Outcome&& outcome, const wire::Message& request, std::uint32_t ingress_index) {
    const durability::Origin origin{request.hardware_address(), request.client_id(), request.giaddr, ingress_index,
                                    clock_.steady(), 0};
    if (pipeline_.propose(outcome, origin)) return;
    log_lease_event(outcome.event, Requester::of(request), Duration{0}, links_.name(ingress_index));
    if (outcome.reply) replies_.send(*outcome.reply, ingress_index, clock_);
  }

  void on_released(const durability::Release& release) {
    if (release.reclaimed) {
      expiry_.batch_released();
      if (release.verdict != durability::Verdict::Send) return;  // logged by the pipeline
      for (const lease::Lease& record : release.records) {
        log_reclaimed(record);
        publish({engine::EventKind::Expire, record.address, "expired"}, record);
      }
      return;
    }
    const Requester requester{release.origin.hardware, release.origin.client_id, release.origin.giaddr};
    if (release.origin.change_id != 0) return answer_change(release);
    if (release.event.kind == engine::EventKind::Dns) {
      // The updater logged the work; a state not written is sent again at the next start.
      if (release.verdict != durability::Verdict::Send) {
        spdlog::debug("ddns: the settled state of {} was not written (the store refused or failed)",
                      release.event.address.to_string());
      }
      return;
    }
    switch (release.verdict) {
      case durability::Verdict::Send:
        log_lease_event(release.event, requester, lease_time_of(release.records),
                        links_.name(release.origin.ingress_index));
        if (release.reply != nullptr) {
          replies_.send(*release.reply, release.origin.ingress_index, clock_);
          metrics_.request_to_ack_seconds.observe(
              std::chrono::duration<double>(clock_.steady() - release.origin.received).count());
        }
        for (const lease::Lease& record : release.records) publish(release.event, record);
        return;
      case durability::Verdict::StaleToken:
        spdlog::warn("{} {} for {} not sent: the store holds a newer holder (stale fencing token)",
                     engine::to_string(release.event.kind), release.event.address.to_string(),
                     requester.hardware.to_string());
        return;
      case durability::Verdict::DurableRemainder:
        // Nothing new is durable: no lease event is published, the log says why.
        durable_answer_log_.log(
            clock_.steady(), spdlog::level::warn,
            "{} {} for {} answered from its durable lease ({} s left), not extended: the store "
            "is not accepting writes",
            release.reboot ? std::string_view{"reboot"} : engine::to_string(release.event.kind),
            release.event.address.to_string(), requester.hardware.to_string(),
            release.reply->message.options.get_u32(wire::option::kLeaseTime).value_or(0));
        replies_.send(*release.reply, release.origin.ingress_index, clock_);
        return;
      case durability::Verdict::Unavailable:
        store_down_log_.log(clock_.steady(), spdlog::level::err, "{} {} for {} not acknowledged: {}",
                            engine::to_string(release.event.kind), release.event.address.to_string(),
                            requester.hardware.to_string(),
                            release.not_taken ? "the store's commit queue is full"
                                              : "the store is not accepting writes");
        return;
    }
  }

  // ---- signals, reload, drain -----------------------------------------------------------
  void wait_for_signal() {
    signals_.async_wait([this](const boost::system::error_code& error, int signal) {
      if (error) return;
      switch (signal) {
        case SIGHUP: (void)reload(); break;
        case SIGUSR1: log_counters(counter_sources()); break;
        default:
          spdlog::info("received {}, draining", signal == SIGTERM ? "SIGTERM" : "SIGINT");
          drain();
          return;
      }
      wait_for_signal();
    });
  }

  Expected<void, std::string> reload() override {
    notifier_.reloading();
    auto reloaded = reload_config();
    readiness_.reloaded();  // also after a rejected file: it serves on
    return reloaded;
  }

  void defer(std::function<void()> step) override { boost::asio::post(io_, std::move(step)); }
  void offload(std::function<void()> work, std::function<void()> done) override {
    if (!worker_) worker_ = std::make_unique<control::Worker>(io_);
    worker_->run(std::move(work), std::move(done));
  }

  Expected<void, std::string> reload_config() {
    auto loaded = config::load_file(options_.config_path);
    if (!loaded) {
      spdlog::error("reload of {} rejected; the running configuration stays:", options_.config_path);
      for (const auto& error : loaded.error()) spdlog::error("  {}", error.to_string());
      return unexpected("reload rejected; the running configuration stays:\n" +
                        config::format_errors(loaded.error()));
    }
    config::Config config = std::move(loaded.value());
    apply_overrides(config, options_);
    if (keep_restart_only(config, config_)) {
      spdlog::warn(
          "reload: changes to server.listen, server.interfaces, server.user, store, control, events and ddns take "
          "effect only after a restart");
    }
    engine_.reconfigure(config);
    config_ = std::move(config);
    open_offer_ping();
    gate_.reconfigure(config_);  // its new limits, and the frames if a subnet now needs them
    if (!options_.log_level) spdlog::set_level(spdlog::level::from_str(config_.log.level));
    if (auto missing = links_.refresh(config_.server.interfaces, clock_.steady()); !missing.empty()) {
      spdlog::warn("reload: interface {} does not exist (any more); its clients are not served", missing);
    }
    expiry_.reset();
    spdlog::info("reloaded {}: {} subnets", options_.config_path, config_.subnets.size());
    reloaded_at_ = clock_.now();
    return {};
  }

  void drain() {
    draining_ = true;
    notifier_.stopping();
    heartbeat_.stop();
    if (control_) control_->stop();
    if (dns_) dns_->stop();
    expiry_.stop();
    socket_.socket().cancel();
    signals_.cancel();
    pipeline_.retry_now();
    drain_started_ = clock_.steady();
    wait_for_drain();
  }

  void wait_for_drain() {
    const durability::Machine& machine = pipeline_.machine();
    const bool done = machine.batches_in_flight() == 0 && machine.backlog_size() == 0;
    const bool out_of_time = clock_.steady() - drain_started_ > kDrainLimit;
    if (done || out_of_time) {
      if (!done) {
        spdlog::error("stopping with {} lease records not written (store failing)",
                      machine.backlog_size() + machine.batches_in_flight());
      }
      socket_.flush();
      log_counters(counter_sources());
      spdlog::info("stopped");
      io_.stop();
      return;
    }
    if (machine.batches_in_flight() == 0) pipeline_.retry_now();
    drain_timer_.expires_after(std::chrono::milliseconds{20});
    drain_timer_.async_wait([this](const boost::system::error_code&) { wait_for_drain(); });
  }

  CounterSources counter_sources() const {
    const ClockAgreement& clock = shared_.clock();
    const GateCounters& gate = gate_.counters();
    return CounterSources{
        .engine = engine_,
        .machine = pipeline_.machine(),
        .queue = queue_.counters(),
        .store_health = store_.health(),
        .receive = received_,
        .unroutable = replies_.unroutable(),
        .no_route = replies_.no_route(),
        .receive_queue_overflow = socket_.receive_queue_drops(),
        .view_current = shared_.view_current(),
        .view_sync_failures = shared_.sync_failures(),
        .dropped_view_stale = shared_.dropped_view_stale(),
        .dropped_clock_skew = shared_.dropped_clock_skew(),
        .clock_agrees = clock.agrees(),
        .clock_offset_seconds = clock.offset() ? std::chrono::duration<double>(*clock.offset()).count() : 0.0,
        .admission = gate_.limit_counters(),
        .chaddr_mismatch = gate.chaddr_mismatch,
        .discover_shed = gate.discover_shed,
        .frames_unseen = gate.frames_unseen,
        .dns = dns_.get(),
    };
  }

  // ---- the control API's seam (control/daemon.hpp) ----------------------------------------
  const config::Config& config() const override { return config_; }
  const std::string& config_path() const override { return options_.config_path; }
  engine::Engine& engine() override { return engine_; }
  TimePoint now() const override { return clock_.now(); }
  TimePoint started_at() const override { return started_at_; }
  TimePoint reloaded_at() const override { return reloaded_at_; }
  control::DaemonCounters counters() const override { return gather(counter_sources()); }

  // ---- a shared store: what the other servers did (view_sync.hpp) -------------------------
 public:
  void learn(std::vector<lease::Lease> records) {
    std::size_t changed = 0;
    for (lease::Lease& record : records) {
      pipeline_.observed(record.address);  // another server's write: our durable view is void
      changed += engine_.observe(std::move(record)) ? 1 : 0;
    }
    if (changed > 0) {
      spdlog::debug("learned {} of {} changed records from the shared store", changed, records.size());
      expiry_.rearm();  // a learned lease may end before anything armed
    }
  }
  void view_failed(const store::StoreError& error) { shared_.failed(error, clock_.steady()); }
  void view_recovered() { shared_.recovered(engine_.counters().learned); }
  // This server's clock against the shared store's (view_sync.hpp, clock_agreement.hpp).
  void clock_read(store::PostgresLeaseStore::ClockReading reading) {
    const ClockAgreement::Change change = shared_.clock_read(reading.offset);
    if (change == ClockAgreement::Change::None) return;
    readiness_.clock_read();
    shared_.log_clock_change(change, reading.offset, reading.round_trip);
    expiry_.reclaim();  // what ended before this reading
  }
  // The one rule for ending leases (or writing their ends) by this server's clock, the expiry
  // timer's and the control API's (leases-reclaim, lease4-del, -wipe, -add, -update).
  Expected<void, std::string> may_end_leases() const override { return shared_.clock().may_end_leases(); }
  void peers_seen(std::vector<Ipv4> up, bool held) {
    shared_.peers_seen(engine_, up, held, config_.server.server_id);
  }

 private:
  // An operator's change: proposed to the durability machine like an ACK's records, and
  // answered when its release comes back (answer_change).
  void commit(engine::Outcome change, std::function<void(Expected<void, std::string>)> done) override {
    if (change.mutations.empty()) {
      boost::asio::post(io_, [done = std::move(done)] { done({}); });
      return;
    }
    durability::Origin origin;
    origin.change_id = changes_.add(std::move(done));
    change.reply.reset();
    const bool held = pipeline_.propose(change, origin);
    LANDLORD_ASSERT(held);  // it has mutations: the machine holds it until they are answered
    pipeline_.drive();
    expiry_.rearm();
  }

  void answer_change(const durability::Release& release) {
    auto done = changes_.take(release.origin.change_id);
    auto answer = change_answer(release.verdict, release.not_taken);
    if (!answer) return done(std::move(answer));
    for (const lease::Lease& record : release.records) {
      spdlog::info("{} {} ({} {})", release.event.kind == engine::EventKind::Expire ? "expire" : "admin",
                   record.address.to_string(), release.event.reason, lease::to_string(record.state));
      publish(release.event, record);
    }
    done({});
  }

  bool wants_events() const { return exec_ || (control_ && control_->wants_events()); }

  // A durable lease event: to /events readers and events.exec.
  void publish(const engine::Event& event, const lease::Lease& record) {
    if (dns_) dns_->on_lease(record);
    if (!wants_events()) return;
    const control::LeaseEvent lease_event{event.kind, event.reason, record, clock_.now()};
    if (control_) control_->publish(lease_event);
    if (exec_) exec_->publish(lease_event);
  }

  boost::asio::io_context& io_;
  config::Config config_;
  const ServerOptions options_;
  Clock clock_;
  engine::Engine& engine_;
  std::unique_ptr<DnsUpdates> dns_;  // with `ddns:` only
  const store::CommitQueue& queue_;
  const store::LeaseStore& store_;  // only its health(): the queue's worker owns it
  CommitQueueCommitter committer_;
  CommitPipeline pipeline_;
  PacketSocket socket_;
  LinkView links_;
  ReplySender replies_;
  Expiry expiry_;
  boost::asio::steady_timer drain_timer_;
  boost::asio::signal_set signals_;
  Clock::Steady::time_point drain_started_{};
  bool draining_ = false;
  ReceiveCounters received_;
  control::Metrics& metrics_;
  ServiceNotifier notifier_;  // systemd's Type=notify; inert outside systemd
  ServiceHeartbeat heartbeat_;
  std::unique_ptr<control::Service> control_;  // the control API, when configured
  std::unique_ptr<control::Worker> worker_;    // its whole-table answers, made off the loop
  std::unique_ptr<control::EventExec> exec_;   // events.exec, when configured
  std::unique_ptr<OfferPing> offer_ping_;      // when a subnet has offer-ping and CAP_NET_RAW
  TimePoint started_at_{}, reloaded_at_{};
  OperatorChanges changes_;  // operators' changes waiting for their records to be durable
  RateLimitedLog malformed_log_, store_down_log_, durable_answer_log_, send_log_;
  SharedView shared_;           // a shared store's view and clock; always current without one
  ServiceReadiness readiness_;  // READY=1 once the clocks agree
  AdmissionGate gate_;
  // The one parsed request, reused for every datagram: no allocation per packet.
  wire::Message request_;
};

}  // namespace

int run(config::Config config, const ServerOptions& options) {
  apply_overrides(config, options);
  control::Metrics metrics;  // first: the store's worker and the control API's handlers use it
  // The port first: a second server for the same port stops here, before it touches any store.
  boost::asio::io_context io;
  auto socket = PacketSocket::open(io, config.server.listen);
  if (!socket) {
    spdlog::critical("{}", socket.error());
    return 1;
  }
  // Bound: from here on CAP_NET_RAW is all we keep, as server.user when started as root.
  auto dropped = drop_privileges(config, PrivilegeOptions{options.allow_root});
  if (!dropped) {
    spdlog::critical("{}", dropped.error());
    return 1;
  }
  spdlog::info("{}", *dropped);
  auto opened = store::open_store(config.store, config.server.server_id);
  if (!opened) {
    spdlog::critical("cannot open the lease store: {}", opened.error().message);
    return 1;
  }
  std::unique_ptr<store::LeaseStore> lease_store = std::move(opened.value());

  // A shared store: the change feed gets a connection of its own, and its cursor is taken
  // before the load, so nothing committed meanwhile by another server is missed (what the load
  // already saw comes again, and changes nothing).
  std::unique_ptr<store::PostgresLeaseStore> feed;
  store::ChangeCursor feed_start;
  if (config.store.type == config::StoreSection::Type::Postgresql) {
    auto opened_feed = store::PostgresLeaseStore::open(store::postgres_options(config.store, config.server.server_id));
    auto cursor = opened_feed ? (*opened_feed)->now()
                              : Expected<store::ChangeCursor, store::StoreError>(
                                    unexpected(opened_feed.error()));
    if (!cursor) {
      spdlog::critical("cannot open the lease store's change feed: {}", cursor.error().message);
      return 1;
    }
    feed = std::move(*opened_feed);
    feed_start = std::move(*cursor);
  }
  const Duration sync_interval = config.store.poll_interval();
  const bool sync_notify = config.store.sync_notify;
  // Peers: the feed's connection holds this server's presence (view_sync.hpp).
  const std::optional<Ipv4> presence =
      config.peers.enabled() ? config.server.server_id : std::nullopt;

  // Start-up: every stored record back into memory before the first packet. Leases that ended
  // while we were down are reclaimed as soon as the loop runs: their deadlines have passed.
  engine::Engine engine{config};
  auto restored = restore_leases(*lease_store, engine);
  if (!restored) {
    spdlog::critical("cannot load leases from the store: {}", restored.error().message);
    return 1;
  }
  spdlog::info("restored {} lease records from {}", *restored,
               config.store.type == config::StoreSection::Type::Postgresql
                   ? store::describe_store(config.store)
                   : config.store.path);

  store::CommitQueueOptions queue_options;
  queue_options.batch_max = config.store.batch_max;
  queue_options.batch_wait = config.store.batch_wait;
  queue_options.batch_linger = config.store.batch_linger;

  // What the store says of itself beside its commits (failed checkpoints, a reopened store),
  // logged on this loop as the store counts it: StoreWatch.
  StoreWatch store_watch{io, *lease_store, store::describe_store(config.store)};
  const auto observe = [&metrics](std::size_t records, std::chrono::nanoseconds took) {
    metrics.commit_batch_records.observe(static_cast<double>(records));
    metrics.commit_seconds.observe(std::chrono::duration<double>(took).count());
  };
  store::CommitQueue queue{*lease_store, queue_options, observe};  // owns the store from here on
  Server server{io, std::move(config), options, engine, queue, *lease_store,
                std::move(socket.value()), metrics};
  if (auto started = server.start(); !started) {
    spdlog::critical("{}", started.error());
    return 1;
  }
  std::unique_ptr<ViewSync> view_sync;
  if (feed) {
    spdlog::info("sharing the store with other servers: {}polling its changes every {}",
                 sync_notify ? "listening for their commits' notifications and " : "",
                 config::format_duration(sync_interval));
    view_sync = std::make_unique<ViewSync>(
        io, std::move(feed), std::move(feed_start), sync_interval, sync_notify,
        [&server] { return static_cast<const control::Daemon&>(server).now(); },  // its clock
        ViewSync::Handlers{
            .changes = [&server](std::vector<lease::Lease> records) { server.learn(std::move(records)); },
            .failed = [&server](const store::StoreError& error) { server.view_failed(error); },
            .recovered = [&server] { server.view_recovered(); },
            .clock = [&server](store::PostgresLeaseStore::ClockReading reading) { server.clock_read(reading); },
            .peers = [&server](std::vector<Ipv4> up, bool held) { server.peers_seen(std::move(up), held); },
        },
        presence);
  }
  io.run();
  if (view_sync) view_sync->stop();
  queue.shutdown();
  return 0;
}

}  // namespace landlord::server
