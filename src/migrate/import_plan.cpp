#include "landlord/migrate/import_plan.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace landlord::migrate {
namespace {

bool in_some_pool(const config::Config& config, Ipv4 address) {
  for (const config::Subnet& subnet : config.subnets) {
    for (const config::AddressRange& pool : subnet.pools) {
      if (pool.contains(address)) return true;
    }
    for (const config::Reservation& reservation : subnet.reservations) {
      if (reservation.address == address) return true;
    }
  }
  return false;
}

LineFailure entry_of(const ForeignLease& lease, std::string detail) {
  return {lease.line, lease.text, std::move(detail)};
}

bool later(const ForeignLease& a, const ForeignLease& b) {  // a ends after b
  if (!a.expires) return b.expires.has_value();
  return b.expires && *a.expires > *b.expires;
}

}  // namespace

ImportPlan plan_import(const LeaseFile& file, const config::Config& config, engine::Engine& engine,
                       TimePoint now) {
  ImportPlan plan;
  plan.failures = file.failures;
  plan.ignored = file.ignored;

  // A journal's last entry for an address is the address's state; in a flat file (dnsmasq) a
  // second entry for an address is a duplicate, and the one ending later wins.
  std::vector<const ForeignLease*> current;
  std::unordered_map<Ipv4, std::size_t> by_address;
  for (const ForeignLease& lease : file.leases) {
    const auto [found, fresh] = by_address.try_emplace(lease.address, current.size());
    if (fresh) {
      current.push_back(&lease);
      continue;
    }
    const ForeignLease*& held = current[found->second];
    if (file.journal) {
      ++plan.superseded;
      held = &lease;
    } else {
      const bool replace = later(lease, *held);
      const ForeignLease& loser = replace ? *held : lease;
      plan.duplicates.entries.push_back(entry_of(loser, "address " + loser.address.to_string() + " appears twice"));
      if (replace) held = &lease;
    }
  }

  // Live leases only; one per client: the one ending last.
  std::vector<const ForeignLease*> live;
  for (const ForeignLease* lease : current) {
    if (!lease->active) {
      plan.inactive.entries.push_back(entry_of(*lease, "state " + lease->state));
    } else if (lease->expires && *lease->expires <= now) {
      plan.expired.entries.push_back(entry_of(*lease, "ended " + std::to_string(unix_seconds(*lease->expires))));
    } else if (!in_some_pool(config, lease->address)) {
      plan.outside.entries.push_back(entry_of(*lease, lease->address.to_string() + " is in no pool and no reservation"));
    } else if (lease->hardware.empty() && lease->client_id.empty()) {
      plan.refused.entries.push_back(entry_of(*lease, "no hardware address and no client id"));
    } else {
      live.push_back(lease);
    }
  }
  std::unordered_map<ClientKey, std::size_t> by_client;
  std::vector<const ForeignLease*> chosen;
  for (const ForeignLease* lease : live) {
    const ClientKey key = ClientKey::from(lease->client_id, lease->hardware);
    const auto [found, fresh] = by_client.try_emplace(key, chosen.size());
    if (fresh) {
      chosen.push_back(lease);
      continue;
    }
    const ForeignLease*& held = chosen[found->second];
    const bool replace = later(*lease, *held);
    const ForeignLease& loser = replace ? *held : *lease;
    plan.duplicates.entries.push_back(entry_of(
        loser, "the client also holds " + (replace ? lease : held)->address.to_string() + ", ending later"));
    if (replace) held = lease;
  }

  for (const ForeignLease* lease : chosen) {
    engine::AdminLease request;
    request.address = lease->address;
    request.hardware = lease->hardware;
    request.client_id = lease->client_id;
    request.hostname = lease->hostname;
    if (lease->expires) {
      // The time it had left, in the whole seconds clients are told.
      request.lease_time = std::chrono::duration_cast<std::chrono::seconds>(*lease->expires - now);
    }
    auto outcome = engine.admin_grant(request, false, now);
    if (!outcome) {
      plan.refused.entries.push_back(entry_of(*lease, outcome.error().reason));
      continue;
    }
    for (lease::Lease& record : outcome->mutations) plan.records.push_back(std::move(record));
  }
  std::sort(plan.records.begin(), plan.records.end(),
            [](const lease::Lease& a, const lease::Lease& b) { return a.address < b.address; });
  return plan;
}

std::string describe(const ImportPlan& plan, std::size_t examples) {
  std::string text = fmt::format("leases to import: {}\n", plan.records.size());
  if (plan.superseded > 0) text += fmt::format("older journal entries replaced by later ones: {}\n", plan.superseded);
  if (plan.ignored > 0) text += fmt::format("entries of no concern (IPv6, host blocks): {}\n", plan.ignored);
  const auto list = [&](const std::string& title, const std::vector<LineFailure>& entries) {
    if (entries.empty()) return;
    text += fmt::format("{}: {}\n", title, entries.size());
    for (std::size_t i = 0; i < entries.size() && i < examples; ++i) {
      text += fmt::format("  line {}: {}  ({})\n", entries[i].line, entries[i].text, entries[i].reason);
    }
    if (entries.size() > examples) text += fmt::format("  ... and {} more\n", entries.size() - examples);
  };
  list("lines not understood", plan.failures);
  for (const Skipped* skipped : {&plan.expired, &plan.inactive, &plan.outside, &plan.duplicates, &plan.refused}) {
    list(skipped->reason, skipped->entries);
  }
  return text;
}

}  // namespace landlord::migrate
