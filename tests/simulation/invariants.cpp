#include "invariants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace landlord::simulation {

namespace {

constexpr std::size_t kKeptFindings = 50;
// The auditor's allowance for the server rounding lease starts to whole seconds.
constexpr Duration kRoundingGrace = std::chrono::seconds(1);

std::string hex(const std::string& bytes) {
  std::string text;
  for (const char byte : bytes) text += fmt::format("{:02x}", static_cast<std::uint8_t>(byte));
  return text;
}

bool holds_lease(sim::ClientState state) {
  return state == sim::ClientState::Bound || state == sim::ClientState::Renewing ||
         state == sim::ClientState::Rebinding;
}

// Every field: a store must give back what it was given.
bool same_record(const lease::Lease& a, const lease::Lease& b) {
  return a.address == b.address && a.client == b.client && a.hardware == b.hardware &&
         a.client_id == b.client_id && a.hostname == b.hostname && a.classes == b.classes &&
         a.fqdn == b.fqdn && a.dns_sides == b.dns_sides && a.dns_state == b.dns_state &&
         a.relay_agent_info == b.relay_agent_info && a.state == b.state &&
         a.last_extension == b.last_extension && a.subnet_id == b.subnet_id &&
         a.granted_at == b.granted_at && a.lease_time == b.lease_time &&
         a.renew_time == b.renew_time && a.rebind_time == b.rebind_time &&
         a.fencing_token == b.fencing_token;
}

}  // namespace

std::string describe(const lease::Lease& lease) {
  return fmt::format("{{{} client={} {} token={} granted={} ms lease={} ms}}",
                     lease.address.to_string(), hex(lease.client.raw()), to_string(lease.state),
                     lease.fencing_token, unix_ms(lease.granted_at), lease.lease_time.count());
}

ClientKey key_of(const sim::Client& client) {
  return ClientKey::from(client.identity().client_id, client.identity().hardware);
}

void Invariants::report(TimePoint at, std::string_view rule, std::string detail) {
  ++count_;
  if (findings_.size() < kKeptFindings) {
    findings_.push_back({at, std::string(rule), std::move(detail)});
  }
}

void Invariants::on_commit(std::span<const lease::Lease> batch,
                           std::span<const store::WriteResult> results, TimePoint now) {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const lease::Lease& record = batch[i];
    if (results[i] == store::WriteResult::StaleToken) {
      // Fenced: the rival wrote the address first, and this engine made the record before it
      // could know (not yet observed, or observed after the record's grant).
      if (const auto rival = rival_.find(record.address);
          rival != rival_.end() && rival->second.client != record.client) {
        const auto observed = observed_at_.find(record.address);
        if (unobserved_.contains(record.address) ||
            (observed != observed_at_.end() && record.granted_at <= observed->second)) {
          ++rival_fenced_;
          continue;
        }
      }
      const auto [first, last] = unwritten_.equal_range(record.address);
      if (std::any_of(first, last, [&](const auto& entry) { return entry.second != record.client; })) {
        ++out_of_order_refusals_;
        continue;
      }
      report(now, "stale-token-write",
             fmt::format("the engine wrote {} behind the store's token", describe(record)));
      continue;
    }
    unwritten_.erase(record.address);  // what failed before is superseded or written now
    const auto [it, first] = highest_token_.try_emplace(record.address, record.fencing_token);
    if (!first && record.fencing_token < it->second) {
      report(now, "token-decreased",
             fmt::format("the store took {} after token {}", describe(record), it->second));
    }
    if (!first && record.fencing_token > it->second) it->second = record.fencing_token;
    // engine.hpp: +1 when the address changes client, kept while the client stays. A record
    // superseded while it waited for a retry is never written (the durability machine retries
    // only an address's newest record), so the store may see a bigger step: a change of client
    // needs a higher token, the same client at least the same one.
    if (const auto previous = last_committed_.find(record.address);
        previous != last_committed_.end()) {
      const lease::FencingToken before = previous->second.fencing_token;
      const bool changed = previous->second.client != record.client;
      if (changed ? record.fencing_token <= before : record.fencing_token < before) {
        report(now, "token-rule",
               fmt::format("{} follows {}: token {} {} expected", describe(record),
                           describe(previous->second), changed ? "above" : "at least",
                           before));
      }
    }
    last_committed_.insert_or_assign(record.address, record);
  }
}

void Invariants::on_rival_write(const lease::Lease& record) {
  highest_token_.insert_or_assign(record.address,
                                  std::max(record.fencing_token, store_token(record.address)));
  last_committed_.insert_or_assign(record.address, record);
  rival_.insert_or_assign(record.address, record);
  unobserved_.insert(record.address);
  observed_at_.erase(record.address);
}

lease::FencingToken Invariants::store_token(Ipv4 address) const {
  const auto found = highest_token_.find(address);
  return found == highest_token_.end() ? 0 : found->second;
}

void Invariants::on_failed_commit(std::span<const lease::Lease> batch) {
  for (const lease::Lease& record : batch) unwritten_.emplace(record.address, record.client);
}

void Invariants::check_engine(const engine::Engine& engine, std::uint64_t pool_size,
                              TimePoint now) {
  std::unordered_set<Ipv4> addresses;
  std::uint64_t taken = 0;  // offered, bound or declined: not free for anyone else
  std::unordered_map<std::string, Ipv4> bound_by_client;  // client key bytes, then subnet id
  engine.for_each_lease([&](const lease::Lease& lease) {
    if (!addresses.insert(lease.address).second) {
      report(now, "table-duplicate-address",
             fmt::format("the table lists {} twice", lease.address.to_string()));
    }
    if (lease.state == lease::LeaseState::Offered || lease.state == lease::LeaseState::Bound ||
        lease.state == lease::LeaseState::Declined) {
      ++taken;
    }
    if (lease.state != lease::LeaseState::Bound) return;
    std::string client = lease.client.raw();
    client.append(reinterpret_cast<const char*>(&lease.subnet_id), sizeof lease.subnet_id);
    if (const auto [it, first] = bound_by_client.try_emplace(client, lease.address); !first) {
      report(now, "client-bound-twice",
             fmt::format("client {} holds {} and {} in subnet {}", hex(lease.client.raw()),
                         it->second.to_string(), lease.address.to_string(), lease.subnet_id));
    }
    const auto indexed = engine.find(lease.client);
    if (!indexed || indexed->address != lease.address) {
      report(now, "client-index-mismatch",
             fmt::format("{} is bound but find(client) gives {}", describe(lease),
                         indexed ? describe(*indexed) : std::string("nothing")));
    }
    if (lease.expires_at() < now) {
      report(now, "engine-overdue-bound",
             fmt::format("{} still bound {} ms after its expiry", describe(lease),
                         (now - lease.expires_at()).count()));
    }
  });
  // The allocator's free counts follow the records (one subnet, one pool, no reservations).
  const std::vector<engine::PoolUsage> usage = engine.pool_usage();
  if (usage.size() != 1 || usage[0].total != pool_size ||
      usage[0].total - usage[0].free_clean - usage[0].free_affinity != taken) {
    report(now, "pool-usage-mismatch",
           usage.size() != 1
               ? fmt::format("{} subnets reported, 1 configured", usage.size())
               : fmt::format("pool of {}: total {}, free {} clean + {} affinity, {} taken in the "
                             "table",
                             pool_size, usage[0].total, usage[0].free_clean, usage[0].free_affinity,
                             taken));
  }
}

void Invariants::check_engine_matches_store(const engine::Engine& engine,
                                            const StoreSnapshot& store, TimePoint now) {
  engine.for_each_lease([&](const lease::Lease& lease) {
    if (lease.state == lease::LeaseState::Offered) return;  // a hold: memory only
    if (unobserved_.contains(lease.address)) return;        // the feed has not brought it yet
    const auto stored = store.find(lease.address);
    if (stored == store.end() || !same_record(stored->second, lease)) {
      report(
          now, "engine-store-mismatch",
          fmt::format("engine has {}, store has {}", describe(lease),
                      stored == store.end() ? std::string("nothing") : describe(stored->second)));
    }
  });
  for (const auto& [address, record] : store) {
    if (!engine.find(address) && !unobserved_.contains(address)) {
      report(now, "engine-store-mismatch",
             fmt::format("store has {}, the engine nothing", describe(record)));
    }
  }
}

void Invariants::check_client_leases_durable(const sim::Fleet& fleet, const StoreSnapshot& store,
                                             TimePoint now) {
  for (std::size_t index = 0; index < fleet.client_count(); ++index) {
    const sim::Client& client = fleet.client(static_cast<sim::ClientIndex>(index));
    if (!holds_lease(client.state()) || now >= client.lease_expiry()) continue;
    const auto stored = store.find(client.address());
    const bool durable = stored != store.end() && stored->second.client == key_of(client) &&
                         stored->second.state == lease::LeaseState::Bound &&
                         stored->second.expires_at() + kRoundingGrace >= client.lease_expiry();
    if (!durable) {
      report(
          now, "acked-lease-lost",
          fmt::format("client {} ({}) holds {} until {} ms; the store has {}", index,
                      to_string(client.state()), client.address().to_string(),
                      unix_ms(client.lease_expiry()),
                      stored == store.end() ? std::string("nothing") : describe(stored->second)));
    }
  }
}

void Invariants::check_store_expiry(const StoreSnapshot& store, TimePoint now) {
  for (const auto& [address, record] : store) {
    const bool timed =
        record.state == lease::LeaseState::Bound || record.state == lease::LeaseState::Declined;
    if (timed && record.expires_at() + expiry_slack_ < now) {
      report(now, "store-overdue",
             fmt::format("{} is {} ms past its expiry in the store", describe(record),
                         (now - record.expires_at()).count()));
    }
  }
}

void Invariants::check_store_keeps_commits(const StoreSnapshot& store, TimePoint now) {
  for (const auto& [address, committed] : last_committed_) {
    const auto stored = store.find(address);
    if (stored == store.end() || !same_record(stored->second, committed)) {
      report(
          now, "store-lost-commit",
          fmt::format("committed {}, the store has {}", describe(committed),
                      stored == store.end() ? std::string("nothing") : describe(stored->second)));
    }
  }
  if (store.size() > last_committed_.size()) {
    report(now, "store-lost-commit",
           fmt::format("the store has {} records, {} addresses were written", store.size(),
                       last_committed_.size()));
  }
}

}  // namespace landlord::simulation
