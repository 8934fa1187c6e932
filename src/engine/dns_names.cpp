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
  lease.dns_state = lease::DnsState::Pending;  // until the daemon's updater confirms it
}

}  // namespace landlord::engine
