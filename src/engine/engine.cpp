// The RFC 2131 server state machine. One entry point per client message type; every lease
// change goes through State::put/hold/end_hold, which keep the table and the allocator in step.
//
// Allocation (RFC 2131 §4.3.1), for a client C in the subnet S chosen for its message:
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
// them out. An OFFER is an in-memory hold for offer_hold: it covers the address's last record,
// which comes back if the client never asks for the address. Only an ACK writes a record.
//
// Fencing: a record naming a client other than the address's last holder (a grant, a decline
// of an offer, the end of a decline hold) takes the last record's token plus one, and so does
// the rebind at T2 of the client's own lease (a new serving server: a new grant epoch); the same
// client otherwise keeps it. Records are replaced, never removed, so the last token of each address
// survives the end of its lease and a restart.
#include "landlord/engine/engine.hpp"

#include <algorithm>
#include <unordered_set>

#include "adaptive_lease.hpp"
#include "landlord/engine/load_balance.hpp"
#include "landlord/lease/allocator.hpp"
#include "landlord/lease/lease_table.hpp"
#include "classes.hpp"
#include "discover_waits.hpp"
#include "lease_classes.hpp"
#include "renewal_copies.hpp"
#include "reply.hpp"
#include "topology.hpp"

namespace landlord::engine {
namespace {

using lease::Lease;
using lease::LeaseState;
using wire::MessageType;
namespace option = wire::option;

using Facts = lease::LeaseTable::Facts;

bool is_active(LeaseState state) {
  return state == LeaseState::Offered || state == LeaseState::Bound ||
         state == LeaseState::Declined;
}

// How a REQUEST reads (RFC 2131 §4.3.2, Table 4): by server id, requested address and ciaddr.
enum class RequestState : std::uint8_t { Selecting, InitReboot, Renewing, Rebinding, Malformed };

RequestState classify(const wire::Message& message, const Ingress& ingress) {
  if (message.options.has(option::kServerId)) return RequestState::Selecting;
  if (message.ciaddr.is_zero()) {
    return message.options.has(option::kRequestedAddress) ? RequestState::InitReboot
                                                          : RequestState::Malformed;
  }
  // RENEWING is unicast straight to us; REBINDING is broadcast, and reaches us relayed or not.
  const bool unicast = !ingress.to_broadcast && message.giaddr.is_zero();
  return unicast ? RequestState::Renewing : RequestState::Rebinding;
}

}  // namespace

struct Engine::State {
  config::Config config;
  Topology topology{config};
  lease::LeaseTable table;
  lease::Allocator allocator;
  Counters counters;
  RenewalCopies renewal_copies;  // a relay's copies of unicast renewals (renewal_copies.hpp)
  std::optional<PeerShare> share = peer_share(config);  // peers split the clients (load_balance.hpp)
  DiscoverWaits discover_waits;  // how long clients left to a peer have been trying
  std::unordered_set<std::uint32_t> peers_down;  // server-ids of peers the store says are down
  // A shared store: the addresses whose token another server holds (its last bound write, or
  // its new token: lease.hpp `writer`). A bound record of ours for one takes the next token.
  std::unordered_set<std::uint32_t> tokens_elsewhere;

  explicit State(const config::Config& initial) : config(initial) { rebuild_allocator(); }

  // ---- the one path that changes records: the allocator follows every change

  void put(Lease record) {
    const Ipv4 address = record.address;
    note_writer(record);
    const auto before = table.availability(address);
    table.put(std::move(record));
    allocator.move(address, before, table.availability(address));
  }
  void hold(Lease offer, TimePoint until) {
    const Ipv4 address = offer.address;
    const auto before = table.availability(address);
    table.hold(std::move(offer), until);
    allocator.move(address, before, table.availability(address));
  }
  void end_hold(Ipv4 address) {
    const auto before = table.availability(address);
    table.end_hold(address);
    allocator.move(address, before, table.availability(address));
  }

  void rebuild_allocator() {
    allocator = lease::Allocator{};
    for (const SubnetView& view : topology.subnets()) {
      const config::Subnet& subnet = *view.subnet;
      for (const config::Reservation& reservation : subnet.reservations) {
        allocator.exclude(reservation.address);
      }
      if (subnet.subnet.prefix_length <= 30) {  // no hosts on the network and broadcast address
        allocator.exclude(subnet.subnet.network);
        allocator.exclude(subnet.subnet.broadcast());
      }
      for (const config::AddressRange& pool : subnet.pools) {
        allocator.add_pool(subnet.id, pool.first, pool.last);
      }
    }
    table.for_each([&](const Lease& record) {
      allocator.move(record.address, {}, lease::Availability::of(&record));
    });
  }

  // ---- outcomes

  Outcome ignore(std::string_view reason, Ipv4 address = {}) {
    ++counters.ignored;
    return {std::nullopt, {}, {EventKind::Ignore, address, reason}};
  }

  Ipv4 server_id(const Ingress& ingress) const {
    return config.server.server_id.value_or(ingress.interface_address);
  }

  Outcome nak(const wire::Message& request, const Ingress& ingress, Ipv4 address,
              std::string_view reason) {
    ++counters.naks;
    ReplySpec spec{MessageType::Nak, {}, server_id(ingress), nullptr, std::nullopt, reason};
    return {make_reply(request, ingress, spec), {}, {EventKind::Nak, address, reason}};
  }

  // §4.3.1 and §4.3.2: a client may ask for a lease time (option 51) in its DISCOVER or
  // REQUEST; it gets that time bounded by its subnet's lease min..max (both `time` unless
  // configured), with T1/T2 following the granted time. Without option 51: `time`.
  // A member of a class with `lease:` gets the first such class's times instead of the subnet's.
  LeaseDurations durations_for(const SubnetView& view, const wire::Message& message,
                               std::uint64_t member_of) const {
    const auto requested_s = message.options.get_u32(option::kLeaseTime);
    const config::LeaseTimes* class_times = class_lease(member_of);
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
  const config::Reservation* reservation_of(const SubnetView& view, const wire::Message& message,
                                            const ClientKey& client) const {
    if (const auto* reservation = view.reservation_for(message)) return reservation;
    if (!message.giaddr.is_zero() || message.ciaddr.is_zero()) return nullptr;
    const config::Reservation* held = view.reservation_at(message.ciaddr);
    if (held == nullptr || (held->circuit_id.empty() && held->remote_id.empty())) return nullptr;
    const auto record = table.facts(message.ciaddr, client);
    const bool holds = record != std::nullopt && record->of_client && record->state == LeaseState::Bound;
    return holds ? held : nullptr;
  }

  // Whether `address` is reserved for a client other than the sender of `message`.
  bool reserved_for_another(const SubnetView& view, Ipv4 address, const wire::Message& message,
                            const ClientKey& client) const {
    const config::Reservation* reservation = view.reservation_at(address);
    return reservation != nullptr && reservation != reservation_of(view, message, client);
  }

  // A reserved address may go to its client unless someone else still holds it.
  bool reservation_usable(Ipv4 address, const ClientKey& client) const {
    const auto record = table.facts(address, client);
    if (record == std::nullopt || record->of_client) {
      return record == std::nullopt || record->state != LeaseState::Declined;
    }
    return !is_active(record->state);
  }

  const config::Reservation* usable_reservation(const SubnetView& view,
                                                const wire::Message& message,
                                                const ClientKey& client) const {
    const config::Reservation* reservation = reservation_of(view, message, client);
    if (reservation == nullptr || !view.contains(reservation->address)) return nullptr;
    return reservation_usable(reservation->address, client) ? reservation : nullptr;
  }

  // ---- client classes (none configured: every client may use every pool)

  std::uint64_t classes_of(const wire::Message& message) const {
    return config.classes.empty() ? 0 : class_membership(config.classes, message);
  }

  // The classes of a message about the client's own bound lease on `address` (a renewal, a
  // rebind, a reboot's confirmation, an INFORM): those kept with the lease count too unless the
  // message contradicts them (lease_classes.hpp).
  std::uint64_t classes_of(const wire::Message& message, Ipv4 address, const ClientKey& client) const {
    if (config.classes.empty()) return 0;
    const auto record = table.facts(address, client);
    const bool own = record != std::nullopt && record->of_client && record->state == LeaseState::Bound;
    return own ? classes_of_held(message, address) : classes_of(message);
  }
  // ... for a caller that already knows `address` is the client's own bound lease.
  std::uint64_t classes_of_held(const wire::Message& message, Ipv4 address) const {
    if (config.classes.empty()) return 0;
    const auto held = table.find(address);
    return extension_classes(config.classes, message, held ? std::string_view(held->classes) : "");
  }

  const config::LeaseTimes* class_lease(std::uint64_t member_of) const {
    for (std::size_t index = 0; index < config.classes.size(); ++index) {
      if ((member_of >> index & 1) != 0 && config.classes[index].lease) return &*config.classes[index].lease;
    }
    return nullptr;
  }

  static const config::PoolScope* pool_scope(const SubnetView& view, Ipv4 address) {
    for (const config::PoolScope& scope : view.subnet->pool_scopes) {
      if (scope.range.contains(address)) return &scope;
    }
    return nullptr;
  }

  // Whether the pool holding `address` serves this client (pools kept for some classes).
  bool pool_serves_client(const SubnetView& view, Ipv4 address, const wire::Message& message) const {
    const config::PoolScope* scope = pool_scope(view, address);
    return scope == nullptr || scope->classes == 0 || pool_serves(scope, classes_of(message));
  }

  std::optional<Ipv4> pick_for(const SubnetView& view, const wire::Message& message) const {
    const auto& scopes = view.subnet->pool_scopes;
    const bool restricted = std::any_of(scopes.begin(), scopes.end(),
                                        [](const config::PoolScope& scope) { return scope.classes != 0; });
    if (!restricted) {
      // Peers sharing the store take addresses from their own segment of each pool first, so
      // two of them do not offer one address at the same moment (the store would refuse one
      // grant: a NAK and a retry).
      if (share) return allocator.pick_share(view.id(), {share->index, share->count});
      return allocator.pick(view.id());
    }
    const std::uint64_t member_of = classes_of(message);
    const auto serves = [&](Ipv4 pool_first) { return pool_serves(pool_scope(view, pool_first), member_of); };
    // Peers: each from its own segment of the pools the client's classes may use, as above.
    if (share) return allocator.pick_share_where(view.id(), {share->index, share->count}, serves);
    return allocator.pick_where(view.id(), serves);
  }

  // Step 3: a requested address that is not allocated. Another client's ended lease (its
  // affinity) does not count: §4.3.1 gives the address to whoever asks for it.
  bool requested_is_free(const SubnetView& view, Ipv4 address, const ClientKey& client) const {
    if (!view.contains(address) || !allocator.in_pool(view.id(), address) ||
        allocator.excluded(address)) {
      return false;
    }
    const auto record = table.facts(address, client);
    if (record == std::nullopt) return true;
    if (record->of_client) return record->state != LeaseState::Declined;
    return !is_active(record->state);
  }

  std::optional<Ipv4> allocate(const SubnetView& view, const wire::Message& message,
                               const ClientKey& client) const {
    if (const auto* reservation = usable_reservation(view, message, client)) {
      return reservation->address;
    }
    if (const auto own = table.facts(client);
        own != std::nullopt && own->subnet_id == view.id() && own->state != LeaseState::Declined &&
        view.contains(own->address) && allocator.in_pool(view.id(), own->address) &&
        !allocator.excluded(own->address) && pool_serves_client(view, own->address, message)) {
      return own->address;
    }
    if (const auto requested = message.options.get_ipv4(option::kRequestedAddress);
        requested && requested_is_free(view, *requested, client) &&
        pool_serves_client(view, *requested, message)) {
      return *requested;
    }
    return pick_for(view, message);
  }

  // Whether `address` may be granted to the client on a REQUEST: its own lease, its
  // reservation, or a free pool address — and never past a usable reservation of its own.
  bool can_grant(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                 Ipv4 address) const {
    if (!view.contains(address)) return false;
    if (const auto* reservation = usable_reservation(view, message, client)) {
      return reservation->address == address;
    }
    if (reserved_for_another(view, address, message, client)) return false;
    if (view.reservation_at(address) != nullptr) return reservation_usable(address, client);
    if (!allocator.in_pool(view.id(), address)) return false;
    const auto record = table.facts(address, client);
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
    const auto own = table.facts(client);
    return own == std::nullopt || own->subnet_id != view.id() || own->address == address ||
           !(own->state == LeaseState::Offered || own->state == LeaseState::Bound);
  }

  // The reservation at `address` when it is this client's: its options go into the reply.
  const config::Reservation* own_reservation(const SubnetView& view, const wire::Message& message,
                                             const ClientKey& client, Ipv4 address) const {
    const config::Reservation* reservation = view.reservation_at(address);
    if (reservation == nullptr || reserved_for_another(view, address, message, client)) return nullptr;
    return reservation;
  }

  // A pool's adaptive lease time (adaptive_lease.hpp): a new lease on `address` in a pool used
  // above its threshold gets the shorter time; reserved addresses never do.
  std::optional<LeaseDurations> shortened_for(const SubnetView& view, Ipv4 address,
                                              const LeaseDurations& normal) const {
    const config::AdaptivePool* pool = adaptive_pool_at(*view.subnet, address);
    if (pool == nullptr || view.reservation_at(address) != nullptr) return std::nullopt;
    const auto usage = allocator.usage_of_pool_at(address);
    if (!usage) return std::nullopt;
    const bool still_free = table.availability(address).kind != lease::Availability::Kind::Taken;
    if (!above_threshold(*pool, *usage, still_free)) return std::nullopt;
    const LeaseDurations cut = shortened(*pool, view.subnet->lease, normal);
    if (cut.lease_time == normal.lease_time) return std::nullopt;
    return cut;
  }

  Lease record_for(const SubnetView& view, const wire::Message& message, const ClientKey& client,
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

  // The address's last real lease: the record, or the one an offer hold covers; of_client
  // tells whether it was `client`'s.
  std::optional<Facts> last_lease(Ipv4 address, const ClientKey& client) const {
    const auto record = table.facts(address, client);
    if (record == std::nullopt || record->state != LeaseState::Offered) return record;
    const auto covered = table.covered(address);
    if (covered == std::nullopt) return std::nullopt;
    return Facts::of(*covered, client);
  }

  // ---- fencing: the one place tokens are computed

  // Whose the address's token is after `record` goes in, as the store decides it: the row's
  // writer, which a record from the store names (observe, restore); a record of our own makes
  // the token ours when it is bound or raises the token (the store's rule, postgres_schema.hpp).
  void note_writer(const Lease& record) {
    const std::uint32_t address = record.address.to_uint();
    if (!record.writer.is_zero()) {
      if (config.server.server_id && record.writer == *config.server.server_id) {
        tokens_elsewhere.erase(address);
      } else {
        tokens_elsewhere.insert(address);
      }
      return;
    }
    if (tokens_elsewhere.empty() || !tokens_elsewhere.contains(address)) return;
    const auto previous = table.facts(record.address, record.client);
    if (record.state == LeaseState::Bound || previous == std::nullopt ||
        record.fencing_token > previous->fencing_token) {
      tokens_elsewhere.erase(address);
    }
  }

  // The token of a record for `address` naming `client`: the address's last lease's, plus one
  // when that lease named someone else (a first holder gets 1) or its token is another
  // server's. So every written record passes the store's rule: a higher token, or the same
  // token from the same client (and, bound, the same server).
  lease::FencingToken token_after(const std::optional<Facts>& previous) const {
    if (previous == std::nullopt) return 1;
    const bool ours = previous->of_client && !tokens_elsewhere.contains(previous->address.to_uint());
    return ours ? previous->fencing_token : previous->fencing_token + 1;
  }
  lease::FencingToken token_for(Ipv4 address, const ClientKey& client) const {
    return token_after(last_lease(address, client));
  }
  // An offer is a hold, never written: it carries the last lease's token (0 for none).
  lease::FencingToken last_token(Ipv4 address, const ClientKey& client) const {
    const auto previous = last_lease(address, client);
    return previous == std::nullopt ? 0 : previous->fencing_token;
  }

  // ---- ACK with a lease

  Outcome grant(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                const ClientKey& client, Ipv4 address, lease::Extension extension, EventKind kind,
                std::string_view reason, TimePoint now, bool new_epoch = false) {
    // Granted only inside the subnet's pools (or its reservation), never over another
    // client's offer, lease or decline hold.
    LANDLORD_ASSERT(view.contains(address) && (allocator.in_pool(view.id(), address) ||
                                               view.reservation_at(address) != nullptr));
    const auto current = table.facts(address, client);
    LANDLORD_ASSERT(current == std::nullopt || current->of_client || !current->has_client ||
                    !is_active(current->state));
    const std::optional<TimePoint> held_until = held_lease_end(current, address);
    // A renewal, a rebind or a reboot's confirmation of the client's own lease keeps the normal
    // time; only a new lease is shortened.
    const bool own_lease = current != std::nullopt && current->of_client && current->state == LeaseState::Bound;
    const std::uint64_t member_of = own_lease ? classes_of_held(message, address) : classes_of(message);
    LeaseDurations durations = durations_for(view, message, member_of);
    if (kind == EventKind::Grant && !own_lease) {
      if (const auto cut = shortened_for(view, address, durations)) {
        durations = *cut;
        ++counters.shortened_leases;
      }
    }
    Lease lease = record_for(view, message, client, address, durations, now);
    lease.classes = class_names(config.classes, member_of);
    lease.state = LeaseState::Bound;
    lease.last_extension = extension;
    // token_for(), without a second lookup: an offer hold's last lease is the one it covers.
    const std::optional<Facts> previous =
        current != std::nullopt && current->state == LeaseState::Offered ? last_lease(address, client) : current;
    lease.fencing_token = token_after(previous);
    // A rebind at T2 is a change of serving server (the client's own did not answer its
    // renewals): a new grant epoch. Whatever the server it left still writes with the old token
    // is then refused by the token alone, its late renewals included. The new token is the
    // held one plus one whoever takes it (already so when the token was another server's):
    // two servers taking the lease over at once write the same token, and the store lets
    // exactly one of them have it.
    if (extension == lease::Extension::Rebinding && own_lease && lease.fencing_token == current->fencing_token) {
      ++lease.fencing_token;
    }
    // The same for peers confirming a rebooted client's lease (init_reboot): whichever answers
    // writes the client's last token plus one.
    if (new_epoch && previous != std::nullopt && previous->of_client &&
        lease.fencing_token == previous->fencing_token) {
      ++lease.fencing_token;
    }
    put(lease);
    switch (kind) {
      case EventKind::Renew:
        ++counters.renewals;
        break;
      case EventKind::Rebind:
        ++counters.rebinds;
        break;
      default:
        ++counters.grants;
        break;
    }
    ReplySpec spec{MessageType::Ack,    address, server_id(ingress), view.subnet,
                   durations, {}, own_reservation(view, message, client, address),
                   config.classes, member_of, config.server.classless_default_route};
    std::vector<Lease> mutations;  // not `{lease}`: an initializer list would copy it twice
    mutations.push_back(std::move(lease));
    Outcome outcome{make_reply(message, ingress, spec), std::move(mutations), {kind, address, reason}};
    // Should the ACK never leave: no longer than an offer, or the lease the client held.
    outcome.unacknowledged_until = now + view.subnet->lease.offer_hold;
    outcome.held_until = held_until;
    return outcome;
  }

  // The end of the bound lease the client already holds on `address` (a renewal, a reboot).
  std::optional<TimePoint> held_lease_end(const std::optional<Facts>& current, Ipv4 address) const {
    if (current == std::nullopt || !current->of_client || current->state != LeaseState::Bound) {
      return std::nullopt;
    }
    const auto held = table.find(address);
    return held ? std::optional<TimePoint>{held->expires_at()} : std::nullopt;
  }

  bool unacknowledged(const Lease& granted, const Lease& shortened) {
    LANDLORD_ASSERT(granted.address == shortened.address && granted.client == shortened.client);
    const std::optional<Lease> current = table.find(granted.address);
    if (current == std::nullopt || current->client != granted.client ||
        current->state != granted.state || current->fencing_token != granted.fencing_token ||
        current->granted_at != granted.granted_at || current->lease_time != granted.lease_time) {
      return false;  // superseded: a later change of the address stands
    }
    put(shortened);
    return true;
  }

  // ---- message handlers

  // peers: whether this server answers the DISCOVER by the subnet's primary (when it has one)
  // or by the client's RFC 3074 bucket, or because its `secs` says it has waited long enough.
  bool answers_here(const SubnetView& view, const wire::Message& message) const {
    const auto& primary = view.subnet->primary;
    if (!primary) {
      return answers_discover(message, *share, config.peers.answer_all_after) ||
             down_peer_of(view, message).has_value();
    }
    return *primary == config.peers.servers[share->index] ||
           std::chrono::seconds{message.secs} >= config.peers.answer_all_after ||
           down_peer_of(view, message).has_value();
  }
  // The peer whose client this is (by the subnet's primary or the client's bucket), when the
  // store says it is down (peers_up).
  std::optional<Ipv4> down_peer_of(const SubnetView& view, const wire::Message& message) const {
    if (!share || peers_down.empty()) return std::nullopt;
    std::optional<Ipv4> owner = view.subnet->primary;
    if (!owner) {
      const auto bucket = client_bucket(message);
      if (!bucket) return std::nullopt;
      owner = config.peers.servers[*bucket % share->count];
    }
    if (*owner == config.peers.servers[share->index] || !peers_down.contains(owner->to_uint())) {
      return std::nullopt;
    }
    return owner;
  }

  Outcome discover(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                   const ClientKey& client, TimePoint now) {
    ++counters.discovers;
    // Neither our bucket nor `secs` past answer-all-after: maybe a client that leaves secs at 0
    // and has been trying that long as far as we saw.
    if (share && !answers_here(view, message) &&
        discover_waits.trying_for(client, now) < config.peers.answer_all_after) {
      ++counters.left_to_peers;
      return ignore("DISCOVER in a peer's hash buckets (peers.servers)");
    }
    const auto address = allocate(view, message, client);
    if (!address) {
      ++counters.pool_exhausted;
      return ignore("pool exhausted: no free address in the subnet");
    }
    const auto record = table.facts(*address, client);
    const bool already_bound =
        record != std::nullopt && record->of_client && record->state == LeaseState::Bound;
    const std::uint64_t member_of = classes_of(message);
    LeaseDurations durations = durations_for(view, message, member_of);
    if (!already_bound) {  // a bound lease needs no hold: the address is the client's already
      durations = shortened_for(view, *address, durations).value_or(durations);
      Lease offer = record_for(view, message, client, *address, durations, now);
      offer.state = LeaseState::Offered;
      offer.fencing_token = last_token(*address, client);
      hold(std::move(offer), now + view.subnet->lease.offer_hold);
    }
    ++counters.offers;
    ReplySpec spec{MessageType::Offer,  *address, server_id(ingress), view.subnet,
                   durations, {}, own_reservation(view, message, client, *address),
                   config.classes, member_of, config.server.classless_default_route};
    // Said in the log: an operator (and bench/failover.sh) can tell a peer's client served for it.
    const std::string_view reason =
        down_peer_of(view, message) ? "offered for its peer, which is down" : "offered";
    Outcome outcome{make_reply(message, ingress, spec), {}, {EventKind::Offer, *address, reason}};
    // Offer-ping checks an address nobody here holds: not the client's own bound lease.
    if (!already_bound) outcome.probe_first = view.subnet->offer_ping;
    return outcome;
  }

  Outcome request(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                  const ClientKey& client, TimePoint now) {
    ++counters.requests;
    const auto requested = message.options.get_ipv4(option::kRequestedAddress);
    const RequestState state = classify(message, ingress);
    // It was offered an address, or holds one: no longer waiting. An INIT-REBOOT is still
    // waiting for its server (below, init_reboot).
    if (share && state != RequestState::InitReboot) discover_waits.forget(client);
    switch (state) {
      case RequestState::Selecting:
        return selecting(view, message, ingress, client, requested, now);
      case RequestState::InitReboot:
        return init_reboot(view, message, ingress, client, *requested, now);
      case RequestState::Renewing: {
        Outcome renewed = extend(view, message, ingress, client, lease::Extension::Renewing, now);
        if (renewed.event.kind == EventKind::Renew) renewal_copies.remember(message, client, now);
        return renewed;
      }
      case RequestState::Rebinding:
        if (renewal_copies.is_copy(message, client, now)) {
          ++counters.duplicates;
          return {std::nullopt, {}, {EventKind::Ignore, message.ciaddr, "relayed copy of a renewal just answered"}};
        }
        return extend(view, message, ingress, client, lease::Extension::Rebinding, now);
      case RequestState::Malformed:
        break;
    }
    return ignore("REQUEST with neither server id, requested address nor ciaddr");
  }

  // §4.3.2 SELECTING: the client answers one OFFER, naming its server in option 54.
  Outcome selecting(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                    const ClientKey& client, std::optional<Ipv4> requested, TimePoint now) {
    if (message.options.get_ipv4(option::kServerId) != server_id(ingress)) {
      // It chose another server: our offer to it is void, the address is free again.
      if (const auto own = table.facts(client);
          own != std::nullopt && own->state == LeaseState::Offered) {
        const Ipv4 released = own->address;
        end_hold(released);
        return ignore("client selected another server; offer withdrawn", released);
      }
      return ignore("client selected another server");
    }
    if (!requested) return nak(message, ingress, {}, "SELECTING request without option 50");
    if (!can_grant(view, message, client, *requested)) {
      return nak(message, ingress, *requested, "requested address is not available");
    }
    return grant(view, message, ingress, client, *requested, lease::Extension::None,
                 EventKind::Grant, "granted", now);
  }

  // §4.3.2 INIT-REBOOT: a client that remembers an address asks to keep it. Wrong for the link
  // or someone else's: NAK. Unknown to us: RFC 2131 says stay silent (another server may own
  // it), which is what a non-authoritative server does. An authoritative server is the only
  // one on its links, so like Kea and dhcpd it grants the address when it is free and
  // otherwise NAKs, rather than leave the client retrying until it gives up.
  //
  // Peers: the INIT-REBOOT is broadcast and names no server, so it reaches every peer on the
  // link, and one answer is wanted (RFC 2131 §4.3.2 has each server speak only for what it
  // knows). It is answered by the server whose token the client's last lease on the address
  // is (the one that granted it or last took it over: it knows the lease best), or, when this
  // server knows no lease of the client's there, by the server that would answer its DISCOVER
  // (the subnet's primary or the client's RFC 3074 bucket). The others answer once the client
  // has been trying for answer-all-after, as for a DISCOVER: that server may be down. Whoever
  // confirms the lease writes the held token plus one, as for a rebind at T2, so that a peer
  // answering late (the holder slow, not dead) writes the same token and the store lets
  // exactly one of them have it: never two ACKs.
  Outcome init_reboot(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                      const ClientKey& client, Ipv4 requested, TimePoint now) {
    if (share && !answers_reboot(view, message, client, requested, now)) {
      return ignore("INIT-REBOOT left to the peer that holds the lease or owns the client (peers.servers)",
                    requested);
    }
    const bool authoritative = config.server.authoritative;
    const auto record = table.facts(requested, client);
    const bool own_record = record != std::nullopt && record->of_client;
    const bool known_client = table.facts(client).has_value();
    if (can_grant(view, message, client, requested)) {
      if (own_record || authoritative) {
        const bool held = own_record && record->state == LeaseState::Bound &&
                          record->subnet_id == view.id();
        Outcome outcome = grant(view, message, ingress, client, requested, lease::Extension::None,
                                EventKind::Grant,
                                own_record ? "confirmed after reboot" : "granted on reboot", now,
                                /*new_epoch=*/shared_store());
        outcome.reboot_of_held = held && outcome.held_until.has_value();
        return outcome;
      }
      if (!known_client) return ignore("INIT-REBOOT for an unknown lease", requested);
      return nak(message, ingress, requested, "requested address is not this client's lease");
    }
    if (!authoritative && !known_client) {
      return ignore("INIT-REBOOT for an unknown lease", requested);
    }
    if (!view.contains(requested)) {
      return nak(message, ingress, requested, "requested address is wrong for the link");
    }
    return nak(message, ingress, requested, "requested address is not available to this client");
  }

  // Several servers may confirm one reboot: peers (answer-all-after passed, the holder slow),
  // and any servers sharing a store without `peers:`, which all answer every INIT-REBOOT. Each
  // then writes the held token plus one, so the store takes exactly one confirmation: one ACK.
  bool shared_store() const {
    return share.has_value() || config.store.type == config::StoreSection::Type::Postgresql;
  }

  // Peers: whether this server answers the INIT-REBOOT now (above); when it does not, counted
  // by whom it is left to: the holder of the lease's token, or the client's own peer.
  bool answers_reboot(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                      Ipv4 requested, TimePoint now) {
    const auto last = last_lease(requested, client);
    const bool known = last != std::nullopt && last->of_client;
    const bool ours = known ? !tokens_elsewhere.contains(requested.to_uint()) : answers_here(view, message);
    if (ours || std::chrono::seconds{message.secs} >= config.peers.answer_all_after) return true;
    if (discover_waits.trying_for(client, now) >= config.peers.answer_all_after) return true;
    ++(known ? counters.reboots_left_to_holder : counters.reboots_left_to_owner);
    return false;
  }

  // §4.3.2 RENEWING (unicast, T1) and REBINDING (broadcast, T2): extend the client's lease on
  // ciaddr. Someone else's address: NAK. An address we have no lease for: a RENEWING client
  // unicast to us, so NAK it; a REBINDING one may hold it from another server, so only an
  // authoritative server answers (granting it when free, else NAK).
  Outcome extend(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                 const ClientKey& client, lease::Extension extension, TimePoint now) {
    const Ipv4 address = message.ciaddr;
    const auto record = table.facts(address, client);
    const bool renewing = extension == lease::Extension::Renewing;
    const EventKind kind = renewing ? EventKind::Renew : EventKind::Rebind;
    if (record != std::nullopt && record->of_client) {
      if (record->state == LeaseState::Released) {  // given back, or revoked by an operator
        return nak(message, ingress, address, "lease was released or revoked");
      }
      if (!can_grant(view, message, client, address)) {
        return nak(message, ingress, address, "lease is no longer valid on this link");
      }
      return grant(view, message, ingress, client, address, extension, kind,
                   renewing ? "renewed" : "rebound", now);
    }
    if (record != std::nullopt && record->has_client) {
      return nak(message, ingress, address, "address is leased to another client");
    }
    if (config.server.authoritative && can_grant(view, message, client, address)) {
      return grant(view, message, ingress, client, address, extension, EventKind::Grant,
                   "unknown lease granted on extension", now);
    }
    if (!renewing && !config.server.authoritative) {
      return ignore("REBINDING for an unknown lease", address);
    }
    return nak(message, ingress, address, "no lease for this address");
  }

  bool names_another_server(const wire::Message& message, const Ingress& ingress) const {
    const auto named = message.options.get_ipv4(option::kServerId);
    return named && *named != server_id(ingress);
  }

  // §4.3.3: the client found the address in use. Take it out of service for decline_hold.
  Outcome decline(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                  TimePoint now) {
    if (names_another_server(message, ingress)) return ignore("DECLINE for another server");
    const auto address = message.options.get_ipv4(option::kRequestedAddress);
    if (!address) return ignore("DECLINE without option 50");
    const std::optional<Lease> record = table.find(*address);
    if (record == std::nullopt || record->client != message.client_key() ||
        !(record->state == LeaseState::Offered || record->state == LeaseState::Bound)) {
      return ignore("DECLINE for an address not offered to or held by this client", *address);
    }
    Lease declined = *record;
    // Declining an offer makes the decliner the address's holder of record: when that is a
    // change of holder, the record takes a new token (the store accepts an equal token only
    // from the same client).
    declined.fencing_token = token_for(*address, declined.client);
    declined.state = LeaseState::Declined;
    declined.last_extension = lease::Extension::None;
    declined.granted_at = now;
    declined.lease_time = view.subnet->lease.decline_hold;
    declined.renew_time = Duration{0};
    declined.rebind_time = Duration{0};
    put(declined);
    ++counters.declines;
    return {std::nullopt, {declined}, {EventKind::Decline, *address, "declined: address in use"}};
  }

  // Offer-ping found the offered address in use: like a DECLINE, but nobody here declined it,
  // so the record names no client (the end of the hold then leaves the address to nobody).
  Outcome conflict(Ipv4 address, TimePoint now) {
    const std::optional<Lease> offer = table.find(address);
    const SubnetView* view = topology.containing(address);
    if (offer == std::nullopt || offer->state != LeaseState::Offered || view == nullptr) {
      return ignore("offer-ping conflict for an address not on offer", address);
    }
    end_hold(address);
    Lease declined;
    declined.address = address;
    declined.subnet_id = offer->subnet_id;
    declined.state = LeaseState::Declined;
    declined.fencing_token = token_for(address, declined.client);
    declined.granted_at = now;
    declined.lease_time = view->subnet->lease.decline_hold;
    put(declined);
    ++counters.conflicts;
    return {std::nullopt, {declined}, {EventKind::Decline, address, "in use (answered the offer-ping), not offered"}};
  }

  // §4.3.4: the client gives its address back. The record stays (Released) for affinity.
  Outcome release(const wire::Message& message, const Ingress& ingress, TimePoint now) {
    if (names_another_server(message, ingress)) return ignore("RELEASE for another server");
    const std::optional<Lease> record = table.find(message.ciaddr);
    if (record == std::nullopt || record->client != message.client_key() ||
        record->state != LeaseState::Bound) {
      return ignore("RELEASE for an address not bound to this client", message.ciaddr);
    }
    Lease released = *record;
    released.state = LeaseState::Released;
    // The lease ends now: expires_at() is when the address became free.
    if (now < released.expires_at()) {
      released.lease_time = std::max(Duration{0}, now - released.granted_at);
    }
    put(released);
    ++counters.releases;
    return {std::nullopt, {released}, {EventKind::Release, released.address, "released"}};
  }

  // §4.3.5: configuration only. No lease, no lease times, yiaddr 0, the ACK goes to ciaddr.
  Outcome inform(const SubnetView& view, const wire::Message& message, const Ingress& ingress) {
    ++counters.informs;
    const ClientKey client = message.client_key();
    ReplySpec spec{MessageType::Ack, {}, server_id(ingress), view.subnet, std::nullopt, {},
                   own_reservation(view, message, client, message.ciaddr), config.classes,
                   classes_of(message, message.ciaddr, client), config.server.classless_default_route};
    return {
        make_reply(message, ingress, spec), {}, {EventKind::Inform, message.ciaddr, "informed"}};
  }

  Outcome handle(const wire::Message& message, const Ingress& ingress, TimePoint now,
                 const RequestFacts* facts = nullptr) {
    if (message.op != wire::Op::BootRequest) return ignore("BOOTREPLY from a client");
    const auto type = message.type();
    if (!type) return ignore("no valid DHCP message type");
    switch (*type) {
      case MessageType::Discover:
      case MessageType::Request:
      case MessageType::Decline:
      case MessageType::Release:
      case MessageType::Inform:
        break;
      case MessageType::Offer:
      case MessageType::Ack:
      case MessageType::Nak:
        return ignore("server message type from a client");
    }
    if (*type == MessageType::Release) return release(message, ingress, now);
    const SubnetChoice choice = facts != nullptr && facts->chosen ? chosen(*facts) : topology.select(message, ingress);
    if (choice.subnet == nullptr) return ignore(choice.reason);
    const SubnetView& view = *choice.subnet;
    switch (*type) {
      case MessageType::Discover:
      case MessageType::Request: {
        ClientKey built;
        const ClientKey& client =
            facts != nullptr && !facts->client.empty() ? facts->client : (built = message.client_key());
        return *type == MessageType::Discover ? discover(view, message, ingress, client, now)
                                              : request(view, message, ingress, client, now);
      }
      case MessageType::Decline:
        return decline(view, message, ingress, now);
      case MessageType::Inform:
        return inform(view, message, ingress);
      default:
        break;
    }
    return ignore("server message type from a client");
  }

  // The choice request_facts() made, again: subnet ids are 1.. in the topology's order.
  SubnetChoice chosen(const RequestFacts& facts) const {
    if (facts.subnet_id == 0) return {nullptr, facts.no_subnet};
    LANDLORD_ASSERT(facts.subnet_id <= topology.subnets().size());
    const SubnetView& view = topology.subnets()[facts.subnet_id - 1];
    LANDLORD_ASSERT(view.id() == facts.subnet_id);
    return {&view, {}};
  }

  // Engine::request_facts: what handle() would do, without doing it.
  RequestFacts request_facts(const wire::Message& message, const Ingress& ingress) const {
    const auto type = message.type();
    if (message.op != wire::Op::BootRequest || !type ||
        (*type != MessageType::Discover && *type != MessageType::Request)) {
      return {};
    }
    const SubnetChoice choice = topology.select(message, ingress);
    if (choice.subnet == nullptr) return {0, false, true, choice.reason, {}};
    RequestFacts facts{choice.subnet->id(), false, true, {}, message.client_key()};
    const ClientKey& client = facts.client;
    const auto holds = [&](Ipv4 address) {  // offered to or bound to this client
      const auto record = table.facts(address, client);
      return record != std::nullopt && record->of_client &&
             (record->state == LeaseState::Offered || record->state == LeaseState::Bound);
    };
    if (*type == MessageType::Discover) {
      const auto own = table.facts(client);
      facts.new_address = !(own != std::nullopt && own->subnet_id == facts.subnet_id &&
                            (own->state == LeaseState::Offered || own->state == LeaseState::Bound));
      return facts;
    }
    const auto requested = message.options.get_ipv4(option::kRequestedAddress);
    switch (classify(message, ingress)) {
      case RequestState::Selecting:
        if (names_another_server(message, ingress) || !requested) return facts;
        facts.new_address = !holds(*requested);
        return facts;
      case RequestState::InitReboot:
        facts.new_address = !holds(*requested);
        return facts;
      case RequestState::Renewing:
      case RequestState::Rebinding:
        facts.new_address = !holds(message.ciaddr);
        return facts;
      case RequestState::Malformed:
        break;
    }
    return facts;
  }

  std::vector<Lease> reclaim(TimePoint now, std::size_t max_records) {
    std::vector<Lease> mutations;
    for (std::size_t done = 0; done < max_records; ++done) {
      const std::optional<Lease> due = table.next_due(now);
      if (due == std::nullopt) break;
      switch (due->state) {
        case LeaseState::Offered:
          end_hold(due->address);  // an offer is memory only: nothing to persist
          break;
        case LeaseState::Bound: {
          Lease expired = *due;
          expired.state = LeaseState::Expired;
          put(expired);
          ++counters.expirations;
          mutations.push_back(std::move(expired));
          break;
        }
        case LeaseState::Declined: {
          // The hold is over: the address is free for anyone, the decliner keeps no claim.
          Lease freed = *due;
          freed.state = LeaseState::Expired;
          freed.client = ClientKey{};
          freed.fencing_token = token_for(freed.address, freed.client);  // a change, to nobody
          freed.client_id = ClientId{};
          freed.hardware = HardwareAddress{};
          freed.hostname.clear();
          freed.classes.clear();
          put(freed);
          mutations.push_back(std::move(freed));
          break;
        }
        case LeaseState::Expired:
        case LeaseState::Released:
          LANDLORD_ASSERT(false && "records without a deadline are never due");
      }
    }
    return mutations;
  }

  bool refused(const Lease& written, TimePoint now) {
    const std::optional<Lease> current = table.find(written.address);
    // Superseded (a later grant, extension, expiry or hold of the address): that one is what
    // stands, and the store answers for it on its own.
    if (current == std::nullopt || current->client != written.client ||
        current->state != written.state || current->fencing_token != written.fencing_token ||
        current->granted_at != written.granted_at || current->lease_time != written.lease_time) {
      return false;
    }
    ++counters.fenced;
    Lease nobody = written;
    nobody.state = LeaseState::Expired;
    nobody.client = ClientKey{};
    nobody.client_id = ClientId{};
    nobody.hardware = HardwareAddress{};
    nobody.hostname.clear();
    nobody.classes.clear();
    nobody.last_extension = lease::Extension::None;
    nobody.granted_at = std::min(written.granted_at, now);
    nobody.lease_time = Duration{0};
    put(nobody);  // the address's token stays: never lower than what this engine wrote
    Duration hold_for = written.lease_time;
    for (const SubnetView& view : topology.subnets()) {
      if (view.id() == written.subnet_id) hold_for = std::max(hold_for, view.lease_time);
    }
    Lease quarantine = nobody;
    quarantine.state = LeaseState::Offered;
    hold(std::move(quarantine), std::max(written.expires_at(), now + hold_for));
    return true;
  }

  // ---- operators' changes (control API)

  static Unexpected<AdminRefusal> refuse(AdminRefusal::Kind kind, std::string reason) {
    return unexpected(AdminRefusal{kind, std::move(reason)});
  }

  AdminResult admin_grant(const AdminLease& request, bool update, TimePoint now) {
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
    if (reserved == nullptr && (!allocator.in_pool(view->id(), address) || allocator.excluded(address))) {
      return refuse(Kind::Invalid, where + " is outside every pool of " + subnet_name);
    }
    const auto record = table.facts(address, client);
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
    if (const auto own = table.facts(client); own != std::nullopt && own->subnet_id == view->id() &&
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
    // An update changes what the operator gave; the classes the client was granted under stay.
    if (update) lease.classes = table.find(address)->classes;
    lease.fencing_token = token_for(address, client);
    put(lease);
    return Outcome{std::nullopt, {lease},
                   {EventKind::Admin, address, update ? "updated by operator" : "added by operator"}};
  }

  AdminResult admin_revoke(Ipv4 address, TimePoint now) {
    const std::optional<Lease> record = table.find(address);
    if (record == std::nullopt ||
        (record->state != LeaseState::Bound && record->state != LeaseState::Declined)) {
      return refuse(AdminRefusal::Kind::NotFound, "no bound or declined lease on " + address.to_string());
    }
    Lease changed = *record;
    if (changed.state == LeaseState::Bound) {
      changed.state = LeaseState::Released;
      if (now < changed.expires_at()) changed.lease_time = std::max(Duration{0}, now - changed.granted_at);
    } else {  // the end of a decline hold, as reclaim() does it: the address is nobody's
      changed.state = LeaseState::Expired;
      changed.client = ClientKey{};
      ++changed.fencing_token;
      changed.client_id = ClientId{};
      changed.hardware = HardwareAddress{};
      changed.hostname.clear();
      changed.classes.clear();
    }
    put(changed);
    return Outcome{std::nullopt, {changed}, {EventKind::Admin, address, "revoked by operator"}};
  }

  void restore(Lease record) {
    // Holds are never persisted; 0.0.0.0 is no lease at all.
    if (record.state == LeaseState::Offered || record.address.is_zero()) return;
    if (const auto existing = table.facts(record.address, record.client);
        existing != std::nullopt && existing->fencing_token > record.fencing_token) {
      return;  // a newer record for this address is already in: tokens never go backwards
    }
    put(std::move(record));
  }

  bool observe(Lease record) {
    if (record.state == LeaseState::Offered || record.address.is_zero()) return false;
    const std::optional<Lease> current = table.find(record.address);
    const std::optional<Lease> known = current != std::nullopt && current->state == LeaseState::Offered
                                           ? table.covered(record.address)
                                           : current;
    if (known != std::nullopt) {
      if (known->fencing_token > record.fencing_token) return false;  // ours, not yet stored
      if (known->fencing_token == record.fencing_token && known->client == record.client) {
        if (known->granted_at > record.granted_at) return false;  // our extension, not yet stored
        if (known->state == record.state && known->granted_at == record.granted_at &&
            known->lease_time == record.lease_time) {
          note_writer(record);  // which server's the token is may still be news
          return false;  // what we already believe (our own write, read back)
        }
      }
    }
    put(std::move(record));  // ends an offer hold on the address too
    ++counters.learned;
    return true;
  }

  void reconfigure(const config::Config& next) {
    config = next;
    topology = Topology{config};
    share = peer_share(config);
    rebuild_allocator();
  }
};

Engine::Engine(const config::Config& config) : state_(std::make_unique<State>(config)) {}
Engine::~Engine() = default;

void Engine::restore(lease::Lease record) { state_->restore(std::move(record)); }

bool Engine::observe(lease::Lease record) { return state_->observe(std::move(record)); }

std::vector<Ipv4> Engine::peers_up(std::span<const Ipv4> up) {
  std::vector<Ipv4> changed;
  const auto& servers = state_->config.peers.servers;
  const std::optional<PeerShare>& share = state_->share;
  for (std::size_t index = 0; index < servers.size(); ++index) {
    if (share && index == share->index) continue;  // ourselves
    const Ipv4 server = servers[index];
    const bool down = std::find(up.begin(), up.end(), server) == up.end();
    const bool was_down = state_->peers_down.contains(server.to_uint());
    if (down == was_down) continue;
    if (down) {
      state_->peers_down.insert(server.to_uint());
    } else {
      state_->peers_down.erase(server.to_uint());
    }
    changed.push_back(server);
  }
  return changed;
}

Outcome Engine::handle(const wire::Message& message, const Ingress& ingress, TimePoint now) {
  return state_->handle(message, ingress, now);
}

Outcome Engine::handle(const wire::Message& message, const Ingress& ingress, TimePoint now,
                       const RequestFacts& facts) {
  return state_->handle(message, ingress, now, &facts);
}

RequestFacts Engine::request_facts(const wire::Message& message, const Ingress& ingress) const {
  return state_->request_facts(message, ingress);
}

bool Engine::refused(const lease::Lease& record, TimePoint now) {
  return state_->refused(record, now);
}

bool Engine::unacknowledged(const lease::Lease& granted, const lease::Lease& shortened) {
  return state_->unacknowledged(granted, shortened);
}

Outcome Engine::conflict(Ipv4 address, TimePoint now) { return state_->conflict(address, now); }

std::vector<lease::Lease> Engine::reclaim(TimePoint now, std::size_t max_records) {
  return state_->reclaim(now, max_records);
}

std::optional<TimePoint> Engine::next_deadline() const { return state_->table.next_deadline(); }

void Engine::reconfigure(const config::Config& config) { state_->reconfigure(config); }

AdminResult Engine::admin_grant(const AdminLease& lease, bool update, TimePoint now) {
  return state_->admin_grant(lease, update, now);
}

AdminResult Engine::admin_revoke(Ipv4 address, TimePoint now) {
  return state_->admin_revoke(address, now);
}

std::optional<lease::Lease> Engine::find(Ipv4 address) const { return state_->table.find(address); }

std::optional<lease::Lease> Engine::find(const ClientKey& client) const {
  return state_->table.find(client);
}

void Engine::for_each_lease(const std::function<void(const lease::Lease&)>& visit) const {
  state_->table.for_each(visit);
}

void Engine::for_each_lease_in(std::size_t from, std::size_t until,
                               const std::function<void(const lease::Lease&)>& visit) const {
  state_->table.for_each_in(from, until, visit);
}

std::size_t Engine::lease_positions() const { return state_->table.positions(); }

std::size_t Engine::lease_records() const { return state_->table.size(); }

const Counters& Engine::counters() const { return state_->counters; }

bool Engine::free_set_agrees(Ipv4 address) const {
  return state_->allocator.files_as(address, state_->table.availability(address));
}

std::vector<PoolUsage> Engine::pool_usage() const {
  std::vector<PoolUsage> usage;
  for (const SubnetView& view : state_->topology.subnets()) {
    const auto counted = state_->allocator.usage(view.id());
    PoolUsage& subnet = usage.emplace_back(PoolUsage{view.id(), counted.total, counted.clean, counted.affinity, {}});
    for (const auto& pool : state_->allocator.pool_usage(view.id())) {
      const config::AdaptivePool* adaptive = adaptive_pool_at(*view.subnet, pool.first);
      subnet.pools.push_back({pool.first, pool.last, pool.usage.total, pool.usage.clean,
                              pool.usage.affinity,
                              adaptive != nullptr && above_threshold(*adaptive, pool.usage, false)});
    }
  }
  return usage;
}

}  // namespace landlord::engine
