#include "landlord/migrate/import_plan.hpp"

#include <algorithm>

#include "landlord/base/duration.hpp"
#include "landlord/migrate/imported_times.hpp"
#include "text_lines.hpp"
#include "utc_text.hpp"

namespace landlord::migrate {
namespace {

LineFailure entry_of(const ForeignLease& lease, std::string detail) {
  return {lease.line, lease.text, std::move(detail)};
}

bool later(const ForeignLease& a, const ForeignLease& b) {  // a ends after b
  if (!a.expires) return b.expires.has_value();
  return b.expires && *a.expires > *b.expires;
}

// A hostname is sent back to the client (option 12: at most 255 bytes) and shown in logs.
bool usable_hostname(const std::string& name) {
  return name.size() <= 255 &&
         std::none_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

const config::Subnet* subnet_of(const config::Config& config, Ipv4 address) {
  for (const config::Subnet& subnet : config.subnets) {
    if (subnet.subnet.contains(address)) return &subnet;
  }
  return nullptr;
}

}  // namespace

void Skipped::add(LineFailure entry) {
  ++count;
  if (examples.size() < kExamplesKept) examples.push_back(std::move(entry));
}

ImportPlanner::ImportPlanner(const config::Config& config, bool journal, TimePoint now)
    : config_(config), journal_(journal), now_(now) {}

bool ImportPlanner::in_some_pool(Ipv4 address) const {
  for (const config::Subnet& subnet : config_.subnets) {
    for (const config::AddressRange& pool : subnet.pools) {
      if (pool.contains(address)) return true;
    }
    for (const config::Reservation& reservation : subnet.reservations) {
      if (reservation.address == address) return true;
    }
  }
  return false;
}

void ImportPlanner::failure(LineFailure&& failure) { plan_.failures.add(std::move(failure)); }

void ImportPlanner::ignored() { ++plan_.ignored; }

void ImportPlanner::lease(ForeignLease&& lease) {
  ++plan_.leases_read;
  // What is kept per address stays small: a hostname no client can be sent is left out (and
  // reported if the lease is imported), the file's word for the state is cut short.
  std::size_t dropped_hostname = 0;
  if (!usable_hostname(lease.hostname)) {
    dropped_hostname = std::max<std::size_t>(lease.hostname.size(), 1);
    lease.hostname.clear();
  }
  lease.state = shown(lease.state, 20);
  const auto [found, fresh] = by_address_.try_emplace(lease.address, current_.size());
  if (fresh) {
    const bool in_pool = in_some_pool(lease.address);
    if (!in_pool && outside_tracked_ == kOutsideAddressesTracked) {
      // Past the limit an address outside the pools is not remembered: its entries are
      // counted one by one (a journal's later entry for it can no longer replace them).
      by_address_.erase(found);
      if (live(lease)) {
        ++plan_.live;
        plan_.outside.add(entry_of(lease, lease.address.to_string() + " is in no pool and no reservation"));
      }
      return;
    }
    outside_tracked_ += in_pool ? 0 : 1;
    current_.push_back({std::move(lease), in_pool, dropped_hostname});
    return;
  }
  // A journal's last entry for an address is the address's state; in a flat file (dnsmasq) a
  // second entry for an address is a duplicate, and the one ending later wins.
  ForeignLease& held = current_[found->second].lease;
  if (journal_) {
    ++plan_.superseded;
  } else {
    const bool replace = later(lease, held);
    const ForeignLease& loser = replace ? held : lease;
    plan_.duplicates.add(entry_of(loser, "address " + loser.address.to_string() + " appears twice"));
    if (!replace) return;
  }
  held = std::move(lease);
  current_[found->second].dropped_hostname = dropped_hostname;
}

bool ImportPlanner::live(const ForeignLease& lease) {
  if (!lease.active) {
    plan_.inactive.add(entry_of(lease, "state " + shown(lease.state)));
    return false;
  }
  if (lease.expires && *lease.expires <= now_) {
    plan_.expired.add(entry_of(lease, "ended " + utc_text(*lease.expires)));
    return false;
  }
  return true;
}

ImportPlan ImportPlanner::finish(engine::Engine& engine) && {
  // Live leases only; one per client: the one ending last.
  std::vector<const Entry*> chosen;
  std::unordered_map<ClientKey, std::size_t> by_client;
  for (const Entry& entry : current_) {
    const ForeignLease& lease = entry.lease;
    if (!live(lease)) continue;
    ++plan_.live;
    if (!entry.in_pool) {
      plan_.outside.add(entry_of(lease, lease.address.to_string() + " is in no pool and no reservation"));
      continue;
    }
    if (lease.hardware.empty() && lease.client_id.empty()) {
      plan_.refused.add(entry_of(lease, "no hardware address and no client id"));
      continue;
    }
    const auto [found, fresh] = by_client.try_emplace(ClientKey::from(lease.client_id, lease.hardware), chosen.size());
    if (fresh) {
      chosen.push_back(&entry);
      continue;
    }
    const Entry*& held = chosen[found->second];
    const bool replace = later(lease, held->lease);
    const ForeignLease& loser = replace ? held->lease : lease;
    plan_.duplicates.add(entry_of(
        loser, "the client also holds " + (replace ? lease : held->lease).address.to_string() + ", ending later"));
    if (replace) held = &entry;
  }

  for (const Entry* entry : chosen) {
    const ForeignLease* lease = &entry->lease;
    const config::Subnet* subnet = subnet_of(config_, lease->address);
    if (subnet == nullptr) {  // a reservation outside its subnet cannot load; kept for safety
      plan_.refused.add(entry_of(*lease, lease->address.to_string() + " is in no configured subnet"));
      continue;
    }
    const auto times = imported_times(subnet->lease, lease->expires, now_);
    if (!times) {
      plan_.refused.add(entry_of(*lease, times.error()));
      continue;
    }
    engine::AdminLease request;
    request.address = lease->address;
    request.hardware = lease->hardware;
    request.client_id = lease->client_id;
    request.hostname = lease->hostname;
    // admin_grant refuses a lease time its subnet's fixed T1/T2 do not fit (lease4-add's rule),
    // so it is asked for the subnet's own time, which always fits, and the record then takes
    // the imported times. This engine only plans: its checks go by state and client, not time.
    auto outcome = engine.admin_grant(request, false, now_);
    if (!outcome) {
      plan_.refused.add(entry_of(*lease, outcome.error().reason));
      continue;
    }
    for (lease::Lease& record : outcome->mutations) {
      if (record.address == lease->address) {
        record.lease_time = times->lease_time;
        record.renew_time = times->renew;
        record.rebind_time = times->rebind;
        // The old server's records are in DNS: landlord takes them over, to remove at the end.
        if (!lease->fqdn.empty()) {
          record.fqdn = lease->fqdn;
          record.dns_sides = lease->dns_sides;
          record.dns_state = lease::DnsState::Done;
        }
      }
      plan_.records.push_back(std::move(record));
    }
    if (entry->dropped_hostname > 0) {
      plan_.hostname_dropped.add(entry_of(*lease, "hostname of " + std::to_string(entry->dropped_hostname) + " bytes"));
    }
    const std::string given = format_duration(times->lease_time);
    const std::string left =
        lease->expires ? format_duration(std::chrono::ceil<std::chrono::seconds>(*lease->expires - now_)) : "";
    switch (times->change) {
      case ImportedTimes::Change::None: break;
      case ImportedTimes::Change::CutToMax:
        plan_.cut_to_max.add(entry_of(*lease, "had " + left + " left, given " + given));
        break;
      case ImportedTimes::Change::RaisedToMin:
        plan_.raised_to_min.add(entry_of(*lease, "had " + left + " left, given " + given));
        break;
      case ImportedTimes::Change::Infinite: plan_.infinite.add(entry_of(*lease, "given " + given)); break;
    }
  }
  std::sort(plan_.records.begin(), plan_.records.end(),
            [](const lease::Lease& a, const lease::Lease& b) { return a.address < b.address; });
  return std::move(plan_);
}

ImportPlan plan_import(const LeaseFile& file, const config::Config& config, engine::Engine& engine,
                       TimePoint now) {
  ImportPlanner planner{config, file.journal, now};
  for (const LineFailure& failure : file.failures) planner.failure(LineFailure{failure});
  for (std::size_t i = 0; i < file.ignored; ++i) planner.ignored();
  for (const ForeignLease& lease : file.leases) planner.lease(ForeignLease{lease});
  return std::move(planner).finish(engine);
}

}  // namespace landlord::migrate
