#include "dns_names.hpp"

#include "landlord/base/assert.hpp"

namespace landlord::engine {

std::optional<ddns::NameDecision> dns_name_for(const config::Config& config, const config::Subnet& subnet,
                                               const wire::Message& request,
                                               const config::Reservation* reservation) {
  if (!config.ddns.enabled || !subnet.ddns) return std::nullopt;
  ddns::NameRequest asked;
  if (request.options.has(ddns::kOptionClientFqdn)) asked.client_fqdn = request.options.get(ddns::kOptionClientFqdn);
  if (const auto hostname = request.options.get_text(wire::option::kHostname)) asked.hostname = *hostname;
  if (reservation != nullptr && !reservation->hostname.empty()) asked.reservation_hostname = reservation->hostname;
  return ddns::decide_name(config.ddns.settings, asked);
}

void apply_dns_name(const std::optional<ddns::NameDecision>& decision, const lease::Lease* held, lease::Lease& lease) {
  if (!decision) return;
  if (decision->fqdn && (decision->forward || decision->reverse)) {
    std::string text = decision->fqdn->to_text();
    if (!text.empty() && text.back() == '.') text.pop_back();  // the record keeps no root dot
    lease.fqdn = std::move(text);
    lease.dns_sides = {decision->forward, decision->reverse};
  } else if (decision->source == ddns::NameSource::kNone && held != nullptr && !held->fqdn.empty()) {
    lease.fqdn = held->fqdn;
    lease.dns_sides = held->dns_sides;
  }
  if (lease.fqdn.empty()) return;
  LANDLORD_ASSERT(lease.fqdn.size() <= 253 && lease.dns_sides.any());
  // A renewal of a name already in place (or left alone as another's) keeps that state: the
  // daemon sends the add again (records deleted behind our back come back), and writes its
  // verdict only if it differs, so a renewal costs no second write. A failed one is pending.
  const bool settled = held != nullptr && held->state == lease::LeaseState::Bound && held->fqdn == lease.fqdn &&
                       held->dns_sides == lease.dns_sides &&
                       (held->dns_state == lease::DnsState::Done || held->dns_state == lease::DnsState::Conflict);
  lease.dns_state = settled ? held->dns_state : lease::DnsState::Pending;  // Pending: until the updater settles it
}

Outcome dns_settled(Ledger& ledger, Ipv4 address, std::string_view fqdn, bool added, lease::DnsState result) {
  LANDLORD_ASSERT(result == lease::DnsState::Done || result == lease::DnsState::Conflict ||
                  result == lease::DnsState::Failed);
  const Event nothing{EventKind::Ignore, address, "dns work superseded"};
  std::optional<lease::Lease> record = ledger.table().find(address);
  if (record == std::nullopt || record->fqdn != fqdn || record->dns_state == result) {
    return {std::nullopt, {}, nothing};
  }
  if (record->state == lease::LeaseState::Offered || added != (record->state == lease::LeaseState::Bound)) {
    return {std::nullopt, {}, nothing};
  }
  ledger.settle_dns(*record, result);
  record->dns_state = result;
  return {std::nullopt, {std::move(*record)}, {EventKind::Dns, address, "dns records settled"}};
}

}  // namespace landlord::engine
