#include "landlord/sim/client.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::sim {

namespace {

// What a client asks for (option 55): mask, router, DNS, and the lease timers it runs on.
constexpr std::array<std::uint8_t, 7> kParameterRequestList = {
    wire::option::kSubnetMask,   wire::option::kRouters,  wire::option::kDnsServers,
    wire::option::kLeaseTime,    wire::option::kServerId, wire::option::kRenewalTime,
    wire::option::kRebindingTime};

// An "infinite" lease (0xffffffff) is held for the rest of any run.
constexpr std::uint32_t kInfiniteLease = 0xffffffffu;
constexpr Duration kInfiniteLeaseTime = std::chrono::hours(24 * 365 * 100);

double fraction_of(Duration part, Duration whole) {
  return whole.count() > 0 ? static_cast<double>(part.count()) / static_cast<double>(whole.count())
                           : 0.0;
}

}  // namespace

std::string_view to_string(ClientState state) {
  switch (state) {
    case ClientState::Init: return "init";
    case ClientState::Selecting: return "selecting";
    case ClientState::Requesting: return "requesting";
    case ClientState::InitReboot: return "init-reboot";
    case ClientState::Rebooting: return "rebooting";
    case ClientState::Bound: return "bound";
    case ClientState::Renewing: return "renewing";
    case ClientState::Rebinding: return "rebinding";
    case ClientState::Stopped: return "stopped";
  }
  return "?";
}

std::string_view to_string(Exchange exchange) {
  switch (exchange) {
    case Exchange::Discover: return "discover";
    case Exchange::Request: return "request";
    case Exchange::Reboot: return "reboot";
    case Exchange::Renew: return "renew";
    case Exchange::Rebind: return "rebind";
    case Exchange::Decline: return "decline";
    case Exchange::Release: return "release";
  }
  return "?";
}

Timing Timing::with_retransmit_base(Duration base, Duration renew_minimum) {
  Timing timing;
  timing.retransmit_base = base;
  timing.retransmit_max = base * 16;
  timing.jitter = base / 4;
  timing.renew_retransmit_min = renew_minimum;
  return timing;
}

void Output::add(const Event& event) {
  LANDLORD_ASSERT(event_count < events.size());
  events[event_count++] = event;
}

Client::Client(ClientIdentity identity, const Timing& timing, std::uint64_t seed,
               const RequestOptions* options)
    : identity_(std::move(identity)), timing_(timing), request_options_(options), random_(seed) {}

Output Client::step(const Input& input, TimePoint now) {
  Output out;
  std::visit(
      [&](const auto& in) {
        using T = std::decay_t<decltype(in)>;
        if constexpr (std::is_same_v<T, Start>)
          on_start(now, out);
        else if constexpr (std::is_same_v<T, Reboot>)
          on_reboot(now, out);
        else if constexpr (std::is_same_v<T, Tick>)
          on_tick(now, out);
        else if constexpr (std::is_same_v<T, Depart>)
          on_depart(in.release, now, out);
        else
          on_reply(*in.reply, now, out);
      },
      input);
  return out;
}

// Figure 5's arcs, and only those: anything else is a bug in the machine.
void Client::become(ClientState next) {
  using S = ClientState;
  const bool legal = [&] {
    switch (next) {
      case S::Init: return true;  // NAK, expiry, give-up, decline, reboot without a lease
      case S::Selecting: return state_ == S::Init;
      case S::Requesting: return state_ == S::Selecting;
      case S::InitReboot: return state_ != S::Stopped;
      case S::Rebooting: return state_ == S::InitReboot;
      case S::Bound:
        return state_ == S::Requesting || state_ == S::Rebooting || state_ == S::Renewing ||
               state_ == S::Rebinding;
      case S::Renewing: return state_ == S::Bound;
      case S::Rebinding: return state_ == S::Bound || state_ == S::Renewing;
      case S::Stopped: return true;
    }
    return false;
  }();
  LANDLORD_ASSERT(legal);
  state_ = next;
}

Event Client::event(Event::Kind kind, Exchange exchange) const {
  Event e;
  e.kind = kind;
  e.exchange = exchange;
  e.address = address_;
  e.lease_time = lease_time_;
  e.t1 = t1_;
  e.t2 = t2_;
  e.lease_start = lease_start_;
  e.xid = xid_;
  return e;
}

// §4.4.1: INIT -> SELECTING. A client that is already running ignores a second power-on.
void Client::on_start(TimePoint now, Output& out) {
  if (state_ != ClientState::Stopped && state_ != ClientState::Init) return;
  address_ = Ipv4{};
  become(ClientState::Init);
  send_discover(now, false, out);
}

// §4.4.2: a restarted client that remembers an unexpired lease asks for it again; without
// one it starts from INIT.
void Client::on_reboot(TimePoint now, Output& out) {
  if (state_ == ClientState::Stopped) return;
  const bool holds_lease = !address_.is_zero() && now < lease_expiry();
  if (!holds_lease) {
    address_ = Ipv4{};
    become(ClientState::Init);
    send_discover(now, false, out);
    return;
  }
  become(ClientState::InitReboot);
  become(ClientState::Rebooting);
  xid_ = random_.next_u32();
  attempt_ = 0;
  send_request(now, false, out);
}

void Client::on_tick(TimePoint now, Output& out) {
  if (!deadline_ || now < *deadline_) return;
  switch (state_) {
    case ClientState::Init:  // the wait after a DECLINE is over
      send_discover(now, false, out);
      return;
    case ClientState::Selecting:
      out.add(event(Event::Kind::Retransmitted, Exchange::Discover));
      send_discover(now, true, out);
      return;
    case ClientState::Requesting:
    case ClientState::Rebooting: {
      const Exchange exchange =
          state_ == ClientState::Requesting ? Exchange::Request : Exchange::Reboot;
      if (attempt_ < timing_.request_attempts) {
        out.add(event(Event::Kind::Retransmitted, exchange));
        send_request(now, true, out);
        return;
      }
      // §3.1.5 / §3.2: no ACK or NAK after the retransmissions: start over from INIT.
      out.add(event(Event::Kind::GaveUp, exchange));
      address_ = Ipv4{};
      become(ClientState::Init);
      send_discover(now, false, out);
      return;
    }
    case ClientState::Bound:
    case ClientState::Renewing:
    case ClientState::Rebinding:
      if (now >= lease_expiry()) {
        // §4.4.5: lease gone without an ACK: stop using the address, back to INIT.
        out.add(event(Event::Kind::Expired, Exchange::Rebind));
        address_ = Ipv4{};
        become(ClientState::Init);
        send_discover(now, false, out);
      } else if (now >= t2_at() && state_ != ClientState::Rebinding) {
        Event started = event(Event::Kind::RebindStarted, Exchange::Rebind);
        started.lease_fraction = fraction_of(now - lease_start_, lease_time_);
        out.add(started);
        become(ClientState::Rebinding);
        xid_ = random_.next_u32();
        attempt_ = 0;
        send_request(now, false, out);
      } else if (now >= t1_at() && state_ == ClientState::Bound) {
        Event started = event(Event::Kind::RenewStarted, Exchange::Renew);
        started.lease_fraction = fraction_of(now - lease_start_, lease_time_);
        out.add(started);
        become(ClientState::Renewing);
        xid_ = random_.next_u32();
        attempt_ = 0;
        send_request(now, false, out);
      } else if (state_ != ClientState::Bound) {
        const Exchange exchange =
            state_ == ClientState::Renewing ? Exchange::Renew : Exchange::Rebind;
        out.add(event(Event::Kind::Retransmitted, exchange));
        send_request(now, true, out);
      }
      return;
    case ClientState::InitReboot:
    case ClientState::Stopped: return;
  }
}

// §4.4.6: a departing client with a lease unicasts RELEASE to the server that granted it.
void Client::on_depart(bool release, TimePoint now, Output& out) {
  (void)now;
  const bool holds_lease = state_ == ClientState::Bound || state_ == ClientState::Renewing ||
                           state_ == ClientState::Rebinding;
  if (release && holds_lease) {
    xid_ = random_.next_u32();
    send_release(out);
    out.add(event(Event::Kind::Released, Exchange::Release));
  }
  address_ = Ipv4{};
  deadline_.reset();
  become(ClientState::Stopped);
}

void Client::on_reply(const wire::Message& reply, TimePoint now, Output& out) {
  // §4.4.1: replies whose xid or chaddr are not ours are discarded (the auditor judges them).
  if (reply.op != wire::Op::BootReply || reply.xid != xid_ ||
      !(reply.hardware_address() == identity_.hardware)) {
    return;
  }
  const auto type = reply.type();
  if (!type) return;
  switch (*type) {
    case wire::MessageType::Offer:
      if (state_ == ClientState::Selecting) on_offer(reply, now, out);
      return;
    case wire::MessageType::Ack:
    case wire::MessageType::Nak: {
      const bool waiting = state_ == ClientState::Requesting || state_ == ClientState::Rebooting ||
                           state_ == ClientState::Renewing || state_ == ClientState::Rebinding;
      if (!waiting) return;
      if (*type == wire::MessageType::Ack)
        on_ack(reply, now, out);
      else
        on_nak(now, out);
      return;
    }
    default: return;
  }
}

// §4.4.1: SELECTING -> REQUESTING on the first acceptable OFFER; REQUEST keeps the xid and
// names the chosen server (option 54) and address (option 50).
void Client::on_offer(const wire::Message& offer, TimePoint now, Output& out) {
  const auto server = offer.options.get_ipv4(wire::option::kServerId);
  if (offer.yiaddr.is_zero() || !server) return;
  offered_ = offer.yiaddr;
  offer_server_ = *server;
  Event offered = event(Event::Kind::Offered, Exchange::Discover);
  offered.address = offered_;
  out.add(offered);
  become(ClientState::Requesting);
  attempt_ = 0;
  send_request(now, false, out);
}

void Client::on_ack(const wire::Message& ack, TimePoint now, Output& out) {
  const auto lease_s = ack.options.get_u32(wire::option::kLeaseTime);
  if (!lease_s || *lease_s == 0) return;  // an ACK to a REQUEST must carry a lease time
  const Exchange exchange = state_ == ClientState::Requesting  ? Exchange::Request
                            : state_ == ClientState::Rebooting ? Exchange::Reboot
                            : state_ == ClientState::Renewing  ? Exchange::Renew
                                                               : Exchange::Rebind;
  const Ipv4 expected = exchange == Exchange::Request ? offered_ : address_;
  const Ipv4 server = ack.options.get_ipv4(wire::option::kServerId)
                          .value_or(exchange == Exchange::Request ? offer_server_ : server_);

  lease_time_ =
      *lease_s == kInfiniteLease ? kInfiniteLeaseTime : Duration{std::int64_t{*lease_s} * 1000};
  // §4.4.5: T1 and T2 default to 0.5 and 0.875 of the lease. Values that break
  // T1 < T2 < lease are a server fault (the auditor reports them); the client falls back.
  const Duration default_t1 = lease_time_ / 2;
  const Duration default_t2 = lease_time_ * 7 / 8;
  const auto t1_s = ack.options.get_u32(wire::option::kRenewalTime);
  const auto t2_s = ack.options.get_u32(wire::option::kRebindingTime);
  t1_ = t1_s ? Duration{std::int64_t{*t1_s} * 1000} : default_t1;
  t2_ = t2_s ? Duration{std::int64_t{*t2_s} * 1000} : default_t2;
  if (!(t1_ < t2_ && t2_ < lease_time_)) {
    t1_ = default_t1;
    t2_ = default_t2;
  }
  // §4.4.1: the lease runs from when the request was sent, not from when the ACK arrived.
  lease_start_ = last_sent_;
  address_ = ack.yiaddr;
  server_ = server;

  if (ack.yiaddr != expected) {
    Event changed = event(Event::Kind::AddressChanged, exchange);
    changed.expected_address = expected;
    out.add(changed);
  }
  if (exchange == Exchange::Request && decline_next_ack_) {
    // §4.4.1 / §3.1.5: the address is in use (ARP said so): DECLINE, then INIT after 10 s.
    // The ACK granted the address all the same: Leased first, so the auditor judges it.
    decline_next_ack_ = false;
    out.add(event(Event::Kind::Leased, exchange));
    out.add(event(Event::Kind::Declined, Exchange::Decline));
    xid_ = random_.next_u32();
    send_decline(out);
    address_ = Ipv4{};
    become(ClientState::Init);
    deadline_ = now + timing_.decline_restart;
    return;
  }
  const Event::Kind kind = exchange == Exchange::Renew    ? Event::Kind::Renewed
                           : exchange == Exchange::Rebind ? Event::Kind::Rebound
                                                          : Event::Kind::Leased;
  out.add(event(kind, exchange));
  become(ClientState::Bound);
  arm_lease_timer(now);
}

// §4.4.1/§4.4.5: a NAK ends the lease at once; the client restarts from INIT.
void Client::on_nak(TimePoint now, Output& out) {
  const Exchange exchange = state_ == ClientState::Requesting  ? Exchange::Request
                            : state_ == ClientState::Rebooting ? Exchange::Reboot
                            : state_ == ClientState::Renewing  ? Exchange::Renew
                                                               : Exchange::Rebind;
  out.add(event(Event::Kind::Nak, exchange));
  address_ = Ipv4{};
  become(ClientState::Init);
  send_discover(now, false, out);
}

// The next lease timer: T1 in BOUND; in RENEWING/REBINDING the §4.4.5 retransmission wait,
// never past T2 / expiry.
void Client::arm_lease_timer(TimePoint now) {
  switch (state_) {
    case ClientState::Bound: deadline_ = t1_at(); break;
    case ClientState::Renewing:
      deadline_ = std::min(t2_at(), now + renew_wait(now, t2_at()));
      break;
    case ClientState::Rebinding:
      deadline_ = std::min(lease_expiry(), now + renew_wait(now, lease_expiry()));
      break;
    default: break;
  }
}

// §4.4.5: "wait one-half of the remaining time until T2 (RENEWING) or lease expiration
// (REBINDING), down to a minimum of 60 seconds".
Duration Client::renew_wait(TimePoint now, TimePoint limit) const {
  return std::max(timing_.renew_retransmit_min, (limit - now) / 2);
}

// §4.1: 4 s before the first retransmission, doubling up to 64 s, each randomised by ±1 s.
Duration Client::backoff(int attempt) {
  Duration delay = timing_.retransmit_base;
  for (int i = 1; i < attempt && delay < timing_.retransmit_max; ++i) delay *= 2;
  delay = std::min(delay, timing_.retransmit_max);
  const auto jitter_ms = timing_.jitter.count();
  delay += Duration{random_.between(-jitter_ms, jitter_ms)};
  return std::max(delay, Duration{1});
}

wire::Message Client::request_header(wire::MessageType type) const {
  wire::Message message;
  message.op = wire::Op::BootRequest;
  message.htype = identity_.hardware.type();
  message.hlen = identity_.hardware.length();
  message.xid = xid_;
  const auto hardware = identity_.hardware.bytes();
  std::copy(hardware.begin(), hardware.end(), message.chaddr.begin());
  message.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(type));
  if (!identity_.client_id.empty()) {
    message.options.set(wire::option::kClientId, identity_.client_id.bytes());
  }
  if (request_options_) {
    for (const ExtraOption& extra : request_options_->extra) {
      message.options.set(extra.code, extra.value);
    }
  }
  return message;
}

// DISCOVER and REQUEST ask for what the client runs on (or --prl's list) and, when set, a
// lease time (§3.5: a client MAY suggest one).
void Client::ask_for_parameters(wire::Message& message) const {
  const bool own_list = request_options_ && !request_options_->parameter_request_list.empty();
  message.options.set(wire::option::kParameterRequestList,
                      own_list ? std::span<const std::uint8_t>(
                                     request_options_->parameter_request_list)
                               : std::span<const std::uint8_t>(kParameterRequestList));
  if (request_options_ && request_options_->lease_time_s) {
    message.options.set_u32(wire::option::kLeaseTime, *request_options_->lease_time_s);
  }
}

void Client::send_discover(TimePoint now, bool retransmission, Output& out) {
  if (!retransmission) {
    xid_ = random_.next_u32();
    attempt_ = 0;
    discovery_started_ = now;
    if (state_ != ClientState::Selecting) become(ClientState::Selecting);
  }
  wire::Message message = request_header(wire::MessageType::Discover);
  // §2 `secs`: seconds since the client began acquiring an address, as real clients fill it:
  // peers answer a DISCOVER outside their hash buckets once it is old enough (config peers).
  const auto waited_s = std::chrono::duration_cast<std::chrono::seconds>(now - discovery_started_).count();
  message.secs = static_cast<std::uint16_t>(std::clamp<std::int64_t>(waited_s, 0, 0xffff));
  ask_for_parameters(message);
  ++attempt_;
  last_sent_ = now;
  deadline_ = now + backoff(attempt_);
  out.transmission = Transmission{std::move(message), Destination::Broadcast, Ipv4{},
                                  Exchange::Discover, retransmission};
}

// The four REQUESTs of §4.3.2's table, by state.
void Client::send_request(TimePoint now, bool retransmission, Output& out) {
  wire::Message message = request_header(wire::MessageType::Request);
  ask_for_parameters(message);
  Destination destination = Destination::Broadcast;
  Exchange exchange = Exchange::Request;
  switch (state_) {
    case ClientState::Requesting:  // SELECTING: 50 and 54 MUST, ciaddr 0
      message.options.set_ipv4(wire::option::kRequestedAddress, offered_);
      message.options.set_ipv4(wire::option::kServerId, offer_server_);
      break;
    case ClientState::Rebooting:  // INIT-REBOOT: 50 MUST, 54 MUST NOT, ciaddr 0
      message.options.set_ipv4(wire::option::kRequestedAddress, address_);
      exchange = Exchange::Reboot;
      break;
    case ClientState::Renewing:  // ciaddr set, no 50/54, unicast to the server
      message.ciaddr = address_;
      destination = Destination::ServerUnicast;
      exchange = Exchange::Renew;
      break;
    case ClientState::Rebinding:  // ciaddr set, no 50/54, broadcast
      message.ciaddr = address_;
      exchange = Exchange::Rebind;
      break;
    default: LANDLORD_ASSERT(false);
  }
  ++attempt_;
  last_sent_ = now;
  if (exchange == Exchange::Renew || exchange == Exchange::Rebind) {
    arm_lease_timer(now);
  } else {
    deadline_ = now + backoff(attempt_);
  }
  out.transmission =
      Transmission{std::move(message), destination, server_, exchange, retransmission};
}

// §4.4.1 table: DECLINE carries 50 and 54, ciaddr 0, and is broadcast (§4.4.4).
void Client::send_decline(Output& out) {
  wire::Message message = request_header(wire::MessageType::Decline);
  message.options.set_ipv4(wire::option::kRequestedAddress, address_);
  message.options.set_ipv4(wire::option::kServerId, server_);
  out.transmission =
      Transmission{std::move(message), Destination::Broadcast, Ipv4{}, Exchange::Decline, false};
}

// §4.4.6 / table: RELEASE carries ciaddr and 54, no 50, and is unicast to the server.
void Client::send_release(Output& out) {
  wire::Message message = request_header(wire::MessageType::Release);
  message.ciaddr = address_;
  message.options.set_ipv4(wire::option::kServerId, server_);
  out.transmission = Transmission{std::move(message), Destination::ServerUnicast, server_,
                                  Exchange::Release, false};
}

}  // namespace landlord::sim
