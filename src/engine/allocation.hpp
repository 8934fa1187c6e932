#pragma once
// Which address a client gets, and whether it may have the one it asks for (RFC 2131 §4.3.1),
// for a client C in the subnet S chosen for its message:
//   1. C's reservation in S, unless another client still holds that address (a lease from
//      before the reservation existed): then C is served from the pool until it ends.
//   2. C's current or most recent lease in S, while its address is still in S's pools: an
//      Expired or Released lease keeps its record, so C gets the same address back for as long
//      as nobody else was given it.
//   3. The address C asks for (option 50), if it is in a pool of S, not reserved, and not
//      allocated: no record, an Expired or Released one whoever held it (§4.3.1: an ended
//      lease is not an allocation), or C's own. Only an offer, a bound lease or a decline hold
//      keeps it from C.
//   4. The allocator's pick: the lowest never-used (clean) pool address of S, else the address
//      of S whose lease ended longest ago (another client's affinity is given up last: it
//      counts only when nobody asks for the address).
// Reserved addresses are kept out of the allocator altogether, so steps 3 and 4 never hand
// them out. Also the lease times and the record a grant or an offer gets. Decides only: the
// records change through the Ledger.
#include <optional>

#include "client_classes.hpp"
#include "landlord/engine/load_balance.hpp"
#include "ledger.hpp"
#include "reply.hpp"
#include "topology.hpp"

namespace landlord::engine {

class Allocation {
 public:
  // `share`: this server's part of the pools when peers split them (load_balance.hpp).
  Allocation(const Ledger& ledger, const ClientClasses& classes, const std::optional<PeerShare>& share)
      : ledger_(ledger), classes_(classes), share_(share) {}

  // The address to offer the client (steps 1-4), or none: the pools are exhausted.
  std::optional<Ipv4> allocate(const SubnetView& view, const wire::Message& message,
                               const ClientKey& client) const;
  // Whether `address` may be granted to the client on a REQUEST: its own lease, its
  // reservation, or a free pool address — and never past a usable reservation of its own.
  bool can_grant(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                 Ipv4 address) const;
  // The reservation at `address` when it is this client's: its options go into the reply.
  const config::Reservation* own_reservation(const SubnetView& view, const wire::Message& message,
                                             const ClientKey& client, Ipv4 address) const;

  // §4.3.1 and §4.3.2: a client may ask for a lease time (option 51) in its DISCOVER or
  // REQUEST; it gets that time bounded by its subnet's lease min..max (both `time` unless
  // configured), with T1/T2 following the granted time. Without option 51: `time`. A member
  // of a class with `lease:` gets the first such class's times instead of the subnet's.
  LeaseDurations durations_for(const SubnetView& view, const wire::Message& message,
                               std::uint64_t member_of) const;
  // A pool's adaptive lease time (adaptive_lease.hpp): a new lease on `address` in a pool used
  // above its threshold gets the shorter time; reserved addresses never do.
  std::optional<LeaseDurations> shortened_for(const SubnetView& view, Ipv4 address,
                                              const LeaseDurations& normal) const;
  // The record of a lease on `address` for the message's client (no state, no token).
  lease::Lease record_for(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                          Ipv4 address, const LeaseDurations& durations, TimePoint now) const;

 private:
  const config::Reservation* reservation_of(const SubnetView& view, const wire::Message& message,
                                            const ClientKey& client) const;
  bool reserved_for_another(const SubnetView& view, Ipv4 address, const wire::Message& message,
                            const ClientKey& client) const;
  bool reservation_usable(Ipv4 address, const ClientKey& client) const;
  const config::Reservation* usable_reservation(const SubnetView& view, const wire::Message& message,
                                                const ClientKey& client) const;
  bool pool_serves_client(const SubnetView& view, Ipv4 address, const wire::Message& message) const;
  std::optional<Ipv4> pick_for(const SubnetView& view, const wire::Message& message) const;
  bool requested_is_free(const SubnetView& view, Ipv4 address, const ClientKey& client) const;

  const Ledger& ledger_;
  const ClientClasses& classes_;
  const std::optional<PeerShare>& share_;
};

}  // namespace landlord::engine
