#include "landlord/server/server.hpp"

#include <algorithm>
#include <array>
#include <csignal>
#include <memory>
#include <span>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "event_log.hpp"
#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/control/change_in_pieces.hpp"
#include "landlord/control/daemon.hpp"
#include "landlord/control/event_exec.hpp"
#include "landlord/control/metrics.hpp"
#include "landlord/control/service.hpp"
#include "landlord/control/worker.hpp"
#include "landlord/engine/admission.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/clock_agreement.hpp"
#include "landlord/server/commit_pipeline.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/links.hpp"
#include "landlord/server/no_route_report.hpp"
#include "landlord/server/offer_ping.hpp"
#include "landlord/server/reply_routing.hpp"
#include "landlord/server/privileges.hpp"
#include "landlord/server/restore.hpp"
#include "landlord/server/service_notify.hpp"
#include "landlord/server/store_watch.hpp"
#include "landlord/store/commit_queue.hpp"
#include "landlord/store/open_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "landlord/server/view_sync.hpp"
#include "landlord/wire/options.hpp"
#include "landlord/config/values.hpp"
#include "frame_sources.hpp"
#include "packet_socket.hpp"
#include "landlord/server/rate_limit.hpp"

namespace landlord::server {

void apply_overrides(config::Config& config, const ServerOptions& options) {
  if (options.store_path) config.store.path = *options.store_path;
  if (options.log_level) config.log.level = *options.log_level;
}

namespace {

constexpr std::size_t kReclaimBatchMax = 256;  // records per reclaim() call
constexpr std::size_t kBatchesPerWakeup = 2;   // of kReceiveBatch: a burst never starves timers
constexpr auto kDrainLimit = std::chrono::seconds{10};
constexpr auto kLinkRescanInterval = std::chrono::seconds{1};
constexpr auto kRouteRescanInterval = std::chrono::seconds{1};
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

durability::Origin origin_of(const wire::Message& request, std::uint32_t ingress_index) {
  return {request.hardware_address(), request.client_id(), request.giaddr, ingress_index,
          std::chrono::steady_clock::now(), 0};
}

bool same_control(const config::ControlSection& a, const config::ControlSection& b) {
  const auto endpoint = [](const config::ControlSection& section) {
    return section.listen ? std::optional{std::pair{section.listen->address, section.listen->port}}
                          : std::nullopt;
  };
  return a.enabled == b.enabled && a.socket == b.socket && a.token_file == b.token_file &&
         endpoint(a) == endpoint(b);
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
        expiry_timer_(io),
        drain_timer_(io),
        signals_(io, SIGTERM, SIGINT, SIGHUP),
        metrics_(metrics),
        heartbeat_(io, notifier_, [this] { return readiness_.status(); }),
        clock_check_(config_.store.type == config::StoreSection::Type::Postgresql, config_.store.max_clock_skew),
        readiness_(notifier_, clock_check_, [this] { return status_line(engine_.pool_usage()); }),
        admission_(config_, holds(lease::LeaseState::Offered), holds(lease::LeaseState::Bound)) {
    signals_.add(SIGUSR1);
    socket_.on_send_failure([this](const Destination& destination, std::error_code error) {
      send_log_.log(spdlog::level::warn, "send to {}:{} failed: {}",
                    destination.address.to_string(), destination.port, error.message());
    });
  }

  Expected<void, std::string> start() {
    refresh_links();
    if (auto missing = resolve_interfaces(); !missing.empty()) {
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
    open_frame_sources();
    if (config_.events.exec) {
      exec_ = std::make_unique<control::EventExec>(io_, *config_.events.exec,
                                                   control::EventExecLimits{}, &metrics_);
      spdlog::info("lease events run {}", *config_.events.exec);
    }
    started_at_ = reloaded_at_ = clock_.now();
    wait_for_signal();
    wait_for_datagrams();
    // Leases that ended while we were down are reclaimed at once: their deadline has passed.
    rearm_expiry_timer();
    // The store is loaded and every socket bound: systemd may order dependants after us now, or
    // once the first clock reading agrees with a shared store's (ServiceReadiness).
    readiness_.started();
    heartbeat_.start();
    return {};
  }

 private:
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
      packets_received_ += count;
      // The frames that carried these datagrams were queued before them (frame_sources.hpp).
      if (frames_ && count > 0) frames_->drain(served_interfaces_);
      for (std::size_t i = 0; i < count; ++i) {
        handle_datagram(socket_.datagram(i), socket_.payload(i));
      }
      // The burst's records go to the store as one batch; replies wait for it.
      pipeline_.drive();
      if (count < kReceiveBatch) return;
    }
  }

  void handle_datagram(const Datagram& datagram, std::span<const std::uint8_t> bytes) {
    if (!view_current_) {  // a shared store we cannot read: our view may miss others' grants
      ++dropped_view_stale_;
      return;
    }
    if (!clock_check_.agrees()) {  // our lease ends might not be the other servers' (clock_agreement.hpp)
      ++dropped_clock_skew_;
      return;
    }
    if (datagram.truncated) {
      ++oversized_;
      malformed_log_.log(spdlog::level::warn, "dropped an oversized datagram from {}",
                         datagram.source.to_string());
      return;
    }
    if (auto error = wire::parse_into(bytes, request_)) {
      ++malformed_;
      malformed_log_.log(spdlog::level::warn,
                         "dropped a malformed packet from {}:{} ({} bytes): {} at byte {}",
                         datagram.source.to_string(), datagram.source_port, datagram.size,
                         wire::to_string(error->kind), error->offset);
      return;
    }
    if (request_.op != wire::Op::BootRequest) return;
    const Link* link = find_link(datagram.interface_index);
    const engine::Ingress ingress = make_ingress(datagram, link);
    const bool debug = spdlog::should_log(spdlog::level::debug);  // its arguments cost, too
    if (!serves(request_, ingress, served_interfaces_)) {
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
    auto admitted = admit(datagram, ingress, link);
    if (!admitted) return;
    engine::Outcome& outcome = *admitted;
    if (outcome.probe_first && outcome.reply && offer_ping_) {
      probe_offer(std::make_shared<PendingOffer>(PendingOffer{std::move(outcome), request_, datagram, 0}));
    } else {
      dispatch(std::move(outcome), request_, datagram.interface_index);
    }
    rearm_expiry_timer();
  }

  // ---- pool starvation defences (engine/admission.hpp) -----------------------------------
  engine::Admission::Holds holds(lease::LeaseState state) const {
    return [this, state](Ipv4 address, const ClientKey& client) {
      const auto record = engine_.find(address);
      return record && record->state == state && record->client == client;
    };
  }

  // The frames' source addresses: what verify-chaddr checks, and who a direct request's sender
  // is for the limits per source (source-offers, source-leases).
  void open_frame_sources() {
    const bool wanted = !config_.server.interfaces.empty() &&
                        std::any_of(config_.subnets.begin(), config_.subnets.end(), [](const config::Subnet& subnet) {
                          const config::Admission& admission = subnet.admission;
                          return admission.verify_chaddr || admission.source_offers > 0 || admission.source_leases > 0;
                        });
    if (!wanted || frames_) return;
    auto opened = FrameSources::open();
    if (!opened) {
      spdlog::warn("admission needs the frames' source addresses but {}: chaddr is not checked against the frame, "
                   "and a direct sender is told by its chaddr",
                   opened.error());
      return;
    }
    frames_ = std::move(*opened);
  }

  // Sheds, verifies and admits a request before the engine decides it; nullopt: dropped
  // (counted and logged here).
  std::optional<engine::Outcome> admit(const Datagram& datagram, const engine::Ingress& ingress, const Link* link) {
    const auto type = request_.type();
    if (type == wire::MessageType::Discover &&
        waited_too_long(datagram, realtime_ns(), config_.server.discover_max_wait)) {
      ++discover_shed_;
      shed_log_.log(spdlog::level::warn,
                    "shed a DISCOVER from {} that waited {} ms in the receive queue (discover-max-wait): "
                    "the server is behind",
                    request_.hardware_address().to_string(), (realtime_ns() - datagram.queued_at_ns) / 1'000'000);
      return std::nullopt;
    }
    const engine::RequestFacts facts = engine_.request_facts(request_, ingress);
    std::optional<Mac> frame_source;
    if (frames_ && request_.giaddr.is_zero() && ingress.to_broadcast &&
        served_interfaces_.contains(datagram.interface_index)) {
      frame_source = frames_->take(datagram.interface_index, request_.xid, request_.hardware_address());
      if (!frame_source) ++frames_unseen_;
    }
    const HardwareAddress hardware = request_.hardware_address();
    const auto chaddr = hardware.bytes();
    if (frame_source && facts.subnet_id != 0 && config_.subnets[facts.subnet_id - 1].admission.verify_chaddr &&
        !std::equal(chaddr.begin(), chaddr.end(), frame_source->begin(), frame_source->end())) {
      ++chaddr_mismatch_;
      mismatch_log_.log(spdlog::level::warn,
                        "dropped a {} with chaddr {} sent from {} on {}: not the sender's own address "
                        "(admission.verify-chaddr of subnet {})",
                        wire::to_string(*type), request_.hardware_address().to_string(), format_mac(*frame_source),
                        link != nullptr ? link->name : "?", facts.subnet_id);
      return std::nullopt;
    }
    const engine::Applicant applicant = engine::applicant_of(request_, ingress, frame_source);
    engine::Admitted admitted =
        engine::handle_admitted(engine_, admission_, facts, request_, ingress, applicant, clock_.now());
    if (!admitted.refusal) return std::move(admitted.outcome);
    refused_log_.log(spdlog::level::warn,
                     "refused a new address to {} (sent from {}, {}{}) in subnet {}: {} limit (admission)",
                     request_.hardware_address().to_string(),
                     frame_source ? format_mac(*frame_source) : std::string{"?"},
                     request_.giaddr.is_zero() ? "link " + std::string{link != nullptr ? link->name : "?"}
                                               : "relay " + request_.giaddr.to_string(),
                     applicant.circuit_id.empty() ? std::string{} : ", circuit-id " + hex_of(applicant.circuit_id),
                     facts.subnet_id, engine::to_string(*admitted.refusal));
    return std::nullopt;
  }

  static std::int64_t realtime_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  }
  static std::string format_mac(const Mac& mac) {
    return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
  }
  static std::string hex_of(std::span<const std::uint8_t> bytes) {
    std::string text;
    for (const std::uint8_t byte : bytes) text += fmt::format("{:02x}", byte);
    return text;
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
        if (answer == OfferPing::Answer::NotProbed) ++offer_ping_skipped_;
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
        rearm_expiry_timer();
        return;
      }
      engine::Outcome next =
          engine_.handle(pending->request, make_ingress(pending->datagram, find_link(ingress_index)), clock_.now());
      if (next.probe_first && next.reply) {
        pending->outcome = std::move(next);
        probe_offer(pending);
      } else {
        dispatch(std::move(next), pending->request, ingress_index);
      }
      rearm_expiry_timer();
    });
  }

  // ---- deciding and replying -----------------------------------------------------------
  // Commit-then-ack is the durability machine's (durability/machine.hpp): an outcome whose
  // records must be durable is proposed, and its reply comes back through on_released().
  void dispatch(engine::Outcome&& outcome, const wire::Message& request,
                std::uint32_t ingress_index) {
    if (pipeline_.propose(outcome, origin_of(request, ingress_index))) return;
    log_lease_event(outcome.event, Requester::of(request), Duration{0}, link_name(ingress_index));
    if (outcome.reply) send_reply(*outcome.reply, ingress_index);
  }

  void on_released(const durability::Release& release) {
    if (release.reclaimed) {
      LANDLORD_ASSERT(reclaims_at_store_ > 0);
      --reclaims_at_store_;
      if (std::exchange(reclaim_paused_, false)) boost::asio::post(io_, [this] { reclaim(); });
      if (release.verdict != durability::Verdict::Send) return;  // logged by the pipeline
      for (const lease::Lease& record : release.records) {
        log_reclaimed(record);
        publish({engine::EventKind::Expire, record.address, "expired"}, record);
      }
      return;
    }
    const Requester requester{release.origin.hardware, release.origin.client_id,
                              release.origin.giaddr};
    if (release.origin.change_id != 0) return answer_change(release);
    switch (release.verdict) {
      case durability::Verdict::Send:
        log_lease_event(release.event, requester, lease_time_of(release.records),
                        link_name(release.origin.ingress_index));
        if (release.reply != nullptr) {
          send_reply(*release.reply, release.origin.ingress_index);
          metrics_.request_to_ack_seconds.observe(std::chrono::duration<double>(
              std::chrono::steady_clock::now() - release.origin.received).count());
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
            spdlog::level::warn,
            "{} {} for {} answered from its durable lease ({} s left), not extended: the store "
            "is not accepting writes",
            release.reboot ? std::string_view{"reboot"} : engine::to_string(release.event.kind),
            release.event.address.to_string(),
            requester.hardware.to_string(),
            release.reply->message.options.get_u32(wire::option::kLeaseTime).value_or(0));
        send_reply(*release.reply, release.origin.ingress_index);
        return;
      case durability::Verdict::Unavailable:
        store_down_log_.log(
            spdlog::level::err, "{} {} for {} not acknowledged: {}",
            engine::to_string(release.event.kind), release.event.address.to_string(),
            requester.hardware.to_string(),
            release.not_taken ? "the store's commit queue is full"
                              : "the store is not accepting writes");
        return;
    }
  }

  void send_reply(const engine::Reply& reply, std::uint32_t ingress_index) {
    // Replies that may follow a route (to a relay, to a client renewing across a router) are
    // judged by a routing table at most kRouteRescanInterval old.
    if (reply.route == engine::Route::Relay || reply.route == engine::Route::Ciaddr) {
      refresh_routes_if_stale();
    }
    const Link* ingress = find_link(ingress_index);
    auto destination = resolve_destination(reply, ingress, links_, routes_);
    if (!destination) {
      report_refused(reply, destination.error());
      return;
    }
    // Built straight into the outbox slot it leaves from.
    const bool as_frame = leaves_as_frame(*destination, ingress);
    const std::span<std::uint8_t> buffer = socket_.reply_buffer(as_frame);
    const std::size_t limit = std::min<std::size_t>(buffer.size(), reply.max_size);
    auto built = wire::build(reply.message, buffer.first(limit));
    if (!built) {
      spdlog::error("cannot encode a reply for {} in {} bytes",
                    reply.message.hardware_address().to_string(), limit);
      return;
    }
    deliver(built->size, *destination, ingress, as_frame);
    if (spdlog::should_log(spdlog::level::debug)) {
      spdlog::debug("sending {} xid {:#010x} to {}:{} ({}, {} bytes)",
                    reply.message.type() ? wire::to_string(*reply.message.type()) : "reply",
                    reply.message.xid, destination->address.to_string(), destination->port,
                    engine::to_string(reply.route), built->size);
    }
  }

  void report_refused(const engine::Reply& reply, const RouteRefused& refused) {
    const std::string_view type =
        reply.message.type() ? wire::to_string(*reply.message.type()) : "reply";
    if (!refused.no_route) {
      ++unroutable_;
      unroutable_log_.log(spdlog::level::warn, "dropped {} for {} ({} {}): {}", type,
                          reply.message.hardware_address().to_string(),
                          engine::to_string(reply.route), reply.destination.to_string(),
                          refused.reason);
      return;
    }
    // Counted every time, named once per destination (and rate-limited across them).
    if (!no_route_.first_drop_to(reply.destination)) return;
    no_route_log_.log(spdlog::level::warn,
                      "no route to {} ({}): dropped {} for {}; {}; further drops to it are only "
                      "counted (no_route)",
                      reply.destination.to_string(), engine::to_string(reply.route), type,
                      reply.message.hardware_address().to_string(), refused.reason);
  }

  // A reply to a client on the ingress link leaves as an Ethernet frame when it can: no ARP
  // entry, no neighbour entry. Otherwise through the UDP socket, after an ARP entry for a client
  // with no address yet.
  bool leaves_as_frame(const Destination& destination, const Link* ingress) const {
    return destination.frame_to && ingress != nullptr && ingress->ethernet &&
           socket_.sends_frames();
  }

  void deliver(std::size_t size, Destination destination, const Link* ingress, bool as_frame) {
    flush_soon();
    if (as_frame) {
      socket_.queue_frame(size, destination, config_.server.listen.port);
      return;
    }
    if (destination.frame_to && ingress != nullptr && *destination.frame_to != kBroadcastMac) {
      if (auto error = socket_.install_arp_entry(destination.address, *destination.frame_to,
                                                 ingress->name)) {
        arp_log_.log(spdlog::level::warn,
                     "cannot add an ARP entry for {} on {}: {}; broadcasting instead",
                     destination.address.to_string(), ingress->name, error.message());
        destination.address = kBroadcast;
      }
      // The entry is left for the kernel to age out, as dnsmasq does.
    }
    socket_.queue(size, destination);
  }

  // Replies decided in one turn of the event loop (a recvmmsg batch, a committed batch) leave
  // together, right after it.
  void flush_soon() {
    if (flush_posted_) return;
    flush_posted_ = true;
    boost::asio::post(io_, [this] {
      flush_posted_ = false;
      socket_.flush();
    });
  }

  // ---- expiry ---------------------------------------------------------------------------
  void rearm_expiry_timer() {
    if (draining_) return;
    const auto deadline = engine_.next_deadline();
    if (!deadline || (armed_deadline_ && *armed_deadline_ <= *deadline)) return;
    armed_deadline_ = deadline;
    expiry_timer_.expires_at(clock_.to_steady(*deadline));
    expiry_timer_.async_wait([this](const boost::system::error_code& error) {
      if (error) return;  // cancelled: re-armed earlier, or draining
      armed_deadline_.reset();
      reclaim();
    });
  }

  void reclaim() {
    // clock_read() reclaims once the clocks agree again (may_end_leases).
    if (draining_ || !may_end_leases()) return;
    // A backlog of ended leases (a start after downtime, a clock step) is reclaimed a batch per
    // turn, with at most control::kPiecesAtTheStore batches at the store at once, as the control
    // API's large changes are (control/change_in_pieces.hpp): a batch is made far faster than it
    // is committed, and 100,000 ended leases at start filled the store's commit queue (16,384
    // records) in a fraction of a second, refusing DHCP's records and the operator's with them.
    // The next batch comes when one at the store is answered (on_released).
    if (reclaims_at_store_ >= control::kPiecesAtTheStore) {
      reclaim_paused_ = true;
      return;
    }
    std::vector<lease::Lease> records = engine_.reclaim(clock_.now(), kReclaimBatchMax);
    const bool more = records.size() >= kReclaimBatchMax;
    if (!records.empty()) {
      ++reclaims_at_store_;
      pipeline_.propose_reclaimed(std::move(records));
      pipeline_.drive();
    }
    if (more) {
      boost::asio::post(io_, [this] { reclaim(); });  // the next batch, after pending packets
    } else {
      rearm_expiry_timer();
    }
  }

  // ---- signals, reload, drain -----------------------------------------------------------
  void wait_for_signal() {
    signals_.async_wait([this](const boost::system::error_code& error, int signal) {
      if (error) return;
      switch (signal) {
        case SIGHUP: (void)reload(); break;
        case SIGUSR1: log_counters(); break;
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
      spdlog::error("reload of {} rejected; the running configuration stays:",
                    options_.config_path);
      for (const auto& error : loaded.error()) spdlog::error("  {}", error.to_string());
      return unexpected("reload rejected; the running configuration stays:\n" +
                        config::format_errors(loaded.error()));
    }
    config::Config config = std::move(loaded.value());
    apply_overrides(config, options_);
    if (config.server.listen.address != config_.server.listen.address ||
        config.server.listen.port != config_.server.listen.port ||
        config.server.interfaces != config_.server.interfaces || config.server.user != config_.server.user ||
        config.store.path != config_.store.path || config.store.url != config_.store.url ||
        config.store.type != config_.store.type || !same_control(config.control, config_.control) ||
        config.events.exec != config_.events.exec) {
      spdlog::warn(
          "reload: changes to server.listen, server.interfaces, server.user, store, control and events take "
          "effect only after a restart");
      config.server = config_.server;
      config.store = config_.store;
      config.control = config_.control;
      config.events = config_.events;
    }
    engine_.reconfigure(config);
    admission_.reconfigure(config);
    config_ = std::move(config);
    open_offer_ping();
    open_frame_sources();
    if (!options_.log_level) spdlog::set_level(spdlog::level::from_str(config_.log.level));
    refresh_links();
    if (auto missing = resolve_interfaces(); !missing.empty()) {
      spdlog::warn("reload: interface {} does not exist (any more); its clients are not served",
                   missing);
    }
    armed_deadline_.reset();
    expiry_timer_.cancel();
    rearm_expiry_timer();
    spdlog::info("reloaded {}: {} subnets", options_.config_path, config_.subnets.size());
    reloaded_at_ = clock_.now();
    return {};
  }

  void drain() {
    draining_ = true;
    notifier_.stopping();
    heartbeat_.stop();
    if (control_) control_->stop();
    expiry_timer_.cancel();
    socket_.socket().cancel();
    signals_.cancel();
    pipeline_.retry_now();
    drain_started_ = std::chrono::steady_clock::now();
    wait_for_drain();
  }

  void wait_for_drain() {
    const durability::Machine& machine = pipeline_.machine();
    const bool done = machine.batches_in_flight() == 0 && machine.backlog_size() == 0;
    const bool out_of_time = std::chrono::steady_clock::now() - drain_started_ > kDrainLimit;
    if (done || out_of_time) {
      if (!done) {
        spdlog::error("stopping with {} lease records not written (store failing)",
                      machine.backlog_size() + machine.batches_in_flight());
      }
      socket_.flush();
      log_counters();
      spdlog::info("stopped");
      io_.stop();
      return;
    }
    if (machine.batches_in_flight() == 0) pipeline_.retry_now();
    drain_timer_.expires_after(std::chrono::milliseconds{20});
    drain_timer_.async_wait([this](const boost::system::error_code&) { wait_for_drain(); });
  }

  void log_counters() const {
    const engine::Counters& engine = engine_.counters();
    const durability::Counters& commits = pipeline_.counters();
    const store::CommitQueueCounters queue = queue_.counters();  // commits = transactions (fsyncs)
    spdlog::info(
        "counters: discovers={} offers={} requests={} grants={} renewals={} rebinds={} naks={} "
        "declines={} releases={} informs={} expirations={} ignored={} duplicates={} pool_exhausted={} "
        "malformed={} unroutable={} no_route={} receive_queue_overflow={} commits={} last_batch={} records_written={} "
        "stale_refusals={} store_failures={} dropped_store_down={}",
        engine.discovers, engine.offers, engine.requests, engine.grants, engine.renewals,
        engine.rebinds, engine.naks, engine.declines, engine.releases, engine.informs,
        engine.expirations, engine.ignored, engine.duplicates, engine.pool_exhausted, malformed_, unroutable_,
        no_route_.drops(), socket_.receive_queue_drops(), queue.commits, queue.last_batch_records, commits.records_written, commits.stale_refusals,
        commits.store_failures, commits.replies_dropped_store_down);
    const engine::AdmissionCounters& admission = admission_.counters();
    std::string refused;
    for (std::size_t i = 0; i < engine::kRefusalKinds; ++i) {
      refused += fmt::format(" {}={}", engine::to_string(static_cast<engine::Refusal>(i)), admission.refused[i]);
    }
    spdlog::info("admission: admitted={}{} chaddr_mismatch={} discover_shed={} frames_unseen={}", admission.admitted,
                 refused, chaddr_mismatch_, discover_shed_, frames_unseen_);
  }

  // ---- the control API's seam (control/daemon.hpp) ----------------------------------------
  const config::Config& config() const override { return config_; }
  const std::string& config_path() const override { return options_.config_path; }
  engine::Engine& engine() override { return engine_; }
  TimePoint now() const override { return clock_.now(); }
  TimePoint started_at() const override { return started_at_; }
  TimePoint reloaded_at() const override { return reloaded_at_; }

  control::DaemonCounters counters() const override {
    const durability::Counters& commits = pipeline_.counters();
    const durability::Machine& machine = pipeline_.machine();
    const store::CommitQueueCounters queue = queue_.counters();
    control::DaemonCounters counters{
        packets_received_, malformed_, unroutable_, no_route_.drops(),
        socket_.receive_queue_drops(), offer_ping_skipped_, oversized_, queue.commits,
        commits.records_written, commits.stale_refusals, commits.store_failures,
        commits.replies_dropped_store_down, machine.backlog_size(), machine.healthy()};
    counters.answered_from_durable = commits.answered_from_durable;
    counters.reboots_answered_from_durable = commits.reboots_answered_from_durable;
    const store::StoreHealth health = store_.health();
    for (std::size_t kind = 0; kind < store::StoreError::kKinds; ++kind) {
      counters.checkpoint_failures_by_reason.emplace_back(
          store::to_string(static_cast<store::StoreError::Kind>(kind)), health.checkpoint_failures[kind]);
    }
    counters.store_reopened = health.reopened;
    counters.commit_queue_full = commits.not_taken;
    counters.view_current = view_current_;
    counters.view_sync_failures = view_sync_failures_;
    counters.view_records_learned = engine_.counters().learned;
    counters.dropped_view_stale = dropped_view_stale_;
    counters.clock_agrees = clock_check_.agrees();
    counters.clock_offset_seconds =
        clock_check_.offset() ? std::chrono::duration<double>(*clock_check_.offset()).count() : 0.0;
    counters.dropped_clock_skew = dropped_clock_skew_;
    std::copy(std::begin(admission_.counters().refused), std::end(admission_.counters().refused),
              counters.admission_refused.begin());
    counters.chaddr_mismatch = chaddr_mismatch_;
    counters.discover_shed = discover_shed_;
    counters.frames_unseen = frames_unseen_;
    for (std::size_t kind = 0; kind < store::StoreError::kKinds; ++kind) {
      counters.store_failures_by_reason.emplace_back(
          store::to_string(static_cast<store::StoreError::Kind>(kind)), commits.store_failures_by_kind[kind]);
    }
    return counters;
  }

  // ---- a shared store: what the other servers did (view_sync.hpp) -------------------------
 public:
  void learn(std::vector<lease::Lease> records) {
    std::size_t changed = 0;
    for (lease::Lease& record : records) {
      pipeline_.observed(record.address);  // another server's write: our durable view is void
      changed += engine_.observe(std::move(record)) ? 1 : 0;
    }
    if (changed > 0) {
      spdlog::debug("learned {} of {} changed records from the shared store", changed,
                    records.size());
      rearm_expiry_timer();  // a learned lease may end before anything armed
    }
  }
  void view_failed(const store::StoreError& error) {
    ++view_sync_failures_;
    if (view_current_) {
      spdlog::error("lost the shared store's changes: {}; not answering requests until the view "
                    "is reloaded",
                    error.message);
    } else {
      view_log_.log(spdlog::level::warn, "shared store still unreachable: {}", error.message);
    }
    view_current_ = false;
  }
  // This server's clock against the shared store's (view_sync.hpp, clock_agreement.hpp).
  void clock_read(store::PostgresLeaseStore::ClockReading reading) {
    const ClockAgreement::Change change = clock_check_.read(reading.offset);
    if (change != ClockAgreement::Change::None) readiness_.clock_read();
    switch (change) {
      case ClockAgreement::Change::None: return;
      case ClockAgreement::Change::Disagrees:
        spdlog::error("{}: not answering requests nor ending leases until the clocks agree (check "
                      "NTP on this host and the database's)",
                      clock_check_.disagreement());
        return;
      case ClockAgreement::Change::FirstAgrees:
        spdlog::info("this server's clock is {} the shared store's (round trip {} ms; "
                     "store.max-clock-skew {}): answering and ending leases",
                     offset_text(reading.offset), reading.round_trip.count(),
                     config::format_duration(clock_check_.max_skew()));
        break;
      case ClockAgreement::Change::AgreesAgain:
        spdlog::info("this server's clock agrees with the shared store's again ({}): answering again",
                     offset_text(reading.offset));
        break;
    }
    reclaim();  // what ended before this reading
  }
  // The one rule for ending leases (or writing their ends) by this server's clock, the expiry
  // timer's and the control API's (leases-reclaim, lease4-del, -wipe, -add, -update).
  Expected<void, std::string> may_end_leases() const override { return clock_check_.may_end_leases(); }
  void view_recovered() {
    view_current_ = true;
    spdlog::info("shared store reachable again: the view is reloaded ({} records learned in all); "
                 "answering again",
                 engine_.counters().learned);
  }
  // Peers: who is up by their sessions with the shared store (view_sync.hpp, engine.hpp).
  void peers_seen(std::vector<Ipv4> up, bool held) {
    std::string listed;
    for (const Ipv4 peer : up) listed += (listed.empty() ? "" : ", ") + peer.to_string();
    spdlog::debug("servers connected to the shared store: {}", listed.empty() ? "none" : listed);
    for (const Ipv4 peer : engine_.peers_up(up)) {
      if (std::find(up.begin(), up.end(), peer) == up.end()) {
        spdlog::warn("peer {} has no session with the shared store (stopped, killed or cut off): "
                     "answering its clients at once",
                     peer.to_string());
      } else {
        spdlog::info("peer {} is connected to the shared store: leaving its clients to it",
                     peer.to_string());
      }
    }
    const std::string id = config_.server.server_id ? config_.server.server_id->to_string() : "none";
    if (!held && own_presence_held_) {
      spdlog::error("another session holds this server's presence on the shared store (server-id "
                    "{}): two servers with one server-id, or this server's previous session not "
                    "yet ended? Its peers cannot tell when it stops; asking again at every poll",
                    id);
    } else if (held && !own_presence_held_) {
      spdlog::info("this server holds its presence on the shared store again (server-id {})", id);
    }
    own_presence_held_ = held;
  }

 private:

  // An operator's change: proposed to the durability machine like an ACK's records, and
  // answered when its release comes back (answer_change).
  void commit(engine::Outcome change,
              std::function<void(Expected<void, std::string>)> done) override {
    if (change.mutations.empty()) {
      boost::asio::post(io_, [done = std::move(done)] { done({}); });
      return;
    }
    const std::uint64_t change_id = next_change_id_++;
    durability::Origin origin;
    origin.change_id = change_id;
    change.reply.reset();
    const bool held = pipeline_.propose(change, origin);
    LANDLORD_ASSERT(held);  // it has mutations: the machine holds it until they are answered
    changes_.emplace(change_id, std::move(done));
    pipeline_.drive();
    rearm_expiry_timer();
  }

  void answer_change(const durability::Release& release) {
    const auto found = changes_.find(release.origin.change_id);
    LANDLORD_ASSERT(found != changes_.end());
    auto done = std::move(found->second);
    changes_.erase(found);
    if (release.verdict == durability::Verdict::StaleToken) {
      return done(unexpected(std::string{"the store holds a newer holder (stale fencing token)"}));
    }
    if (release.verdict == durability::Verdict::Unavailable && release.not_taken) {
      return done(unexpected(std::string{
          "the store's commit queue is full (the store is not failing; records came faster than "
          "it commits them): the change is kept and written by a retry shortly"}));
    }
    if (release.verdict == durability::Verdict::Unavailable) {
      return done(unexpected(std::string{
          "the lease store is not accepting writes: the change is kept and written when it recovers"}));
    }
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
    if (!wants_events()) return;
    const control::LeaseEvent lease_event{event.kind, event.reason, record, clock_.now()};
    if (control_) control_->publish(lease_event);
    if (exec_) exec_->publish(lease_event);
  }

  // ---- links ----------------------------------------------------------------------------
  void refresh_links() {
    links_ = LinkTable::scan();
    routes_ = RouteTable::scan();
    last_link_scan_ = last_route_scan_ = std::chrono::steady_clock::now();
  }

  // Routes come and go under a running server (a router's, an operator's): a route added is
  // used, and one removed stops being used, within kRouteRescanInterval.
  void refresh_routes_if_stale() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_route_scan_ < kRouteRescanInterval) return;
    routes_ = RouteTable::scan();
    last_route_scan_ = now;
  }

  // Names from server.interfaces -> indices; returns the first name that does not exist.
  std::string resolve_interfaces() {
    served_interfaces_.clear();
    std::string missing;
    for (const std::string& name : config_.server.interfaces) {
      const Link* link = links_.find(name);
      if (link != nullptr) {
        served_interfaces_.insert(link->index);
      } else if (missing.empty()) {
        missing = name;
      }
    }
    return missing;
  }

  const Link* find_link(std::uint32_t index) {
    const Link* link = links_.find(index);
    if (link == nullptr && index != 0 &&
        std::chrono::steady_clock::now() - last_link_scan_ > kLinkRescanInterval) {
      refresh_links();  // a link that appeared since the last scan
      (void)resolve_interfaces();
      link = links_.find(index);
    }
    return link;
  }

  std::string_view link_name(std::uint32_t index) const {
    const Link* link = links_.find(index);
    return link != nullptr ? std::string_view{link->name} : std::string_view{"?"};
  }

  boost::asio::io_context& io_;
  config::Config config_;
  const ServerOptions options_;
  Clock clock_;
  engine::Engine& engine_;
  const store::CommitQueue& queue_;
  const store::LeaseStore& store_;  // only its health(): the queue's worker owns it
  CommitQueueCommitter committer_;
  CommitPipeline pipeline_;
  PacketSocket socket_;
  boost::asio::steady_timer expiry_timer_;
  boost::asio::steady_timer drain_timer_;
  boost::asio::signal_set signals_;
  std::optional<TimePoint> armed_deadline_;
  std::size_t reclaims_at_store_ = 0;  // reclaim() batches proposed and not released yet
  bool reclaim_paused_ = false;        // reclaim() waits for one of them (on_released)
  LinkTable links_;
  RouteTable routes_;
  std::unordered_set<std::uint32_t> served_interfaces_;
  std::chrono::steady_clock::time_point last_link_scan_{};
  std::chrono::steady_clock::time_point last_route_scan_{};
  std::chrono::steady_clock::time_point drain_started_{};
  bool draining_ = false;
  bool flush_posted_ = false;
  std::uint64_t malformed_ = 0, unroutable_ = 0, oversized_ = 0, packets_received_ = 0;
  NoRouteReport no_route_;
  control::Metrics& metrics_;
  ServiceNotifier notifier_;  // systemd's Type=notify; inert outside systemd
  ServiceHeartbeat heartbeat_;
  std::unique_ptr<control::Service> control_;  // the control API, when configured
  std::unique_ptr<control::Worker> worker_;    // its whole-table answers, made off the loop
  std::unique_ptr<control::EventExec> exec_;   // events.exec, when configured
  std::unique_ptr<OfferPing> offer_ping_;      // when a subnet has offer-ping and CAP_NET_RAW
  std::uint64_t offer_ping_skipped_ = 0;       // OFFERs sent unprobed: too many probes, send failed
  TimePoint started_at_{}, reloaded_at_{};
  // Operators' changes waiting for their records to be durable, by change_id.
  std::uint64_t next_change_id_ = 1;
  std::unordered_map<std::uint64_t, std::function<void(Expected<void, std::string>)>> changes_;
  RateLimitedLog malformed_log_, unroutable_log_, no_route_log_, store_down_log_, durable_answer_log_, arp_log_,
      send_log_, view_log_;
  bool view_current_ = true;
  std::uint64_t view_sync_failures_ = 0, dropped_view_stale_ = 0;
  bool own_presence_held_ = true;  // the last peers_seen(): a refusal is logged once
  ClockAgreement clock_check_;  // with the shared store's: unknown until the first reading
  ServiceReadiness readiness_;  // READY=1 once the clocks agree
  std::uint64_t dropped_clock_skew_ = 0;
  engine::Admission admission_;
  std::optional<FrameSources> frames_;  // when a subnet verifies chaddr or limits per source, and CAP_NET_RAW allows
  std::uint64_t chaddr_mismatch_ = 0, discover_shed_ = 0, frames_unseen_ = 0;
  RateLimitedLog shed_log_, mismatch_log_, refused_log_;
  // One send buffer for the whole run (the socket owns the receive buffers): no allocation per
  // packet for I/O.
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
