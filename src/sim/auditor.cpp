#include "landlord/sim/auditor.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace landlord::sim {

namespace {
constexpr std::size_t kKeptViolations = 1000;  // a broken server must not exhaust memory
constexpr std::uint32_t kInfiniteLease = 0xffffffffu;
// The reply as the report names it: type, xid, chaddr, and what it granted.
std::string reply_exchange(const wire::Message& reply, std::optional<ClientIndex> client) {
  std::string out = fmt::format("{} xid {:#010x} chaddr {}",
                                reply.type() ? wire::to_string(*reply.type()) : "reply",
                                reply.xid, reply.hardware_address().to_string());
  if (client) out += fmt::format(" (client {})", *client);
  if (!reply.yiaddr.is_zero()) out += fmt::format(" yiaddr {}", reply.yiaddr.to_string());
  if (const auto lease = reply.options.get_u32(wire::option::kLeaseTime)) {
    out += fmt::format(" lease {} s", *lease);
  }
  const auto t1 = reply.options.get_u32(wire::option::kRenewalTime);
  const auto t2 = reply.options.get_u32(wire::option::kRebindingTime);
  if (t1) out += fmt::format(" T1 {} s", *t1);
  if (t2) out += fmt::format(" T2 {} s", *t2);
  return out;
}

// The client's exchange that an event ended: which request, its xid, the ACK's address.
std::string event_exchange(ClientIndex client, const Event& event) {
  return fmt::format("{} exchange xid {:#010x} of client {}: ACK of {} for {} s", to_string(event.exchange),
                     event.xid, client, event.address.to_string(),
                     std::chrono::duration_cast<std::chrono::seconds>(event.lease_time).count());
}

}  // namespace

std::string_view to_string(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::DuplicateAddress: return "duplicate-address";
    case Violation::Kind::AddressChanged: return "address-changed";
    case Violation::Kind::BadTimers: return "bad-timers";
    case Violation::Kind::UnsolicitedReply: return "unsolicited-reply";
    case Violation::Kind::RelayInfoNotEchoed: return "relay-info-not-echoed";
  }
  return "?";
}

void Auditor::on_sent(ClientIndex client, std::uint32_t xid) {
  if (recent_.size() <= client) recent_.resize(std::size_t{client} + 1);
  Recent& recent = recent_[client];
  const auto end = recent.xids.begin() + recent.count;
  if (std::find(recent.xids.begin(), end, xid) != end) return;  // a retransmission
  recent.xids[recent.next] = xid;
  recent.next = static_cast<std::uint8_t>((recent.next + 1) % kRecentXids);
  recent.count = static_cast<std::uint8_t>(std::min<std::size_t>(recent.count + 1, kRecentXids));
}

void Auditor::on_reply(std::optional<ClientIndex> client, const wire::Message& reply,
                       TimePoint now) {
  if (!client) {
    report(Violation::Kind::UnsolicitedReply, now,
           fmt::format("reply xid {:#010x} for chaddr {} that no simulated client has", reply.xid,
                       reply.hardware_address().to_string()),
           reply_exchange(reply, client));
    return;
  }
  const bool sent = *client < recent_.size() &&
                    std::find(recent_[*client].xids.begin(),
                              recent_[*client].xids.begin() + recent_[*client].count,
                              reply.xid) != recent_[*client].xids.begin() + recent_[*client].count;
  if (!sent) {
    report(Violation::Kind::UnsolicitedReply, now,
           fmt::format("reply xid {:#010x} to client {} ({}), which sent no request with it",
                       reply.xid, *client, reply.hardware_address().to_string()),
           reply_exchange(reply, client));
    return;
  }
  if (check_relay_agent_info_) {
    const auto echoed = reply.options.get(wire::option::kRelayAgentInfo);
    if (!reply.options.has(wire::option::kRelayAgentInfo) ||
        !std::equal(echoed.begin(), echoed.end(), expected_relay_agent_info_.begin(),
                    expected_relay_agent_info_.end())) {
      report(
          Violation::Kind::RelayInfoNotEchoed, now,
          fmt::format("{} xid {:#010x} to client {} without the relay agent information sent",
                      reply.type() ? wire::to_string(*reply.type()) : "reply", reply.xid, *client),
          reply_exchange(reply, client));
    }
  }
  if (reply.type() != wire::MessageType::Ack) return;
  // §4.4.5: T1 < T2 < lease time. Only values the server actually sent are judged.
  const auto lease = reply.options.get_u32(wire::option::kLeaseTime);
  const auto t1 = reply.options.get_u32(wire::option::kRenewalTime);
  const auto t2 = reply.options.get_u32(wire::option::kRebindingTime);
  const bool finite = lease && *lease != kInfiniteLease;
  std::string problem;
  if (t1 && t2 && *t1 >= *t2)
    problem = fmt::format("T1 {} s >= T2 {} s", *t1, *t2);
  else if (finite && t2 && *t2 >= *lease)
    problem = fmt::format("T2 {} s >= lease {} s", *t2, *lease);
  else if (finite && t1 && *t1 >= *lease)
    problem = fmt::format("T1 {} s >= lease {} s", *t1, *lease);
  if (!problem.empty()) {
    report(Violation::Kind::BadTimers, now,
           fmt::format("ACK of {} to client {}: {}", reply.yiaddr.to_string(), *client, problem),
           reply_exchange(reply, client));
  }
}

void Auditor::on_event(ClientIndex client, const Event& event, TimePoint now) {
  switch (event.kind) {
    case Event::Kind::Leased:
    case Event::Kind::Renewed:
    case Event::Kind::Rebound:
      hold(client, event, now);
      return;
    case Event::Kind::AddressChanged:
      report(Violation::Kind::AddressChanged, now,
             fmt::format("{} ACK to client {} gave {} instead of the requested {} (no NAK)",
                         to_string(event.exchange), client, event.address.to_string(),
                         event.expected_address.to_string()),
             event_exchange(client, event));
      return;
    case Event::Kind::Declined:  // the server must not give a declined address out again soon,
    case Event::Kind::Released:  // nor treat a released one as held
    case Event::Kind::Nak:       // a NAK says the server holds no lease for this client
      drop(client, event.address);
      return;
    default: return;
  }
}

// The server processed this ACK no later than `now`, and the other holder's lease runs on the
// server at least until its request was sent plus its lease time (less rounding): if `now` is
// before that, two clients held the address at once.
void Auditor::hold(ClientIndex client, const Event& event, TimePoint now) {
  const Ipv4 address = event.address;
  const TimePoint until = event.lease_start + event.lease_time;
  if (held_by_client_.size() <= client) held_by_client_.resize(std::size_t{client} + 1);
  if (const auto previous = held_by_client_[client]; previous && *previous != address) {
    drop(client, *previous);  // a client holds one lease; the old one was replaced
  }
  const auto it = holders_.find(address);
  if (it != holders_.end() && it->second.client != client && now + grace_ < it->second.until) {
    report(Violation::Kind::DuplicateAddress, now,
           fmt::format("{} ACKed to client {} while client {} holds it for {} ms more",
                       address.to_string(), client, it->second.client,
                       (it->second.until - now).count()),
           event_exchange(client, event));
  }
  holders_[address] = Holding{client, until};
  held_by_client_[client] = address;
}

void Auditor::drop(ClientIndex client, Ipv4 address) {
  const auto it = holders_.find(address);
  if (it != holders_.end() && it->second.client == client) holders_.erase(it);
  if (client < held_by_client_.size() && held_by_client_[client] == address) {
    held_by_client_[client].reset();
  }
}

void Auditor::report(Violation::Kind kind, TimePoint at, std::string detail,
                     std::string exchange) {
  ++violation_count_;
  if (violations_.size() < kKeptViolations) {
    violations_.push_back({kind, at, std::move(detail), std::move(exchange)});
  }
}

}  // namespace landlord::sim
