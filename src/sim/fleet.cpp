#include "landlord/sim/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace landlord::sim {

namespace {

Duration scaled(Duration base, double factor) {
  return Duration{static_cast<std::int64_t>(static_cast<double>(base.count()) * factor)};
}

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Running: return "running";
    case StopReason::Duration: return "duration";
    case StopReason::MaxExchanges: return "max-exchanges";
    case StopReason::MaxDrops: return "max-drops";
  }
  return "?";
}

namespace {
ClientMacs macs_for(const Workload& workload) {
  if (!workload.macs.empty()) return ClientMacs::from_list(workload.macs);
  if (workload.base_mac) return ClientMacs::counted_from(*workload.base_mac);
  return ClientMacs::seeded(workload.seed);
}
constexpr std::size_t kDropFractionMinimumSent = 100;
}  // namespace

std::array<Histogram, kExchangeCount> latency_histograms() {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Histogram, kExchangeCount>{((void)I, Histogram{kLatencyResolutionMs})...};
  }(std::make_index_sequence<kExchangeCount>{});
}

Fleet::Fleet(const Workload& workload, TimePoint start)
    : workload_(workload),
      macs_(macs_for(workload)),
      start_(start),
      random_(derive_seed(workload.seed, 0xf1ee7)),
      drop_random_(derive_seed(workload.seed, 0xd209)) {
  if (workload_.stay.count() <= 0) workload_.stay = workload_.duration / 2;
  for (const ClientGroup& group : workload_.client_groups) {
    group_options_.push_back(merged(workload_.request_options, group.options));
  }
  group_options_.push_back(workload_.request_options);
  clients_.reserve(workload_.clients);
  add_arrivals(start, workload_.arrival_rate_per_s, workload_.clients);
}

ClientIndex Fleet::add_arrivals(TimePoint from, double rate_per_s, std::size_t count) {
  const auto first = static_cast<ClientIndex>(scheduled_);
  if (count == 0) return first;
  arrivals_.push_back({scheduled_, count, from, rate_per_s});
  scheduled_ += count;
  return first;
}

TimePoint Fleet::arrival_time(std::size_t index) const {
  // The run holding `index`: the last one starting at or before it.
  const auto run = std::prev(std::upper_bound(
      arrivals_.begin(), arrivals_.end(), index,
      [](std::size_t i, const Arrivals& arrivals) { return i < arrivals.first; }));
  if (run->rate_per_s <= 0) return run->from;
  return run->from + Duration{static_cast<std::int64_t>(static_cast<double>(index - run->first) *
                                                        1000.0 / run->rate_per_s)};
}

std::optional<TimePoint> Fleet::next_deadline() const {
  std::optional<TimePoint> next;
  if (!agenda_.empty()) next = agenda_.top().at;
  if (arrived_ < scheduled_) {
    const TimePoint arrival = arrival_time(arrived_);
    if (!next || arrival < *next) next = arrival;
  }
  return next;
}

void Fleet::advance(TimePoint now, std::int64_t precise_ns, Sink& sink) {
  if (finished(now)) return;
  arrive(now, precise_ns, sink);
  while (!agenda_.empty() && agenda_.top().at <= now) {
    const Due due = agenda_.top();
    agenda_.pop();
    switch (due.what) {
      case Agenda::Timer:
        if (due.generation != generation_[due.client]) break;  // re-armed since
        armed_[due.client].reset();
        apply(due.client, Tick{}, now, precise_ns, sink);
        break;
      case Agenda::Depart: apply(due.client, Depart{true}, now, precise_ns, sink); break;
      case Agenda::Vanish:
        if (clients_[due.client].state() != ClientState::Stopped) ++stats_.vanished;
        if (const auto it = holders_.find(clients_[due.client].address());
            it != holders_.end() && it->second == due.client) {
          holders_.erase(it);  // no longer answered for; the server keeps it until expiry
        }
        apply(due.client, Depart{false}, now, precise_ns, sink);
        break;
      case Agenda::Restart:
        if (clients_[due.client].state() == ClientState::Stopped) break;
        ++stats_.reboots;
        apply(due.client, Reboot{}, now, precise_ns, sink);
        break;
    }
  }
}

// New clients at the configured rate; each one's fate is drawn as it arrives, in order, so the
// workload is the same for a seed whatever the server does.
void Fleet::arrive(TimePoint now, std::int64_t precise_ns, Sink& sink) {
  while (arrived_ < scheduled_ && arrival_time(arrived_) <= now) {
    const auto index = static_cast<ClientIndex>(arrived_++);
    const HardwareAddress mac = macs_.mac_of(index);
    ClientIdentity identity{mac, {}};
    if (workload_.send_client_id) {
      std::array<std::uint8_t, 7> id{HardwareAddress::kEthernet};
      std::copy(mac.bytes().begin(), mac.bytes().end(), id.begin() + 1);
      identity.client_id = ClientId{id};
    }
    clients_.emplace_back(identity, workload_.timing, derive_seed(workload_.seed, index + 1),
                          &group_options_[group_of(index, workload_.client_groups)]);
    generation_.push_back(0);
    armed_.emplace_back();
    sent_ns_.push_back(0);
    dora_.emplace_back();
    renew_fraction_.push_back(0);
    rebind_fraction_.push_back(0);

    const TimePoint arrived_at = arrival_time(index);
    const double fate = random_.unit();
    const TimePoint leaves_at = arrived_at + scaled(workload_.stay, 0.5 + random_.unit());
    if (fate < workload_.release_fraction) {
      agenda_.push({leaves_at, index, Agenda::Depart, 0});
    } else if (fate < workload_.release_fraction + workload_.vanish_fraction) {
      agenda_.push({leaves_at, index, Agenda::Vanish, 0});
    }
    if (random_.chance(workload_.decline_fraction)) clients_.back().decline_next_ack();
    if (random_.chance(workload_.restart_fraction)) {
      agenda_.push({arrived_at + scaled(workload_.stay, 0.25 + 0.75 * random_.unit()), index,
                    Agenda::Restart, 0});
    }
    ++stats_.clients_started;
    apply(index, Start{}, now, precise_ns, sink);
  }
}

void Fleet::apply(ClientIndex index, const Input& input, TimePoint now, std::int64_t precise_ns,
                  Sink& sink) {
  Output out = clients_[index].step(input, now);
  for (const Event& event : out.event_list()) account(index, event, now, precise_ns);
  if (out.transmission) transmit(index, *out.transmission, now, precise_ns, sink);
  rearm(index);
}

// One queued timer per client: a new entry only when its deadline moved; older entries are
// recognised as stale by their generation and skipped.
void Fleet::rearm(ClientIndex index) {
  const auto deadline = clients_[index].next_deadline();
  if (deadline == armed_[index]) return;
  ++generation_[index];
  armed_[index] = deadline;
  if (deadline) agenda_.push({*deadline, index, Agenda::Timer, generation_[index]});
}

void Fleet::account(ClientIndex index, const Event& event, TimePoint now, std::int64_t precise_ns) {
  auditor_.on_event(index, event, now);
  const auto latency = [&](Exchange exchange) {
    const double latency_ms = static_cast<double>(precise_ns - sent_ns_[index]) / 1e6;
    stats_.latency_ms[static_cast<std::size_t>(exchange)].record(latency_ms);
    if (latency_observer_) latency_observer_->on_latency(exchange, latency_ms);
  };
  // Where the server put T1 and T2, as fractions of the lease (the report marks them).
  const auto granted = [&] {
    if (event.lease_time.count() <= 0) return;
    const auto lease = static_cast<double>(event.lease_time.count());
    stats_.granted_t1_fraction.record(static_cast<double>(event.t1.count()) / lease);
    stats_.granted_t2_fraction.record(static_cast<double>(event.t2.count()) / lease);
  };
  const auto release_address = [&] {
    const auto it = holders_.find(event.address);
    if (it != holders_.end() && it->second == index) holders_.erase(it);
  };
  using Kind = Event::Kind;
  switch (event.kind) {
    case Kind::Offered:
      if (dora_[index].offer_ns < 0) dora_[index].offer_ns = precise_ns;
      ++stats_.offers;
      latency(Exchange::Discover);
      break;
    case Kind::Leased:
      if (event.exchange == Exchange::Request && dora_[index].ack_ns < 0) {
        dora_[index].ack_ns = precise_ns;
      }
      ++stats_.leases;
      latency(event.exchange);
      granted();
      holders_[event.address] = index;
      break;
    case Kind::Renewed:
      ++stats_.renewals;
      latency(Exchange::Renew);
      granted();
      stats_.renew_fraction.record(renew_fraction_[index]);
      holders_[event.address] = index;
      break;
    case Kind::Rebound:
      ++stats_.rebinds;
      latency(Exchange::Rebind);
      granted();
      stats_.rebind_fraction.record(rebind_fraction_[index]);
      holders_[event.address] = index;
      break;
    case Kind::RenewStarted:
      ++stats_.renew_started;
      renew_fraction_[index] = event.lease_fraction;
      break;
    case Kind::RebindStarted:
      ++stats_.rebind_started;
      rebind_fraction_[index] = event.lease_fraction;
      break;
    case Kind::Nak:
      ++stats_.naks;
      latency(event.exchange);
      release_address();
      break;
    case Kind::Declined:
      ++stats_.declines;
      release_address();
      break;
    case Kind::Released:
      ++stats_.releases;
      release_address();
      break;
    case Kind::Expired:
      ++stats_.expirations;
      release_address();
      break;
    case Kind::GaveUp:
      ++stats_.gave_up;
      release_address();
      break;
    case Kind::Retransmitted: ++stats_.retransmissions; break;
    case Kind::AddressChanged: break;  // the auditor's business
  }
}

void Fleet::transmit(ClientIndex index, Transmission& transmission, TimePoint now,
                     std::int64_t precise_ns, Sink& sink) {
  auditor_.on_sent(index, transmission.message.xid);
  if (transmission.exchange == Exchange::Renew && workload_.block_unicast &&
      workload_.block_unicast->contains(now - start_)) {
    ++stats_.unicast_blocked;  // lost on the way: the client must fall back to REBINDING
    return;
  }
  sent_ns_[index] = precise_ns;
  DoraStamps& dora = dora_[index];
  if (transmission.exchange == Exchange::Discover && dora.discover_ns < 0) {
    dora.discover_ns = precise_ns;
  }
  if (transmission.exchange == Exchange::Request && dora.request_ns < 0) {
    dora.request_ns = precise_ns;
  }
  ++stats_.packets_sent;
  sink.send(transmission);
}

void Fleet::receive(std::span<const std::uint8_t> payload, TimePoint now, std::int64_t precise_ns,
                    Sink& sink) {
  if (wire::parse_into(payload, scratch_)) {
    ++stats_.unparsable;
    return;
  }
  receive(scratch_, now, precise_ns, sink);
}

void Fleet::receive(const wire::Message& reply, TimePoint now, std::int64_t precise_ns,
                    Sink& sink) {
  if (reply.op != wire::Op::BootReply) return;  // our own requests, seen on a shared link
  ++stats_.packets_received;
  if (drop_random_.chance(workload_.drop_replies)) {
    ++stats_.replies_dropped;
    return;
  }
  const auto client = client_of(reply.hardware_address());
  auditor_.on_reply(client, reply, now);
  if (client && clients_[*client].state() != ClientState::Stopped) {
    apply(*client, Received{&reply}, now, precise_ns, sink);
  }
}

std::optional<ClientIndex> Fleet::client_of(const HardwareAddress& chaddr) const {
  const auto index = macs_.index_of(chaddr);
  if (!index || *index >= clients_.size()) return std::nullopt;
  return index;
}

StopReason Fleet::stop_reason(TimePoint now) const {
  if (now >= start_ + workload_.duration) return StopReason::Duration;
  const StopLimits& limits = workload_.limits;
  if (limits.max_exchanges && stats_.exchanges() >= *limits.max_exchanges) {
    return StopReason::MaxExchanges;
  }
  const std::size_t drops = stats_.retransmissions + stats_.gave_up;
  if (limits.max_drops && drops > *limits.max_drops) return StopReason::MaxDrops;
  if (limits.max_drop_fraction && stats_.packets_sent >= kDropFractionMinimumSent &&
      static_cast<double>(drops) > *limits.max_drop_fraction * static_cast<double>(stats_.packets_sent)) {
    return StopReason::MaxDrops;
  }
  return StopReason::Running;
}

std::optional<HardwareAddress> Fleet::holder_of(Ipv4 address) const {
  const auto it = holders_.find(address);
  if (it == holders_.end()) return std::nullopt;
  const Client& holder = clients_[it->second];
  const bool holding = holder.address() == address && (holder.state() == ClientState::Bound ||
                                                       holder.state() == ClientState::Renewing ||
                                                       holder.state() == ClientState::Rebinding);
  if (!holding) return std::nullopt;
  return holder.identity().hardware;
}

std::array<std::size_t, kClientStateCount> Fleet::state_counts() const {
  std::array<std::size_t, kClientStateCount> counts{};
  for (const Client& client : clients_) ++counts[static_cast<std::size_t>(client.state())];
  return counts;
}

}  // namespace landlord::sim
