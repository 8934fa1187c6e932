#pragma once
// The protocol core (RFC 2131 server side), sans I/O: a message, where it came from and the
// time go in; a decision comes out. No sockets, no clock, no threads, no disk.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/config/config.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

inline constexpr std::uint16_t kServerPort = 67;
inline constexpr std::uint16_t kClientPort = 68;
// A relayed REQUEST with the xid and ciaddr of a unicast renewal of the same client answered
// less than this ago is that renewal's copy (a relay that also forwards unicast: ISC dhcrelay),
// dropped and counted in Counters::duplicates. Copies arrive within milliseconds; a client
// retransmits seconds later.
inline constexpr Duration kRenewalCopyWindow = std::chrono::seconds{1};

// Where a datagram arrived.
struct Ingress {
  std::uint32_t interface_index = 0;
  std::string_view interface_name;
  Ipv4 interface_address;      // our address on that link: default server-id, selects the subnet
  Ipv4 source_address;
  std::uint16_t source_port = kClientPort;
  bool to_broadcast = false;   // sent to a broadcast address (REBINDING), else unicast to us (RENEWING)
};

// RFC 2131 §4.1 reply routing, decided by the engine, carried out by server/.
enum class Route : std::uint8_t {
  Relay,           // giaddr != 0: to giaddr at the server port, or the RFC 8357 relay port
  Ciaddr,          // ciaddr != 0: unicast to ciaddr:68
  Broadcast,       // broadcast bit set, or a NAK without giaddr: 255.255.255.255:68 on the ingress link
  DirectToClient,  // no address yet, no broadcast bit: unicast to yiaddr at chaddr (needs ARP or L2)
};
std::string_view to_string(Route route);

struct Reply {
  wire::Message message;
  Route route = Route::Broadcast;
  Ipv4 destination;         // giaddr, ciaddr, 255.255.255.255 or yiaddr
  std::uint16_t port = kClientPort;
  // The largest DHCP message (UDP payload) to build: option 57 clamped to [576, 1500] is the
  // datagram the client accepts (RFC 2131 §2, RFC 2132 §9.10), less 28 bytes of IP and UDP
  // headers, as wire::reply_size_limit() reads it. 548 without option 57; never over a
  // 1500-byte MTU.
  std::uint16_t max_size = wire::kDefaultMaxMessageSize - 28;
};

enum class EventKind : std::uint8_t {
  Offer, Grant, Renew, Rebind, Release, Decline, Expire, Nak, Inform, Ignore,
  Admin,  // an operator's change through the control API
  Dns,    // the daemon's DNS updater settled a lease's name (Engine::dns_settled)
};
std::string_view to_string(EventKind kind);

// What happened, for the log line and counters. `reason` is a static string.
struct Event {
  EventKind kind = EventKind::Ignore;
  Ipv4 address;
  std::string_view reason;
};

struct Outcome {
  std::optional<Reply> reply;
  // Records that must be durable before `reply` leaves (empty for OFFER, NAK, INFORM, drops).
  std::vector<lease::Lease> mutations;
  Event event;
  // A grant's: if its ACK never leaves (the store failed), its record may keep the address
  // only as long as an offer would (`unacknowledged_until`, now + offer-hold), or until the
  // bound lease the client held before it ends (`held_until`), whichever is later
  // (durability::Machine shortens the record; Engine::unacknowledged).
  std::optional<TimePoint> unacknowledged_until = std::nullopt;
  std::optional<TimePoint> held_until = std::nullopt;
  // An INIT-REBOOT's ACK that confirms the client's own bound lease: the address it asked for
  // is its lease, bound, in the subnet the request came from (its link). While the store
  // fails, such a reply may be answered from the durable lease (durability::Machine), as a
  // renewal's is; any other reboot's may not.
  bool reboot_of_held = false;
  // Offer-ping (config::Subnet::offer_ping), OFFERs only: the OFFER may leave once nothing
  // answered an ICMP echo to its address for this long; if something does, the caller reports
  // it to Engine::conflict() and asks again.
  std::optional<Duration> probe_first{};
};

// One pool (address range) of a subnet: its addresses by class, and whether its adaptive lease
// time is in force (config::AdaptivePool: new grants get the shorter lease).
struct RangeUsage {
  Ipv4 first, last;
  std::uint64_t total = 0, free_clean = 0, free_affinity = 0;
  bool lease_shortened = false;
};

// One subnet's pool addresses by class (lease/allocator.hpp): for /metrics and the control API.
struct PoolUsage {
  std::uint32_t subnet_id = 0;
  std::uint64_t total = 0;          // pool addresses, reserved ones included
  std::uint64_t free_clean = 0;     // never used, or nobody's any more
  std::uint64_t free_affinity = 0;  // free, but remembered as an expired or released client's
  std::vector<RangeUsage> pools;    // the same per pool, in config order
};

// An operator's lease (control API: lease4-add, lease4-update).
struct AdminLease {
  Ipv4 address;
  HardwareAddress hardware;             // one of hardware and client_id names the client
  ClientId client_id;
  std::string hostname;
  // Kea's fqdn-fwd / fqdn-rev: `hostname` (a DNS name) has these records in DNS already; the
  // lease takes them over (state done), so they are removed when it ends. None given: an
  // update keeps the lease's name in DNS.
  std::optional<lease::DnsSides> dns_sides;
  std::uint32_t subnet_id = 0;          // 0: the subnet that contains `address`
  std::optional<Duration> lease_time;   // default: the subnet's; T1/T2 scale with it
};

// Why an operator's change was refused; nothing changed.
struct AdminRefusal {
  enum class Kind : std::uint8_t { Invalid, NotFound, Conflict };
  Kind kind = Kind::Invalid;
  std::string reason;
};
using AdminResult = Expected<Outcome, AdminRefusal>;  // an Outcome without a reply

struct Counters {
  std::uint64_t discovers = 0, offers = 0, requests = 0, grants = 0, renewals = 0, rebinds = 0,
                naks = 0, declines = 0, releases = 0, informs = 0, expirations = 0,
                ignored = 0, pool_exhausted = 0,
                fenced = 0,   // records the store refused for a stale token (refused())
                learned = 0,  // records from a shared store's feed that changed memory (observe())
                shortened_leases = 0,  // new leases granted a pool's shorter adaptive lease time
                conflicts = 0,         // offered addresses found in use by offer-ping
                duplicates = 0,        // relayed copies of a renewal just answered, dropped (not rebinds)
                left_to_peers = 0,     // DISCOVERs in a peer's hash buckets, not answered (peers)
                // INIT-REBOOTs not answered (peers): the lease is another server's token, or this
                // server knows no lease of the client there and the client is another peer's.
                reboots_left_to_holder = 0, reboots_left_to_owner = 0;
};

// What admission control (engine/admission.hpp) asks before handle(): the subnet a request would
// be served from (0: none) and whether it could give its client an address it does not hold
// yet (a new OFFER, a grant of an address not offered to it). A holder's renewals, rebinds and
// reboots, and a REQUEST for the address it was offered, are never new.
struct RequestFacts {
  std::uint32_t subnet_id = 0;
  bool new_address = false;
  // Whether request_facts() chose the subnet (a DISCOVER or REQUEST): handle() given these facts
  // then serves it from that subnet, or ignores it for `no_subnet` (static), without choosing
  // again.
  bool chosen = false;
  std::string_view no_subnet;
  // The client's identity (RFC 2131 §4.2), once a subnet is chosen: handle() given these facts
  // uses it rather than building it from the message again.
  ClientKey client;
};

// Decisions a caller can rely on (the allocation order itself is documented in
// src/engine/allocation.hpp, the fencing rules in src/engine/ledger.hpp):
// - Only an ACK, DECLINE, RELEASE or reclaim() produces mutations; an OFFER is an in-memory
//   hold, a NAK and an INFORM change nothing.
// - INIT-REBOOT for a lease we do not know: silence unless server.authoritative; then, like Kea
//   and dhcpd, an ACK when the address is free in the client's subnet and a NAK otherwise.
//   RENEWING for an unknown address: NAK (ACK when authoritative and the address is free).
//   REBINDING for an unknown address: silence unless authoritative (RFC 2131 §4.3.2: another
//   server may hold it).
// - A lease keeps its absolute expiry across restore(); one already past it is expired, and
//   counted, by the first reclaim().
// - Fencing tokens: +1 whenever a persisted record names a different client than the last one
//   for its address (a grant to someone new, a decline of an offer, the end of a decline hold),
//   and when a REBINDING client's lease is extended (T2: a new server, a new grant epoch, which
//   fences the old one's writes); kept on renewal, expiry, release, a returning client; never
//   lower after restore(). So every mutation passes the store's rule (higher, or same + client).
class Engine {
 public:
  explicit Engine(const config::Config& config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Rebuilds memory from a stored record at start-up (any state); call before handle().
  void restore(lease::Lease record);

  Outcome handle(const wire::Message& message, const Ingress& ingress, TimePoint now);
  RequestFacts request_facts(const wire::Message& message, const Ingress& ingress) const;
  // handle() for the message request_facts() was just asked about, with nothing handled in
  // between: the subnet is not chosen a second time.
  Outcome handle(const wire::Message& message, const Ingress& ingress, TimePoint now,
                 const RequestFacts& facts);

  // A record committed to a shared store (by another server, or read back from this one), from
  // the store's change feed. The stored row is what stands, so it replaces what this engine
  // believes about the address (an offer hold on it included), unless this engine has a newer
  // write of its own still on its way to the store: a higher token, or the same grant with a
  // later start. A stale view so costs a refused write and a retry, never a double grant: the
  // store arbitrates (docs/lease-store.md). Returns whether the engine changed.
  bool observe(lease::Lease record);

  // Peers (config.peers): which of them are up, as the shared store sees it (their sessions,
  // docs/lease-store.md "Who is up, by the database"); this server's own entry is ignored. A
  // DISCOVER of a peer that is down is answered at once, as if its `secs` had reached
  // answer-all-after, and so is one for a subnet whose primary is down. Until told otherwise
  // every peer is taken to be up. Returns the server-ids whose state changed.
  std::vector<Ipv4> peers_up(std::span<const Ipv4> up);

  // The store refused `record` (a mutation this engine produced) for a stale fencing token:
  // another server holds the address now. Unless a later change of the address superseded
  // the record, the engine stops believing it: the client keeps no claim, and the address is
  // held for nobody, in memory only, until the refused lease would have ended (at least one
  // lease time from `now`), then left free with the refused record's token, which never goes
  // down. Nothing of this is written: a write would only be refused again. Returns whether
  // the engine changed.
  bool refused(const lease::Lease& record, TimePoint now);

  // `granted` (a grant's record) was not acknowledged and stands as `shortened`, the same lease
  // ending sooner (Outcome::unacknowledged_until). Unless a later change of the address
  // superseded `granted`, the engine takes `shortened`: the address is free again when it ends,
  // unless the client asks again. Returns whether the engine changed.
  bool unacknowledged(const lease::Lease& granted, const lease::Lease& shortened);
  // Offer-ping found `address`, offered a moment ago, in use by a host that never asked us for
  // it. The offer is withdrawn and the address declined for nobody for the subnet's
  // decline_hold, as a DHCPDECLINE would (the record must be persisted like one). Handling the
  // same DISCOVER again then offers the next free address. Ignored (no mutation) unless the
  // address is held by an offer.
  Outcome conflict(Ipv4 address, TimePoint now);

  // Expires bound leases past their expiry, ends offer holds and decline holds: at most
  // `max_records` per call so a backlog never stalls the loop. Returns records to persist.
  std::vector<lease::Lease> reclaim(TimePoint now, std::size_t max_records);
  // The next time reclaim() has work; nullopt when nothing is pending.
  std::optional<TimePoint> next_deadline() const;

  // SIGHUP: new pools and options; leases are kept (one outside every new pool stays until it ends).
  void reconfigure(const config::Config& config);

  // Operators' changes, held to the invariants a DHCP request is: the address in a pool of its
  // subnet (or reserved for this client), not held by another client, one lease per client
  // per subnet; fencing tokens as for a grant. The mutations must be committed like an ACK's.
  // `update`: the client must already have a record for the address (lease4-update).
  AdminResult admin_grant(const AdminLease& lease, bool update, TimePoint now);
  // Ends the bound lease on `address` now (the record stays, Released, so the client's next
  // renewal is NAKed), or ends a decline hold (the address is nobody's again).
  AdminResult admin_revoke(Ipv4 address, TimePoint now);

  // The daemon's DNS updater settled the records of `fqdn` for `address` (added, or removed):
  // the record's dns_state becomes `result` if the work is still its own; the mutation, if
  // any, must be committed like any other (docs/ddns.md).
  Outcome dns_settled(Ipv4 address, std::string_view fqdn, bool added, lease::DnsState result);

  // Read side (control API, tests, recovery checks): copies, built from the compact table.
  std::optional<lease::Lease> find(Ipv4 address) const;
  std::optional<lease::Lease> find(const ClientKey& client) const;
  void for_each_lease(const std::function<void(const lease::Lease&)>& visit) const;
  // for_each_lease in pieces, for a scan that yields between them (control/table_scan.hpp): the
  // records at table positions [from, until), where lease_positions() is the end.
  void for_each_lease_in(std::size_t from, std::size_t until,
                         const std::function<void(const lease::Lease&)>& visit) const;
  std::size_t lease_positions() const;
  std::size_t lease_records() const;  // records in the table, O(1)
  const Counters& counters() const;
  std::vector<PoolUsage> pool_usage() const;  // one entry per configured subnet, in config order
  // Whether the allocator's free set files `address` where its record puts it: a debug check
  // (the simulation runs it after every step on the addresses the step touched).
  bool free_set_agrees(Ipv4 address) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace landlord::engine
