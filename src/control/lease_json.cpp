#include "lease_json.hpp"

namespace landlord::control {
namespace {

// lease::Lease::classes ("a,b") as a JSON list of names.
nlohmann::json class_list(std::string_view names) {
  nlohmann::json list = nlohmann::json::array();
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    list.push_back(std::string(names.substr(0, comma)));
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
  }
  return list;
}

}  // namespace

std::string_view phase_name(lease::Phase phase) {
  switch (phase) {
    case lease::Phase::Bound: return "bound";
    case lease::Phase::PastT1: return "past-t1";
    case lease::Phase::PastT2: return "past-t2";
    case lease::Phase::Expired: return "expired";
  }
  return "unknown";
}

int kea_state(lease::LeaseState state) {
  switch (state) {
    case lease::LeaseState::Offered:
    case lease::LeaseState::Bound: return 0;
    case lease::LeaseState::Declined: return 1;
    case lease::LeaseState::Released:
    case lease::LeaseState::Expired: return 2;
  }
  return 0;
}

nlohmann::json lease_to_json(const lease::Lease& lease, TimePoint now) {
  nlohmann::json json{
      {"ip-address", lease.address.to_string()},
      {"hw-address", lease.hardware.to_string()},
      {"hostname", lease.hostname},
      {"subnet-id", lease.subnet_id},
      {"valid-lft", to_seconds(lease.lease_time)},
      {"cltt", unix_seconds(lease.granted_at)},
      {"state", kea_state(lease.state)},
      // Kea's: which DNS records the server keeps for the lease.
      {"fqdn-fwd", lease.dns_sides.forward},
      {"fqdn-rev", lease.dns_sides.reverse},
      // landlord's own: its state names, the phase of a bound lease, T1/T2 and the token, the
      // name in DNS (not the client's option 12) and whether DNS is known to hold it.
      {"fqdn", lease.fqdn},
      {"dns-state", lease::to_string(lease.dns_state)},
      {"lease-state", lease::to_string(lease.state)},
      {"expire", unix_seconds(lease.expires_at())},
      {"renew-time", to_seconds(lease.renew_time)},
      {"rebind-time", to_seconds(lease.rebind_time)},
      {"fencing-token", lease.fencing_token},
      {"classes", class_list(lease.classes)},
  };
  // Left out when the client sent none, as Kea does (not "").
  if (!lease.client_id.empty()) json["client-id"] = lease.client_id.to_string();
  if (lease.state == lease::LeaseState::Bound) json["phase"] = phase_name(lease.phase(now));
  return json;
}

}  // namespace landlord::control
