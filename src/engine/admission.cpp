#include "landlord/engine/admission.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::engine {
namespace {

// How often the addresses counted under a key are checked against the engine again: a lease
// that ended or an offer taken makes room at most this late.
constexpr Duration kRecheckInterval = std::chrono::seconds{1};
// Keys in all tables before idle ones are swept; a sweep sets the next one at twice what stays.
constexpr std::size_t kFirstSweep = 4096;
// Keys in all tables at most: past this after a sweep, busy keys are forgotten too (counted).
constexpr std::size_t kMaxKeys = std::size_t{1} << 20;

void append(std::string& key, std::span<const std::uint8_t> bytes) {
  key.push_back(static_cast<char>(bytes.size()));
  key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string key_of(std::uint32_t subnet_id, char family) {
  std::string key;  // no reserve(): most keys fit the string's own buffer, without a heap block
  key.append(reinterpret_cast<const char*>(&subnet_id), sizeof subnet_id);
  key.push_back(family);
  return key;
}

std::span<const std::uint8_t> bytes_of(const Ipv4& address, std::array<std::uint8_t, 4>& out) {
  const std::uint32_t value = address.to_uint();
  out = {static_cast<std::uint8_t>(value >> 24), static_cast<std::uint8_t>(value >> 16),
         static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value)};
  return out;
}

}  // namespace

std::string_view to_string(Refusal refusal) {
  switch (refusal) {
    case Refusal::ClientRate: return "client_rate";
    case Refusal::RelayRate: return "relay_rate";
    case Refusal::CircuitRate: return "circuit_rate";
    case Refusal::RelayLeases: return "relay_leases";
    case Refusal::CircuitLeases: return "circuit_leases";
    case Refusal::RemoteLeases: return "remote_leases";
    case Refusal::MacPrefixLeases: return "mac_prefix_leases";
    case Refusal::SourceOffers: return "source_offers";
    case Refusal::SourceLeases: return "source_leases";
  }
  return "unknown";
}

// The keys of one request in one subnet; empty where the request has none (no circuit-id, ...)
// or where the step at hand does not use it.
struct Admission::Keys {
  std::string client, relay, circuit, remote, prefix, source;
};

// Which keys a step uses. Only those are built: with the defaults a relayed request uses the
// client's bucket alone, and building the other keys was most of admission's cost per DORA.
struct Admission::Wanted {
  bool client = false, relay = false, circuit = false, remote = false, prefix = false, source = false;
  bool any() const { return client || relay || circuit || remote || prefix || source; }
};

// admit(): every key with a cap or a bucket.
Admission::Wanted Admission::wanted_to_admit(const config::Admission& limits) {
  return {.client = limits.client.limits(),
          .relay = limits.relay.limits() || limits.relay_leases > 0,
          .circuit = limits.circuit.limits() || limits.circuit_leases > 0,
          .remote = limits.remote_leases > 0,
          .prefix = limits.mac_prefix_leases > 0,
          .source = limits.source_offers > 0 || limits.source_leases > 0};
}

// offered() and granted(): the keys what was given is counted under.
Admission::Wanted Admission::wanted_to_count(const config::Admission& limits, bool offer) {
  return {.relay = limits.relay_leases > 0,
          .circuit = limits.circuit_leases > 0,
          .remote = limits.remote_leases > 0,
          .prefix = limits.mac_prefix_leases > 0,
          .source = (offer && limits.source_offers > 0) || limits.source_leases > 0};
}

Admission::Admission(const config::Config& config, Holds offered, Holds bound)
    : offered_(std::move(offered)), bound_(std::move(bound)), next_sweep_at_(kFirstSweep) {
  reconfigure(config);
}

void Admission::reconfigure(const config::Config& config) {
  limits_.clear();
  for (const config::Subnet& subnet : config.subnets) {
    LANDLORD_ASSERT(subnet.id == limits_.size() + 1);
    limits_.push_back(subnet.admission);
  }
}

const config::Admission* Admission::limits_of(std::uint32_t subnet_id) const {
  if (subnet_id == 0 || subnet_id > limits_.size()) return nullptr;
  return &limits_[subnet_id - 1];
}

Admission::Keys Admission::keys_of(std::uint32_t subnet_id, const config::Admission& limits,
                                   const Applicant& applicant, const Wanted& wanted) const {
  Keys keys;
  std::array<std::uint8_t, 4> address{};
  if (wanted.client) {
    keys.client = key_of(subnet_id, 'c');
    keys.client.push_back(static_cast<char>(applicant.hardware.type()));
    append(keys.client, applicant.hardware.bytes());
  }
  const bool relayed = !applicant.giaddr.is_zero();
  if (wanted.relay) {
    keys.relay = key_of(subnet_id, relayed ? 'r' : 'l');
    if (relayed) {
      append(keys.relay, bytes_of(applicant.giaddr, address));
    } else {
      keys.relay.append(reinterpret_cast<const char*>(&applicant.link), sizeof applicant.link);
    }
  }
  if (wanted.circuit && relayed && !applicant.circuit_id.empty()) {
    keys.circuit = key_of(subnet_id, 'k');
    append(keys.circuit, bytes_of(applicant.giaddr, address));
    append(keys.circuit, applicant.circuit_id);
  }
  if (wanted.remote && relayed && !applicant.remote_id.empty()) {
    keys.remote = key_of(subnet_id, 'm');
    append(keys.remote, applicant.remote_id);
  }
  const std::span<const std::uint8_t> hardware = applicant.hardware.bytes();
  if (wanted.prefix && hardware.size() >= limits.mac_prefix_length) {
    keys.prefix = key_of(subnet_id, 'p');
    append(keys.prefix, hardware.first(limits.mac_prefix_length));
  }
  // A relayed request's sender is not known (a circuit may be a whole LAN): circuit-leases
  // bounds what one circuit holds, offers included.
  if (wanted.source && !relayed) {
    keys.source = key_of(subnet_id, 's');
    if (applicant.frame_source) {
      append(keys.source, *applicant.frame_source);
    } else {
      append(keys.source, hardware);
    }
  }
  return keys;
}

double Admission::tokens_at(const Bucket& bucket, TimePoint now) {
  const double elapsed_s = std::chrono::duration<double>(std::max(Duration{0}, now - bucket.refilled)).count();
  return std::min<double>(bucket.rate.burst, bucket.tokens + elapsed_s * bucket.rate.rate);
}

bool Admission::has_token(const std::string& key, const config::TokenRate& rate, TimePoint now) const {
  const auto found = buckets_.find(key);
  if (found == buckets_.end()) return rate.burst >= 1;  // a new key starts full
  Bucket bucket = found->second;
  bucket.rate = rate;  // a reload's new rate applies from now on
  return tokens_at(bucket, now) >= 1;
}

void Admission::take_token(const std::string& key, const config::TokenRate& rate, TimePoint now) {
  auto [found, inserted] = buckets_.try_emplace(key);
  Bucket& bucket = found->second;
  if (inserted) {
    bucket.tokens = rate.burst;
    bucket.refilled = now;
  }
  bucket.rate = rate;
  bucket.tokens = tokens_at(bucket, now) - 1;
  bucket.refilled = std::max(bucket.refilled, now);
  LANDLORD_ASSERT(bucket.tokens >= 0);
}

std::size_t Admission::live(std::unordered_map<std::string, Holdings>& table, const std::string& key,
                            TimePoint now, bool force) {
  const auto found = table.find(key);
  if (found == table.end()) return 0;
  Holdings& holdings = found->second;
  if (!force && now - holdings.checked < kRecheckInterval) return holdings.held.size();
  // An offer taken up is a lease: it counts against a lease cap, no longer as an offer.
  const bool leases_count = &table == &leases_;
  std::erase_if(holdings.held, [&](const Held& held) {
    const bool on_offer = now < held.offered_until && offered_(held.address, held.client);
    return !on_offer && !(leases_count && bound_(held.address, held.client));
  });
  holdings.checked = now;
  return holdings.held.size();
}

void Admission::hold(std::unordered_map<std::string, Holdings>& table, const std::string& key, const Held& held) {
  std::vector<Held>& entries = table[key].held;
  const auto same = std::find_if(entries.begin(), entries.end(), [&](const Held& entry) {
    return entry.address == held.address && entry.client == held.client;
  });
  if (same == entries.end()) {
    entries.push_back(held);
  } else {
    same->offered_until = std::max(same->offered_until, held.offered_until);
  }
}

std::optional<Refusal> Admission::admit(std::uint32_t subnet_id, const Applicant& applicant, TimePoint now) {
  const config::Admission* limits = limits_of(subnet_id);
  if (limits == nullptr) {
    ++counters_.admitted;
    return std::nullopt;
  }
  forget_idle(now);
  const Keys keys = keys_of(subnet_id, *limits, applicant, wanted_to_admit(*limits));
  const auto refuse = [&](Refusal refusal) {
    ++counters_.refused[static_cast<std::size_t>(refusal)];
    return std::optional<Refusal>{refusal};
  };
  const auto full = [&](std::uint32_t cap, const std::string& key) {
    return cap > 0 && !key.empty() && live(leases_, key, now) >= cap;
  };
  // Caps first: they charge nothing.
  if (full(limits->relay_leases, keys.relay)) return refuse(Refusal::RelayLeases);
  if (full(limits->circuit_leases, keys.circuit)) return refuse(Refusal::CircuitLeases);
  if (full(limits->remote_leases, keys.remote)) return refuse(Refusal::RemoteLeases);
  if (full(limits->mac_prefix_leases, keys.prefix)) return refuse(Refusal::MacPrefixLeases);
  if (full(limits->source_leases, keys.source)) return refuse(Refusal::SourceLeases);
  if (limits->source_offers > 0 && !keys.source.empty() && live(offers_, keys.source, now) >= limits->source_offers) {
    return refuse(Refusal::SourceOffers);
  }
  // Then every bucket must hold a token before any is charged.
  const bool circuit_limited = limits->circuit.limits() && !keys.circuit.empty();
  if (limits->client.limits() && !has_token(keys.client, limits->client, now)) return refuse(Refusal::ClientRate);
  if (limits->relay.limits() && !has_token(keys.relay, limits->relay, now)) return refuse(Refusal::RelayRate);
  if (circuit_limited && !has_token(keys.circuit, limits->circuit, now)) return refuse(Refusal::CircuitRate);
  if (limits->client.limits()) take_token(keys.client, limits->client, now);
  if (limits->relay.limits()) take_token(keys.relay, limits->relay, now);
  if (circuit_limited) take_token(keys.circuit, limits->circuit, now);
  ++counters_.admitted;
  return std::nullopt;
}

bool Admission::counts(std::uint32_t subnet_id, const Applicant& applicant, bool offer) const {
  const config::Admission* limits = limits_of(subnet_id);
  if (limits == nullptr) return false;
  Wanted wanted = wanted_to_count(*limits, offer);
  wanted.source = wanted.source && applicant.giaddr.is_zero();  // keys_of: a direct request's only
  return wanted.any();
}

void Admission::offered(std::uint32_t subnet_id, const Applicant& applicant, Ipv4 address,
                        const ClientKey& client, TimePoint now) {
  const config::Admission* limits = limits_of(subnet_id);
  if (limits == nullptr) return;
  const Wanted wanted = wanted_to_count(*limits, true);
  if (!wanted.any()) return;
  const Keys keys = keys_of(subnet_id, *limits, applicant, wanted);
  // The longest an offer holds; the engine is asked whether it still does.
  const Held held{address, client, now + std::chrono::hours{24}};
  if (limits->source_offers > 0 && !keys.source.empty()) hold(offers_, keys.source, held);
  if (limits->relay_leases > 0) hold(leases_, keys.relay, held);
  if (limits->circuit_leases > 0 && !keys.circuit.empty()) hold(leases_, keys.circuit, held);
  if (limits->remote_leases > 0 && !keys.remote.empty()) hold(leases_, keys.remote, held);
  if (limits->mac_prefix_leases > 0 && !keys.prefix.empty()) hold(leases_, keys.prefix, held);
  if (limits->source_leases > 0 && !keys.source.empty()) hold(leases_, keys.source, held);
}

void Admission::granted(std::uint32_t subnet_id, const Applicant& applicant, Ipv4 address,
                        const ClientKey& client) {
  const config::Admission* limits = limits_of(subnet_id);
  if (limits == nullptr) return;
  const Wanted wanted = wanted_to_count(*limits, false);
  if (!wanted.any()) return;
  const Keys keys = keys_of(subnet_id, *limits, applicant, wanted);
  const Held held{address, client, TimePoint{}};
  if (limits->relay_leases > 0) hold(leases_, keys.relay, held);
  if (limits->circuit_leases > 0 && !keys.circuit.empty()) hold(leases_, keys.circuit, held);
  if (limits->remote_leases > 0 && !keys.remote.empty()) hold(leases_, keys.remote, held);
  if (limits->mac_prefix_leases > 0 && !keys.prefix.empty()) hold(leases_, keys.prefix, held);
  if (limits->source_leases > 0 && !keys.source.empty()) hold(leases_, keys.source, held);
}

void Admission::forget_idle(TimePoint now) {
  if (tracked_keys() < next_sweep_at_) return;
  std::erase_if(buckets_, [&](const auto& entry) { return tokens_at(entry.second, now) >= entry.second.rate.burst; });
  for (auto* table : {&offers_, &leases_}) {
    for (auto it = table->begin(); it != table->end();) {
      it = live(*table, it->first, now, true) == 0 ? table->erase(it) : std::next(it);
    }
  }
  if (tracked_keys() > kMaxKeys) {
    counters_.forgotten += tracked_keys();
    buckets_.clear();
    offers_.clear();
    leases_.clear();
  }
  next_sweep_at_ = std::max(kFirstSweep, 2 * tracked_keys());
}

Applicant applicant_of(const wire::Message& message, const Ingress& ingress,
                       std::optional<std::array<std::uint8_t, 6>> frame_source) {
  Applicant applicant;
  applicant.hardware = message.hardware_address();
  applicant.giaddr = message.giaddr;
  applicant.link = ingress.interface_index;
  if (message.giaddr.is_zero()) {
    applicant.frame_source = frame_source;
    return applicant;
  }
  if (const auto info = wire::parse_relay_agent_info(message.options.get(wire::option::kRelayAgentInfo))) {
    applicant.circuit_id = info->circuit_id;
    applicant.remote_id = info->remote_id;
  }
  return applicant;
}

Admitted handle_admitted(Engine& engine, Admission& admission, const RequestFacts& facts,
                         const wire::Message& message, const Ingress& ingress, const Applicant& applicant,
                         TimePoint now) {
  // One object built in place and returned by name: an Outcome carries a whole reply message,
  // and moving it costs hundreds of instructions.
  const std::optional<Refusal> refusal =
      facts.new_address ? admission.admit(facts.subnet_id, applicant, now) : std::nullopt;
  Admitted admitted{refusal ? Outcome{} : engine.handle(message, ingress, now, facts), refusal};
  if (refusal) return admitted;
  const Outcome& outcome = admitted.outcome;
  if (facts.subnet_id == 0 || !outcome.reply) return admitted;
  const Ipv4 address = outcome.event.address;
  switch (outcome.event.kind) {
    case EventKind::Offer:
      if (!admission.counts(facts.subnet_id, applicant, true)) break;
      admission.offered(facts.subnet_id, applicant, address, facts.client, now);
      break;
    case EventKind::Grant:
    case EventKind::Renew:
    case EventKind::Rebind:
      if (!admission.counts(facts.subnet_id, applicant, false)) break;
      admission.granted(facts.subnet_id, applicant, address, facts.client);
      break;
    default:
      break;
  }
  return admitted;
}

}  // namespace landlord::engine
