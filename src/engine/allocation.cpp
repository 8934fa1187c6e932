// Allocation (allocation.hpp): decides, never changes a record.
#include "allocation.hpp"

#include <algorithm>

#include "adaptive_lease.hpp"
#include "classes.hpp"

namespace landlord::engine {

using lease::Lease;
using lease::LeaseState;
namespace option = wire::option;

LeaseDurations Allocation::durations_for(const SubnetView& view, const wire::Message& message,
                             std::uint64_t member_of) const {
  const auto requested_s = message.options.get_u32(option::kLeaseTime);
  const config::LeaseTimes* class_times = classes_.lease_times(member_of);
  if (!requested_s && class_times == nullptr) return {view.lease_time, view.renew_time, view.rebind_time};
  const config::LeaseTimes& times = class_times != nullptr ? *class_times : view.subnet->lease;
  if (!requested_s) return {times.time, times.renew_duration(), times.rebind_duration()};
  const Duration granted = times.granted(std::chrono::seconds{*requested_s});
  return {granted, times.renew_duration(granted), times.rebind_duration(granted)};
}

// ---- allocation

// The sender's reservation (topology.hpp: option 61, chaddr, then a relay's option 82). A
// client renewing by unicast reaches us without a relay, so without option 82: it keeps the
// circuit-id or remote-id reservation whose address it holds bound.
const config::Reservation* Allocation::reservation_of(const SubnetView& view, const wire::Message& message,
                                          const ClientKey& client) const {
  if (const auto* reservation = view.reservation_for(message)) return reservation;
  if (!message.giaddr.is_zero() || message.ciaddr.is_zero()) return nullptr;
  const config::Reservation* held = view.reservation_at(message.ciaddr);
  if (held == nullptr || (held->circuit_id.empty() && held->remote_id.empty())) return nullptr;
  const auto record = ledger_.table().facts(message.ciaddr, client);
  const bool holds = record != std::nullopt && record->of_client && record->state == LeaseState::Bound;
  return holds ? held : nullptr;
}

// Whether `address` is reserved for a client other than the sender of `message`.
bool Allocation::reserved_for_another(const SubnetView& view, Ipv4 address, const wire::Message& message,
                          const ClientKey& client) const {
  const config::Reservation* reservation = view.reservation_at(address);
  return reservation != nullptr && reservation != reservation_of(view, message, client);
}

// A reserved address may go to its client unless someone else still holds it.
bool Allocation::reservation_usable(Ipv4 address, const ClientKey& client) const {
  const auto record = ledger_.table().facts(address, client);
  if (record == std::nullopt || record->of_client) {
    return record == std::nullopt || record->state != LeaseState::Declined;
  }
  return !is_active(record->state);
}

const config::Reservation* Allocation::usable_reservation(const SubnetView& view,
                                              const wire::Message& message,
                                              const ClientKey& client) const {
  const config::Reservation* reservation = reservation_of(view, message, client);
  if (reservation == nullptr || !view.contains(reservation->address)) return nullptr;
  return reservation_usable(reservation->address, client) ? reservation : nullptr;
}

namespace {

const config::PoolScope* pool_scope(const SubnetView& view, Ipv4 address) {
  for (const config::PoolScope& scope : view.subnet->pool_scopes) {
    if (scope.range.contains(address)) return &scope;
  }
  return nullptr;
}

}  // namespace

// Whether the pool holding `address` serves this client (pools kept for some classes).
bool Allocation::pool_serves_client(const SubnetView& view, Ipv4 address, const wire::Message& message) const {
  const config::PoolScope* scope = pool_scope(view, address);
  return scope == nullptr || scope->classes == 0 || pool_serves(scope, classes_.of(message));
}

std::optional<Ipv4> Allocation::pick_for(const SubnetView& view, const wire::Message& message) const {
  const auto& scopes = view.subnet->pool_scopes;
  const bool restricted = std::any_of(scopes.begin(), scopes.end(),
                                      [](const config::PoolScope& scope) { return scope.classes != 0; });
  if (!restricted) {
    // Peers sharing the store take addresses from their own segment of each pool first, so
    // two of them do not offer one address at the same moment (the store would refuse one
    // grant: a NAK and a retry).
    if (share_) return ledger_.allocator().pick_share(view.id(), {share_->index, share_->count});
    return ledger_.allocator().pick(view.id());
  }
  const std::uint64_t member_of = classes_.of(message);
  const auto serves = [&](Ipv4 pool_first) { return pool_serves(pool_scope(view, pool_first), member_of); };
  // Peers: each from its own segment of the pools the client's classes may use, as above.
  if (share_) return ledger_.allocator().pick_share_where(view.id(), {share_->index, share_->count}, serves);
  return ledger_.allocator().pick_where(view.id(), serves);
}

// Step 3: a requested address that is not allocated. Another client's ended lease (its
// affinity) does not count: §4.3.1 gives the address to whoever asks for it.
bool Allocation::requested_is_free(const SubnetView& view, Ipv4 address, const ClientKey& client) const {
  if (!view.contains(address) || !ledger_.allocator().in_pool(view.id(), address) ||
      ledger_.allocator().excluded(address)) {
    return false;
  }
  const auto record = ledger_.table().facts(address, client);
  if (record == std::nullopt) return true;
  if (record->of_client) return record->state != LeaseState::Declined;
  return !is_active(record->state);
}

std::optional<Ipv4> Allocation::allocate(const SubnetView& view, const wire::Message& message,
                             const ClientKey& client) const {
  if (const auto* reservation = usable_reservation(view, message, client)) {
    return reservation->address;
  }
  if (const auto own = ledger_.table().facts(client);
      own != std::nullopt && own->subnet_id == view.id() && own->state != LeaseState::Declined &&
      view.contains(own->address) && ledger_.allocator().in_pool(view.id(), own->address) &&
      !ledger_.allocator().excluded(own->address) && pool_serves_client(view, own->address, message)) {
    return own->address;
  }
  if (const auto requested = message.options.get_ipv4(option::kRequestedAddress);
      requested && requested_is_free(view, *requested, client) &&
      pool_serves_client(view, *requested, message)) {
    return *requested;
  }
  return pick_for(view, message);
}

bool Allocation::can_grant(const SubnetView& view, const wire::Message& message, const ClientKey& client,
               Ipv4 address) const {
  if (!view.contains(address)) return false;
  if (const auto* reservation = usable_reservation(view, message, client)) {
    return reservation->address == address;
  }
  if (reserved_for_another(view, address, message, client)) return false;
  if (view.reservation_at(address) != nullptr) return reservation_usable(address, client);
  if (!ledger_.allocator().in_pool(view.id(), address)) return false;
  const auto record = ledger_.table().facts(address, client);
  if (record != std::nullopt && record->of_client) {
    if (record->state == LeaseState::Declined) return false;
    // The client's offered or bound address is honoured whatever classes this message
    // matches: a renewal by unicast carries no giaddr or option 82, and a client need not
    // announce its class again. An ended lease is a new allocation: the pool must serve it.
    if (record->state == LeaseState::Offered || record->state == LeaseState::Bound) return true;
    return pool_serves_client(view, address, message);
  }
  if (!pool_serves_client(view, address, message)) return false;
  if (!requested_is_free(view, address, client)) return false;
  // One lease per client per subnet: a client holding another address here asks for it.
  const auto own = ledger_.table().facts(client);
  return own == std::nullopt || own->subnet_id != view.id() || own->address == address ||
         !(own->state == LeaseState::Offered || own->state == LeaseState::Bound);
}

const config::Reservation* Allocation::own_reservation(const SubnetView& view, const wire::Message& message,
                                           const ClientKey& client, Ipv4 address) const {
  const config::Reservation* reservation = view.reservation_at(address);
  if (reservation == nullptr || reserved_for_another(view, address, message, client)) return nullptr;
  return reservation;
}

std::optional<LeaseDurations> Allocation::shortened_for(const SubnetView& view, Ipv4 address,
                                            const LeaseDurations& normal) const {
  const config::AdaptivePool* pool = adaptive_pool_at(*view.subnet, address);
  if (pool == nullptr || view.reservation_at(address) != nullptr) return std::nullopt;
  const auto usage = ledger_.allocator().usage_of_pool_at(address);
  if (!usage) return std::nullopt;
  const bool still_free = ledger_.table().availability(address).kind != lease::Availability::Kind::Taken;
  if (!above_threshold(*pool, *usage, still_free)) return std::nullopt;
  const LeaseDurations cut = shortened(*pool, view.subnet->lease, normal);
  if (cut.lease_time == normal.lease_time) return std::nullopt;
  return cut;
}

Lease Allocation::record_for(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                 Ipv4 address, const LeaseDurations& durations, TimePoint now) const {
  Lease lease;
  lease.address = address;
  lease.client = client;
  lease.hardware = message.hardware_address();
  lease.client_id = message.client_id();
  if (const auto hostname = message.options.get_text(option::kHostname)) {
    lease.hostname = std::string(*hostname);
  } else if (const auto* reservation = view.reservation_at(address);
             reservation != nullptr && !reserved_for_another(view, address, message, client)) {
    lease.hostname = reservation->hostname;
  }
  lease.subnet_id = view.id();
  lease.granted_at = now;
  lease.lease_time = durations.lease_time;
  lease.renew_time = durations.renew_time;
  lease.rebind_time = durations.rebind_time;
  return lease;
}

}  // namespace landlord::engine
