#pragma once
// The lease record shared by engine, store and control. Store facts, derive deadlines:
// a lease holds when it was last granted or extended and for how long; expiry is computed.
#include <cstdint>
#include <string>
#include <string_view>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"

namespace landlord::lease {

// Persisted states. The phase of a bound lease (before T1, past T1, past T2) is derived from
// time; `Offered` lives only in memory (offers are holds, never written).
enum class LeaseState : std::uint8_t { Offered, Bound, Released, Expired, Declined };
std::string_view to_string(LeaseState state);

// How the lease was last extended (RFC 2131 §4.3.2): RENEWING is unicast to us with ciaddr;
// REBINDING is broadcast (or relayed) with ciaddr.
enum class Extension : std::uint8_t { None, Renewing, Rebinding };
std::string_view to_string(Extension extension);

enum class Phase : std::uint8_t { Bound, PastT1, PastT2, Expired };
std::string_view to_string(Phase phase);

// The DNS records the server keeps for a lease (Kea's fqdn-fwd / fqdn-rev): forward is A and
// DHCID at the lease's fqdn, reverse is PTR and DHCID in the address's reverse zone.
struct DnsSides {
  bool forward = false;
  bool reverse = false;
  bool any() const { return forward || reverse; }
  bool operator==(const DnsSides&) const = default;
};

// Whether DNS holds what the lease's state implies (its records while Bound, none once
// Released, Expired or Declined): Done once confirmed, Pending until then. Stored with the
// lease, so the work left after a restart is read from the store, not from a queue.
enum class DnsState : std::uint8_t { None, Pending, Done, Conflict, Failed };
std::string_view to_string(DnsState state);  // "none", "pending", "done", "conflict", "failed"

// Every grant of an address to a new holder increments that address's token; extensions keep
// it. The store refuses a write whose token is older than the one it holds.
using FencingToken = std::uint64_t;

struct Lease {
  Ipv4 address;
  ClientKey client;            // identity the lease is bound to (RFC 2131 §4.2)
  HardwareAddress hardware;    // chaddr, for operators and direct replies
  ClientId client_id;          // option 61 as sent; empty when absent
  std::string hostname;        // option 12, if the client sent one
  // The client classes the lease was granted under: configured class names (letters, digits,
  // '-', '_'), comma-separated, in config order; empty for none. A renewal that lacks the facts
  // a class matched on (option 82 of a unicast renewal) keeps them (engine/lease_classes.hpp).
  std::string classes;
  // The name the server puts in DNS for this lease: lowercase, no trailing dot, at most 253
  // bytes; empty for none. Kept apart from `hostname` (what the client sent), so the records
  // can be removed by the name they were added under.
  std::string fqdn;
  DnsSides dns_sides;                  // which records the server maintains for `fqdn`
  DnsState dns_state = DnsState::None;
  // Option 82 as received with the grant (its sub-options' bytes, at most 255); empty for none.
  // Leasequery answers with it and bulk leasequery finds leases by its remote-id / relay-id.
  std::string relay_agent_info;
  LeaseState state = LeaseState::Offered;
  Extension last_extension = Extension::None;
  std::uint32_t subnet_id = 0;
  TimePoint granted_at;        // when the client's current lease period began (grant or extension)
  Duration lease_time{0};      // option 51 as sent; for Declined, the decline hold
  Duration renew_time{0};      // T1 as sent (option 58)
  Duration rebind_time{0};     // T2 as sent (option 59)
  FencingToken fencing_token = 0;
  // The server-id of the server that wrote the record, as a shared store (PostgreSQL) reports
  // it; 0.0.0.0 when unknown (other stores, a server without a server-id, the engine's own
  // records). A token is one writer's: the store refuses a bound record with an equal token
  // from another server, so a server extending a lease another wrote takes the next token.
  Ipv4 writer;

  TimePoint expires_at() const { return granted_at + lease_time; }
  Phase phase(TimePoint now) const {
    if (now >= expires_at()) return Phase::Expired;
    if (now >= granted_at + rebind_time) return Phase::PastT2;
    if (now >= granted_at + renew_time) return Phase::PastT1;
    return Phase::Bound;
  }
};

}  // namespace landlord::lease
