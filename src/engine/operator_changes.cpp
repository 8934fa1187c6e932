// Operators' changes (operator_changes.hpp).
#include "operator_changes.hpp"

#include <string>

namespace landlord::engine {

using lease::Lease;
using lease::LeaseState;

namespace {

Unexpected<AdminRefusal> refuse(AdminRefusal::Kind kind, std::string reason) {
  return unexpected(AdminRefusal{kind, std::move(reason)});
}

}  // namespace

AdminResult admin_grant(Ledger& ledger, const Topology& topology, const AdminLease& request, bool update,
                        TimePoint now) {
  using Kind = AdminRefusal::Kind;
  const Ipv4 address = request.address;
  const std::string where = address.to_string();
  const SubnetView* view = topology.containing(address);
  if (view == nullptr) return refuse(Kind::Invalid, where + " is in no configured subnet");
  const std::string subnet_name =
      "subnet " + std::to_string(view->id()) + " (" + view->subnet->subnet.to_string() + ")";
  if (request.subnet_id != 0 && request.subnet_id != view->id()) {
    return refuse(Kind::Invalid, where + " is in " + subnet_name + ", not subnet " +
                                     std::to_string(request.subnet_id));
  }
  if (request.hardware.empty() && request.client_id.empty()) {
    return refuse(Kind::Invalid, "a lease needs hw-address or client-id");
  }
  const ClientKey client = ClientKey::from(request.client_id, request.hardware);
  const config::Reservation* reserved = view->reservation_at(address);
  if (reserved != nullptr && reserved != view->reservation_for(request.client_id, request.hardware)) {
    return refuse(Kind::Conflict, where + " is reserved for another client");
  }
  if (reserved == nullptr && (!ledger.allocator().in_pool(view->id(), address) || ledger.allocator().excluded(address))) {
    return refuse(Kind::Invalid, where + " is outside every pool of " + subnet_name);
  }
  const auto record = ledger.table().facts(address, client);
  if (record != std::nullopt && record->has_client && !record->of_client && is_active(record->state)) {
    return refuse(Kind::Conflict, where + " is held by another client (" +
                                      std::string{lease::to_string(record->state)} + ")");
  }
  const bool own_bound = record != std::nullopt && record->of_client &&
                         record->state == LeaseState::Bound;
  if (update && !own_bound) return refuse(Kind::NotFound, "no lease of this client on " + where);
  if (!update && own_bound) {
    return refuse(Kind::Conflict, where + " is already leased to this client; use lease4-update");
  }
  if (const auto own = ledger.table().facts(client); own != std::nullopt && own->subnet_id == view->id() &&
      own->address != address && (own->state == LeaseState::Bound || own->state == LeaseState::Offered)) {
    return refuse(Kind::Conflict, "the client already holds " + own->address.to_string() +
                                      " in " + subnet_name);
  }
  config::LeaseTimes times = view->subnet->lease;
  if (request.lease_time) times.time = *request.lease_time;
  const Duration renew = times.renew_duration(), rebind = times.rebind_duration();
  if (times.time.count() % 1000 != 0 || renew.count() <= 0 || renew >= rebind || rebind >= times.time) {
    return refuse(Kind::Invalid, "valid-lft leaves no room for the subnet's T1 and T2");
  }
  Lease lease;
  lease.address = address;
  lease.client = client;
  lease.hardware = request.hardware;
  lease.client_id = request.client_id;
  lease.hostname = request.hostname;
  lease.state = LeaseState::Bound;
  lease.subnet_id = view->id();
  lease.granted_at = now;
  lease.lease_time = times.time;
  lease.renew_time = renew;
  lease.rebind_time = rebind;
  // An update changes what the operator gave; what the client was granted under stays: its
  // classes, its name in DNS and that name's state (unless the operator names it), the relay's
  // option 82.
  if (update) {
    const Lease held = *ledger.table().find(address);
    lease.classes = held.classes;
    lease.fqdn = held.fqdn;
    lease.dns_sides = held.dns_sides;
    lease.dns_state = held.dns_state;
    lease.relay_agent_info = held.relay_agent_info;
  }
  if (request.dns_sides) {
    lease.fqdn.clear();
    lease.dns_sides = {};
    lease.dns_state = lease::DnsState::None;
    if (request.dns_sides->any()) {
      if (request.hostname.empty()) return refuse(Kind::Invalid, "fqdn-fwd and fqdn-rev need the hostname they are for");
      std::string name = request.hostname;
      if (name.back() == '.') name.pop_back();  // records keep no root dot
      lease.fqdn = std::move(name);
      lease.dns_sides = *request.dns_sides;
      lease.dns_state = lease::DnsState::Done;  // in DNS already (Kea's meaning): removed at the end
    }
  }
  ledger.write(lease, Token::Follows);
  return Outcome{std::nullopt, {lease},
                 {EventKind::Admin, address, update ? "updated by operator" : "added by operator"}};
}

AdminResult admin_revoke(Ledger& ledger, Ipv4 address, TimePoint now) {
  const std::optional<Lease> record = ledger.table().find(address);
  if (record == std::nullopt ||
      (record->state != LeaseState::Bound && record->state != LeaseState::Declined)) {
    return refuse(AdminRefusal::Kind::NotFound, "no bound or declined lease on " + address.to_string());
  }
  // A bound lease ends now, its record kept (the client's next renewal is NAKed); a decline
  // hold ends as reclaim() ends it: the address is nobody's.
  const bool bound = record->state == LeaseState::Bound;
  Lease changed = bound ? released_at(*record, now) : to_nobody(*record);
  ledger.write(changed, bound ? Token::Kept : Token::Follows);
  return Outcome{std::nullopt, {changed}, {EventKind::Admin, address, "revoked by operator"}};
}

}  // namespace landlord::engine
