// The RFC 2131 server state machine. One entry point per client message type; every lease
// change goes through the Ledger, which keeps the table and the allocator in step.
//
// The pieces, each with one job: the records and their tokens (ledger.hpp: every change goes
// through it), allocation (allocation.hpp), client classes (client_classes.hpp), peers
// (peers.hpp), operators' changes (operator_changes.hpp), reclaim and the store's answers
// (take_back.hpp). This file reads a client's message and decides with them.
#include "landlord/engine/engine.hpp"

#include "adaptive_lease.hpp"
#include "allocation.hpp"
#include "client_classes.hpp"
#include "dns_names.hpp"
#include "lease_classes.hpp"
#include "ledger.hpp"
#include "operator_changes.hpp"
#include "peers.hpp"
#include "renewal_copies.hpp"
#include "reply.hpp"
#include "take_back.hpp"
#include "topology.hpp"

namespace landlord::engine {
namespace {

using lease::Lease;
using lease::LeaseState;
using wire::MessageType;
namespace option = wire::option;

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
  Ledger ledger{config.server.server_id};
  ClientClasses classes{config, ledger};
  Peers peers{config, ledger};
  Allocation allocation{ledger, classes, peers.share()};
  Counters counters;
  RenewalCopies renewal_copies;  // a relay's copies of unicast renewals (renewal_copies.hpp)

  explicit State(const config::Config& initial) : config(initial) {
    ledger.rebuild(topology, config.server.server_id);
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

  // ---- ACK with a lease

  Outcome grant(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                const ClientKey& client, Ipv4 address, lease::Extension extension, EventKind kind,
                std::string_view reason, TimePoint now, bool new_epoch = false) {
    // Granted only inside the subnet's pools (or its reservation); never over another client's
    // offer, lease or decline hold (Ledger::write asserts it: may_change).
    LANDLORD_ASSERT(view.contains(address) && (ledger.allocator().in_pool(view.id(), address) ||
                                               view.reservation_at(address) != nullptr));
    const auto current = ledger.table().facts(address, client);
    const std::optional<TimePoint> held_until = held_lease_end(current, address);
    // A renewal, a rebind or a reboot's confirmation of the client's own lease keeps the normal
    // time; only a new lease is shortened.
    const bool own_lease = current != std::nullopt && current->of_client && current->state == LeaseState::Bound;
    const std::uint64_t member_of = own_lease ? classes.of_held(message, address) : classes.of(message);
    LeaseDurations durations = allocation.durations_for(view, message, member_of);
    if (kind == EventKind::Grant && !own_lease) {
      if (const auto cut = allocation.shortened_for(view, address, durations)) {
        durations = *cut;
        ++counters.shortened_leases;
      }
    }
    Lease lease = allocation.record_for(view, message, client, address, durations, now);
    lease.classes = class_names(config.classes, member_of);
    const config::Reservation* reservation = allocation.own_reservation(view, message, client, address);
    const auto name = dns_name_for(config, *view.subnet, message, reservation);
    if (name) {
      const auto held = own_lease ? ledger.table().find(address) : std::nullopt;
      apply_dns_name(name, held ? &*held : nullptr, lease);
    }
    lease.state = LeaseState::Bound;
    lease.last_extension = extension;
    // A rebind at T2 is a change of serving server (the client's own did not answer its
    // renewals): a new grant epoch. Whatever the server it left still writes with the old token
    // is then refused by the token alone, its late renewals included. The new token is the
    // held one plus one whoever takes it: two servers taking the lease over at once write the
    // same token, and the store lets exactly one of them have it. The same for servers
    // confirming a rebooted client's lease (init_reboot, `new_epoch`).
    const bool epoch = new_epoch || (extension == lease::Extension::Rebinding && own_lease);
    ledger.write(lease, epoch ? Token::NewEpoch : Token::Follows);
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
                   durations, {}, reservation,
                   config.classes, member_of, config.server.classless_default_route};
    spec.name = name ? &*name : nullptr;
    std::vector<Lease> mutations;  // not `{lease}`: an initializer list would copy it twice
    mutations.push_back(std::move(lease));
    Outcome outcome{make_reply(message, ingress, spec), std::move(mutations), {kind, address, reason}};
    // Should the ACK never leave: no longer than an offer, or the lease the client held.
    outcome.unacknowledged_until = now + view.subnet->lease.offer_hold;
    outcome.held_until = held_until;
    return outcome;
  }

  // The end of the bound lease the client already holds on `address` (a renewal, a reboot).
  std::optional<TimePoint> held_lease_end(const std::optional<Ledger::Facts>& current, Ipv4 address) const {
    if (current == std::nullopt || !current->of_client || current->state != LeaseState::Bound) {
      return std::nullopt;
    }
    const auto held = ledger.table().find(address);
    return held ? std::optional<TimePoint>{held->expires_at()} : std::nullopt;
  }

  // ---- message handlers

  Outcome discover(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                   const ClientKey& client, TimePoint now) {
    ++counters.discovers;
    // Neither our bucket nor `secs` past answer-all-after: maybe a client that leaves secs at 0
    // and has been trying that long as far as we saw.
    if (peers.share() && !peers.answers_discover_now(view, message, client, now)) {
      ++counters.left_to_peers;
      return ignore("DISCOVER in a peer's hash buckets (peers.servers)");
    }
    const auto address = allocation.allocate(view, message, client);
    if (!address) {
      ++counters.pool_exhausted;
      return ignore("pool exhausted: no free address in the subnet");
    }
    const auto record = ledger.table().facts(*address, client);
    const bool already_bound =
        record != std::nullopt && record->of_client && record->state == LeaseState::Bound;
    const std::uint64_t member_of = classes.of(message);
    LeaseDurations durations = allocation.durations_for(view, message, member_of);
    if (!already_bound) {  // a bound lease needs no hold: the address is the client's already
      durations = allocation.shortened_for(view, *address, durations).value_or(durations);
      Lease offer = allocation.record_for(view, message, client, *address, durations, now);
      offer.state = LeaseState::Offered;
      ledger.hold(std::move(offer), now + view.subnet->lease.offer_hold);
    }
    ++counters.offers;
    const config::Reservation* reservation = allocation.own_reservation(view, message, client, *address);
    const auto name = dns_name_for(config, *view.subnet, message, reservation);
    ReplySpec spec{MessageType::Offer,  *address, server_id(ingress), view.subnet,
                   durations, {}, reservation,
                   config.classes, member_of, config.server.classless_default_route};
    spec.name = name ? &*name : nullptr;
    // Said in the log: an operator (and bench/failover.sh) can tell a peer's client served for it.
    const std::string_view reason =
        peers.down_peer_of(view, message) ? "offered for its peer, which is down" : "offered";
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
    if (peers.share() && state != RequestState::InitReboot) peers.stopped_waiting(client);
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
      if (const auto own = ledger.table().facts(client);
          own != std::nullopt && own->state == LeaseState::Offered) {
        const Ipv4 released = own->address;
        ledger.end_hold(released);
        return ignore("client selected another server; offer withdrawn", released);
      }
      return ignore("client selected another server");
    }
    if (!requested) return nak(message, ingress, {}, "SELECTING request without option 50");
    if (!allocation.can_grant(view, message, client, *requested)) {
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
    if (peers.share() && !peers.answers_reboot(view, message, client, requested, now, counters)) {
      return ignore("INIT-REBOOT left to the peer that holds the lease or owns the client (peers.servers)",
                    requested);
    }
    const bool authoritative = config.server.authoritative;
    const auto record = ledger.table().facts(requested, client);
    const bool own_record = record != std::nullopt && record->of_client;
    const bool known_client = ledger.table().facts(client).has_value();
    if (allocation.can_grant(view, message, client, requested)) {
      if (own_record || authoritative) {
        const bool held = own_record && record->state == LeaseState::Bound &&
                          record->subnet_id == view.id();
        Outcome outcome = grant(view, message, ingress, client, requested, lease::Extension::None,
                                EventKind::Grant,
                                own_record ? "confirmed after reboot" : "granted on reboot", now,
                                /*new_epoch=*/peers.shared_store());
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

  // §4.3.2 RENEWING (unicast, T1) and REBINDING (broadcast, T2): extend the client's lease on
  // ciaddr. Someone else's address: NAK. An address we have no lease for: a RENEWING client
  // unicast to us, so NAK it; a REBINDING one may hold it from another server, so only an
  // authoritative server answers (granting it when free, else NAK).
  Outcome extend(const SubnetView& view, const wire::Message& message, const Ingress& ingress,
                 const ClientKey& client, lease::Extension extension, TimePoint now) {
    const Ipv4 address = message.ciaddr;
    const auto record = ledger.table().facts(address, client);
    const bool renewing = extension == lease::Extension::Renewing;
    const EventKind kind = renewing ? EventKind::Renew : EventKind::Rebind;
    if (record != std::nullopt && record->of_client) {
      if (record->state == LeaseState::Released) {  // given back, or revoked by an operator
        return nak(message, ingress, address, "lease was released or revoked");
      }
      if (!allocation.can_grant(view, message, client, address)) {
        return nak(message, ingress, address, "lease is no longer valid on this link");
      }
      return grant(view, message, ingress, client, address, extension, kind,
                   renewing ? "renewed" : "rebound", now);
    }
    if (record != std::nullopt && record->has_client) {
      return nak(message, ingress, address, "address is leased to another client");
    }
    if (config.server.authoritative && allocation.can_grant(view, message, client, address)) {
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
    const std::optional<Lease> record = ledger.table().find(*address);
    if (record == std::nullopt || record->client != message.client_key() ||
        !(record->state == LeaseState::Offered || record->state == LeaseState::Bound)) {
      return ignore("DECLINE for an address not offered to or held by this client", *address);
    }
    Lease declined = *record;
    // Declining an offer makes the decliner the address's holder of record: when that is a
    // change of holder, the record takes a new token (the store accepts an equal token only
    // from the same client).
    declined.state = LeaseState::Declined;
    name_to_remove(declined);
    declined.last_extension = lease::Extension::None;
    declined.granted_at = now;
    declined.lease_time = view.subnet->lease.decline_hold;
    declined.renew_time = Duration{0};
    declined.rebind_time = Duration{0};
    ledger.write(declined, Token::Follows);
    ++counters.declines;
    return {std::nullopt, {declined}, {EventKind::Decline, *address, "declined: address in use"}};
  }

  // Offer-ping found the offered address in use: like a DECLINE, but nobody here declined it,
  // so the record names no client (the end of the hold then leaves the address to nobody).
  Outcome conflict(Ipv4 address, TimePoint now) {
    const std::optional<Lease> offer = ledger.table().find(address);
    const SubnetView* view = topology.containing(address);
    if (offer == std::nullopt || offer->state != LeaseState::Offered || view == nullptr) {
      return ignore("offer-ping conflict for an address not on offer", address);
    }
    ledger.end_hold(address);
    Lease declined;
    declined.address = address;
    declined.subnet_id = offer->subnet_id;
    declined.state = LeaseState::Declined;
    declined.granted_at = now;
    declined.lease_time = view->subnet->lease.decline_hold;
    ledger.write(declined, Token::Follows);
    ++counters.conflicts;
    return {std::nullopt, {declined}, {EventKind::Decline, address, "in use (answered the offer-ping), not offered"}};
  }

  // §4.3.4: the client gives its address back. The record stays (Released) for affinity.
  Outcome release(const wire::Message& message, const Ingress& ingress, TimePoint now) {
    if (names_another_server(message, ingress)) return ignore("RELEASE for another server");
    const std::optional<Lease> record = ledger.table().find(message.ciaddr);
    if (record == std::nullopt || record->client != message.client_key() ||
        record->state != LeaseState::Bound) {
      return ignore("RELEASE for an address not bound to this client", message.ciaddr);
    }
    Lease released = released_at(*record, now);
    ledger.write(released, Token::Kept);
    ++counters.releases;
    return {std::nullopt, {released}, {EventKind::Release, released.address, "released"}};
  }

  // §4.3.5: configuration only. No lease, no lease times, yiaddr 0, the ACK goes to ciaddr.
  Outcome inform(const SubnetView& view, const wire::Message& message, const Ingress& ingress) {
    ++counters.informs;
    const ClientKey client = message.client_key();
    ReplySpec spec{MessageType::Ack, {}, server_id(ingress), view.subnet, std::nullopt, {},
                   allocation.own_reservation(view, message, client, message.ciaddr), config.classes,
                   classes.of(message, message.ciaddr, client), config.server.classless_default_route};
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
      const auto record = ledger.table().facts(address, client);
      return record != std::nullopt && record->of_client &&
             (record->state == LeaseState::Offered || record->state == LeaseState::Bound);
    };
    if (*type == MessageType::Discover) {
      const auto own = ledger.table().facts(client);
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

  void restore(Lease record) {
    // Holds are never persisted; 0.0.0.0 is no lease at all.
    if (record.state == LeaseState::Offered || record.address.is_zero()) return;
    if (const auto existing = ledger.table().facts(record.address, record.client);
        existing != std::nullopt && existing->fencing_token > record.fencing_token) {
      return;  // a newer record for this address is already in: tokens never go backwards
    }
    ledger.learn(std::move(record));
  }

  bool observe(Lease record) {
    if (record.state == LeaseState::Offered || record.address.is_zero()) return false;
    const std::optional<Lease> current = ledger.table().find(record.address);
    const std::optional<Lease> known = current != std::nullopt && current->state == LeaseState::Offered
                                           ? ledger.table().covered(record.address)
                                           : current;
    if (known != std::nullopt) {
      if (known->fencing_token > record.fencing_token) return false;  // ours, not yet stored
      if (known->fencing_token == record.fencing_token && known->client == record.client) {
        if (known->granted_at > record.granted_at) return false;  // our extension, not yet stored
        if (known->state == record.state && known->granted_at == record.granted_at &&
            known->lease_time == record.lease_time) {
          ledger.note_writer(record);  // which server's the token is may still be news
          return false;  // what we already believe (our own write, read back)
        }
      }
    }
    ledger.learn(std::move(record));  // ends an offer hold on the address too
    ++counters.learned;
    return true;
  }

  void reconfigure(const config::Config& next) {
    config = next;
    topology = Topology{config};
    peers.reconfigure();
    ledger.rebuild(topology, config.server.server_id);
  }
};

Engine::Engine(const config::Config& config) : state_(std::make_unique<State>(config)) {}
Engine::~Engine() = default;

void Engine::restore(lease::Lease record) { state_->restore(std::move(record)); }

bool Engine::observe(lease::Lease record) { return state_->observe(std::move(record)); }

std::vector<Ipv4> Engine::peers_up(std::span<const Ipv4> up) { return state_->peers.up(up); }

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
  return engine::refused(state_->ledger, state_->topology, state_->counters, record, now);
}

bool Engine::unacknowledged(const lease::Lease& granted, const lease::Lease& shortened) {
  return engine::unacknowledged(state_->ledger, granted, shortened);
}

Outcome Engine::conflict(Ipv4 address, TimePoint now) { return state_->conflict(address, now); }

std::vector<lease::Lease> Engine::reclaim(TimePoint now, std::size_t max_records) {
  return engine::reclaim(state_->ledger, state_->counters, now, max_records);
}

std::optional<TimePoint> Engine::next_deadline() const { return state_->ledger.table().next_deadline(); }

void Engine::reconfigure(const config::Config& config) { state_->reconfigure(config); }

AdminResult Engine::admin_grant(const AdminLease& lease, bool update, TimePoint now) {
  return engine::admin_grant(state_->ledger, state_->topology, lease, update, now);
}

Outcome Engine::dns_settled(Ipv4 address, std::string_view fqdn, bool added, lease::DnsState result) {
  return engine::dns_settled(state_->ledger, address, fqdn, added, result);
}

AdminResult Engine::admin_revoke(Ipv4 address, TimePoint now) {
  return engine::admin_revoke(state_->ledger, address, now);
}

std::optional<lease::Lease> Engine::find(Ipv4 address) const { return state_->ledger.table().find(address); }

std::optional<lease::Lease> Engine::find(const ClientKey& client) const {
  return state_->ledger.table().find(client);
}

void Engine::for_each_lease(const std::function<void(const lease::Lease&)>& visit) const {
  state_->ledger.table().for_each(visit);
}

void Engine::for_each_lease_in(std::size_t from, std::size_t until,
                               const std::function<void(const lease::Lease&)>& visit) const {
  state_->ledger.table().for_each_in(from, until, visit);
}

std::size_t Engine::lease_positions() const { return state_->ledger.table().positions(); }

std::size_t Engine::lease_records() const { return state_->ledger.table().size(); }

const Counters& Engine::counters() const { return state_->counters; }

bool Engine::free_set_agrees(Ipv4 address) const {
  return state_->ledger.allocator().files_as(address, state_->ledger.table().availability(address));
}

std::vector<PoolUsage> Engine::pool_usage() const {
  std::vector<PoolUsage> usage;
  for (const SubnetView& view : state_->topology.subnets()) {
    const auto counted = state_->ledger.allocator().usage(view.id());
    PoolUsage& subnet = usage.emplace_back(PoolUsage{view.id(), counted.total, counted.clean, counted.affinity, {}});
    for (const auto& pool : state_->ledger.allocator().pool_usage(view.id())) {
      const config::AdaptivePool* adaptive = adaptive_pool_at(*view.subnet, pool.first);
      subnet.pools.push_back({pool.first, pool.last, pool.usage.total, pool.usage.clean,
                              pool.usage.affinity,
                              adaptive != nullptr && above_threshold(*adaptive, pool.usage, false)});
    }
  }
  return usage;
}

}  // namespace landlord::engine
