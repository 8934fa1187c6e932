#pragma once
// A small scripted DHCP responder for the fleet tests — deliberately not landlord's engine: the
// simulator must work against any server. It answers after a fixed delay, hands out addresses
// from a pool, and can be told to misbehave so the auditor has something to catch.
#include <algorithm>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "landlord/sim/fleet.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim::test {

class ScriptedServer : public Sink {
 public:
  struct Behaviour {
    std::uint32_t lease_s = 60;
    bool send_timers = true;            // options 58/59; otherwise the client's defaults apply
    bool same_address_for_all = false;  // a broken allocator
    std::uint32_t pool_size = 1000;
  };

  explicit ScriptedServer(Behaviour behaviour) : behaviour_(behaviour) {}

  TimePoint now{};
  Duration delay = std::chrono::milliseconds(2);
  // A server of finite speed: each reply takes this long to make, one after the other, so
  // requests offered faster than 1 / service_time queue up.
  Duration service_time{0};
  // An overloaded server: above this many requests in the last second, replies take
  // `overload_delay` instead of `delay`.
  std::optional<std::size_t> overload_above_per_s;
  Duration overload_delay = std::chrono::milliseconds(1500);
  std::size_t requests_seen = 0;

  void send(Transmission& transmission) override {
    ++requests_seen;
    recent_.push_back(now);
    while (recent_.front() + std::chrono::seconds(1) <= now) recent_.pop_front();
    const wire::Message& request = transmission.message;
    const auto type = request.type();
    if (!type) return;
    const std::string key = request.client_key().raw();
    switch (*type) {
      case wire::MessageType::Discover: {
        const auto address = allocate(key);
        if (address) queue(reply(request, wire::MessageType::Offer, *address));
        return;
      }
      case wire::MessageType::Request: {
        const auto server_id = request.options.get_ipv4(wire::option::kServerId);
        if (server_id && *server_id != kId) return;  // the client chose another server
        const Ipv4 wanted =
            request.ciaddr.is_zero()
                ? request.options.get_ipv4(wire::option::kRequestedAddress).value_or(Ipv4{})
                : request.ciaddr;
        if (grantable(key, wanted)) {
          bind(key, wanted, now + std::chrono::seconds(behaviour_.lease_s));
          queue(reply(request, wire::MessageType::Ack, wanted));
        } else {
          queue(reply(request, wire::MessageType::Nak, Ipv4{}));
        }
        return;
      }
      case wire::MessageType::Release: unbind(key); return;
      case wire::MessageType::Decline: {
        const auto address = request.options.get_ipv4(wire::option::kRequestedAddress);
        if (address) declined_.push_back(*address);
        unbind(key);
        return;
      }
      default: return;
    }
  }

  std::optional<TimePoint> next_due() const {
    if (pending_.empty()) return std::nullopt;
    return pending_.front().first;
  }
  // Encoded replies due by `now`, oldest first.
  std::optional<std::vector<std::uint8_t>> take_due() {
    if (pending_.empty() || pending_.front().first > now) return std::nullopt;
    auto packet = std::move(pending_.front().second);
    pending_.pop_front();
    return packet;
  }

  static constexpr Ipv4 kId{198, 18, 0, 1};

 private:
  struct Binding {
    Ipv4 address;
    TimePoint expires;
  };

  bool in_use_by_other(const std::string& key, Ipv4 address) const {
    if (const auto it = holders_.find(address); it != holders_.end() && it->second != key) {
      const auto binding = bindings_.find(it->second);
      if (binding != bindings_.end() && binding->second.expires > now) return true;
    }
    return std::find(declined_.begin(), declined_.end(), address) != declined_.end();
  }
  // Bindings by address too, so that a fleet of thousands is served in linear time.
  void bind(const std::string& key, Ipv4 address, TimePoint expires) {
    unbind(key);
    bindings_[key] = {address, expires};
    holders_[address] = key;
  }
  void unbind(const std::string& key) {
    const auto it = bindings_.find(key);
    if (it == bindings_.end()) return;
    if (const auto holder = holders_.find(it->second.address);
        holder != holders_.end() && holder->second == key) {
      holders_.erase(holder);
    }
    bindings_.erase(it);
  }
  bool grantable(const std::string& key, Ipv4 wanted) const {
    if (wanted.is_zero()) return false;
    if (behaviour_.same_address_for_all) return true;
    const auto it = bindings_.find(key);
    if (it != bindings_.end() && it->second.address != wanted) return false;
    return !in_use_by_other(key, wanted);
  }
  std::optional<Ipv4> allocate(const std::string& key) {
    if (behaviour_.same_address_for_all) return Ipv4{198, 18, 0, 10};
    const auto it = bindings_.find(key);
    if (it != bindings_.end() && !in_use_by_other(key, it->second.address))
      return it->second.address;
    // Round robin from where the last search ended: free addresses are found at once.
    for (std::uint32_t i = 0; i < behaviour_.pool_size; ++i) {
      const std::uint32_t offset = (next_candidate_ + i) % behaviour_.pool_size;
      const Ipv4 candidate{Ipv4{198, 18, 0, 10}.to_uint() + offset};
      if (!in_use_by_other(key, candidate)) {
        next_candidate_ = offset + 1;
        bind(key, candidate, now + std::chrono::seconds(30));  // a short hold for the offer
        return candidate;
      }
    }
    return std::nullopt;
  }
  wire::Message reply(const wire::Message& request, wire::MessageType type, Ipv4 address) const {
    wire::Message message;
    message.op = wire::Op::BootReply;
    message.xid = request.xid;
    message.hlen = request.hlen;
    message.chaddr = request.chaddr;
    message.yiaddr = address;
    message.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(type));
    message.options.set_ipv4(wire::option::kServerId, kId);
    if (type != wire::MessageType::Nak) {
      message.options.set_u32(wire::option::kLeaseTime, behaviour_.lease_s);
      if (behaviour_.send_timers) {
        message.options.set_u32(wire::option::kRenewalTime, behaviour_.lease_s / 2);
        message.options.set_u32(wire::option::kRebindingTime, behaviour_.lease_s * 7 / 8);
      }
    }
    return message;
  }
  void queue(const wire::Message& message) {
    std::vector<std::uint8_t> packet(wire::kMinMessageSize + 300);
    const auto built = wire::build(message, packet);
    if (!built) return;
    packet.resize(built->size);
    const bool overloaded = overload_above_per_s && recent_.size() > *overload_above_per_s;
    busy_until_ = std::max(now, busy_until_) + service_time;
    const TimePoint due = busy_until_ + (overloaded ? overload_delay : delay);
    // Kept in order of due time: a reply made slowly may be due after one queued later.
    auto at = pending_.end();
    while (at != pending_.begin() && std::prev(at)->first > due) --at;
    pending_.emplace(at, due, std::move(packet));
  }

  Behaviour behaviour_;
  std::map<std::string, Binding> bindings_;
  std::unordered_map<Ipv4, std::string> holders_;
  std::uint32_t next_candidate_ = 0;
  std::vector<Ipv4> declined_;
  std::deque<std::pair<TimePoint, std::vector<std::uint8_t>>> pending_;
  std::deque<TimePoint> recent_;  // requests seen in the last second
  TimePoint busy_until_{};
};

// Runs `fleet` (a Fleet, or a ClosedLoop driving one) against `server` in virtual time: from one
// deadline or reply to the next.
template <class Run>
void run_virtual(Run& fleet, ScriptedServer& server, TimePoint start,
                 const std::function<void(TimePoint)>& each_step = {}) {
  TimePoint now = start;
  for (int guard = 0; guard < 50'000'000 && !fleet.finished(now); ++guard) {
    if (each_step) each_step(now);
    server.now = now;
    fleet.advance(now, Fleet::as_ns(now), server);
    while (auto packet = server.take_due()) fleet.receive(*packet, now, Fleet::as_ns(now), server);
    std::optional<TimePoint> next = fleet.next_deadline();
    if (const auto due = server.next_due(); due && (!next || *due < *next)) next = due;
    if (!next) break;
    now = std::max(now + std::chrono::milliseconds(1), *next);
  }
}

}  // namespace landlord::sim::test
