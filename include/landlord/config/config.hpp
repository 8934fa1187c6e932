#pragma once
// The validated, immutable configuration. Loading (YAML, yaml-cpp) lives apart in
// config/loader.hpp so that the core never links yaml-cpp.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/ddns/settings.hpp"

namespace landlord::config {

// T1/T2: a fraction of the lease time ("50%") or a fixed duration ("30m").
struct Fraction {
  double value = 0;  // 0 < value < 1
  bool operator==(const Fraction&) const = default;
};
using RenewalTime = std::variant<Fraction, Duration>;

struct LeaseTimes {
  Duration time = std::chrono::hours{1};
  RenewalTime renew = Fraction{0.5};
  RenewalTime rebind = Fraction{0.875};
  Duration offer_hold = std::chrono::seconds{30};
  Duration decline_hold = std::chrono::minutes{10};
  // The range a lease time a client asks for (option 51) is granted within; unset: `time`, so
  // without them a client's request changes nothing. min <= time <= max.
  std::optional<Duration> min, max;

  Duration shortest() const { return min.value_or(time); }
  Duration longest() const { return max.value_or(time); }
  // The lease time granted to a client that asks for `requested` (option 51), else `time`.
  Duration granted(std::optional<Duration> requested) const;

  Duration renew_duration() const;   // T1 for `time`
  Duration rebind_duration() const;  // T2 for `time`
  // T1 and T2 for another granted lease time: a percentage follows it, a duration stays.
  Duration renew_duration(Duration lease_time) const;
  Duration rebind_duration(Duration lease_time) const;
};

struct AddressRange {
  Ipv4 first, last;  // inclusive
  std::uint64_t size() const { return std::uint64_t{last.to_uint()} - first.to_uint() + 1; }
  bool contains(Ipv4 address) const { return first <= address && address <= last; }
};

// An option value already encoded for the wire, in the order the config gave it.
struct OptionValue {
  std::uint8_t code = 0;
  std::vector<std::uint8_t> value;
  bool operator==(const OptionValue&) const = default;
};

// The BOOTP header fields a network boot reads (RFC 2131 §2: siaddr, file, sname), for boot
// ROMs that read no options 66/67. Set under `options:` as next-server, boot-file and
// server-hostname; unset fields are zero in the reply.
struct BootFields {
  std::optional<Ipv4> next_server;
  std::optional<std::string> boot_file;        // at most 127 bytes: `file` keeps a NUL
  std::optional<std::string> server_hostname;  // at most 63 bytes: `sname` keeps a NUL
  bool empty() const { return !next_server && !boot_file && !server_hostname; }
  bool operator==(const BootFields&) const = default;
};

struct Reservation {
  std::optional<HardwareAddress> mac;
  std::optional<ClientId> client_id;
  Ipv4 address;
  std::string hostname;                // sent as option 12 unless `options` set host-name
  std::vector<OptionValue> options = {};  // the most specific scope: over classes, pool, subnet
  BootFields boot = {};
  // Relay agent information (option 82, RFC 3046) sub-options 1 and 2, as an ISP keys a
  // subscriber by the port or line it is on; empty: not keyed so. One key per reservation.
  std::vector<std::uint8_t> circuit_id{}, remote_id{};
};

// How a client is recognised as a member of a class: every condition given must hold.
struct ClassMatch {
  std::optional<std::string> vendor_class_prefix;   // option 60 starts with it
  std::optional<std::string> user_class;            // option 77 is it, or holds it (RFC 3004)
  std::vector<std::uint16_t> client_architectures;  // option 93 (RFC 4578) holds one of them
  std::optional<std::vector<std::uint8_t>> circuit_id;  // option 82 sub-option 1 is it
  std::optional<std::vector<std::uint8_t>> remote_id;   // option 82 sub-option 2 is it
  std::optional<std::vector<std::uint8_t>> hardware_prefix;  // chaddr starts with it
  std::optional<Cidr> giaddr;                       // the relay's giaddr is inside it
};

// A client class (`classes:`): selects pools, options and lease times for its members.
struct ClientClass {
  std::string name;
  ClassMatch match;
  std::vector<OptionValue> options;  // between reservation and pool in precedence
  BootFields boot = {};
  std::optional<LeaseTimes> lease;   // the top-level lease with the class's keys applied
};
inline constexpr std::size_t kMaxClasses = 64;  // membership is one 64-bit set per message

// A pool that sets its own options or serves only some classes.
struct PoolScope {
  AddressRange range;
  std::vector<OptionValue> options;  // win over the subnet's for addresses in `range`
  BootFields boot = {};
  std::uint64_t classes = 0;  // bit i: config.classes[i] may use the pool; 0: every client
};

// A pool with an adaptive lease time (`lease: {shrink-above: 90%, to: 5m}`): while more than
// `shrink_above` of its addresses are in use, new leases get `shortened_to`.
struct AdaptivePool {
  AddressRange range;
  double shrink_above = 0.9;  // 0 < value < 1
  Duration shortened_to{0};
};

// A token bucket: `rate` tokens a second, at most `burst` saved up; rate 0: no limit.
struct TokenRate {
  double rate = 0;
  std::uint32_t burst = 0;
  bool limits() const { return rate > 0; }
  bool operator==(const TokenRate&) const = default;
};

// Pool starvation defences (`admission:` of a subnet; engine/admission.hpp). Only a request
// that would give its client an address it does not hold yet (a new OFFER, a grant of an
// address not offered to it) is charged or capped: a holder's renewals, rebinds and reboots
// never are. A limit of 0 is no limit.
struct Admission {
  bool verify_chaddr = true;  // a direct broadcast whose frame source is not chaddr is dropped
  TokenRate client{1, 5};     // per client hardware address (chaddr)
  TokenRate relay{};          // per relay (giaddr), or per link for directly attached clients
  TokenRate circuit{};        // per relay agent circuit-id (option 82.1) behind one giaddr
  std::uint32_t circuit_leases = 0;     // bound leases per circuit-id
  std::uint32_t remote_leases = 0;      // bound leases per remote-id (option 82.2)
  std::uint32_t relay_leases = 0;       // bound leases per relay, or per link when direct
  std::uint32_t mac_prefix_length = 3;  // bytes of chaddr that make a prefix (an OUI)
  std::uint32_t mac_prefix_leases = 0;  // bound leases per chaddr prefix
  std::uint32_t source_offers = 8;      // outstanding OFFERs per source (see admission.hpp)
  std::uint32_t source_leases = 0;      // addresses per source on a direct link
  bool operator==(const Admission&) const = default;
};

struct Subnet {
  std::uint32_t id = 0;  // 1-based, position in the file; stable while the file keeps its order
  Cidr subnet;
  std::vector<AddressRange> pools;
  std::vector<Ipv4> relays;          // giaddr values selecting this subnet besides one inside it
  std::vector<OptionValue> options;  // routers, dns-servers, domain-name, ... (subnet mask is implied)
  BootFields boot;                   // the global ones with this subnet's overrides applied
  std::vector<PoolScope> pool_scopes;  // the pools (of `pools`) that set options, in file order
  LeaseTimes lease;                  // the global defaults with this subnet's overrides applied
  std::vector<Reservation> reservations;
  std::vector<std::string> interfaces;  // optional: interfaces whose directly attached clients use it
  std::vector<AdaptivePool> adaptive_pools;  // the pools of `pools` with an adaptive lease time
  std::optional<Duration> offer_ping;        // ICMP echo wait before an OFFER; none: no check
  // peers: the server-id that answers this subnet's new clients instead of the RFC 3074 split
  // (the others only once a client has tried for peers.answer_all_after); none: the split.
  std::optional<Ipv4> primary;
  Admission admission;                       // pool starvation defences
  // Names of this subnet's clients go to DNS (`ddns: {enabled: false}` turns it off); only
  // with a top-level `ddns:` section.
  bool ddns = true;
};

struct Endpoint {
  Ipv4 address;  // 0.0.0.0 = any
  std::uint16_t port = 67;
};

struct ServerSection {
  std::vector<std::string> interfaces;
  Endpoint listen;
  std::optional<Ipv4> server_id;  // default: the address of the ingress interface
  bool authoritative = true;      // NAK INIT-REBOOT requests for addresses wrong for the link
  std::optional<std::string> user;  // started as root: become this user after binding sockets
  // A DISCOVER that waited longer than this in the receive queue is dropped before any work:
  // the server is behind, and its client retransmits. 0: never.
  Duration discover_max_wait = std::chrono::seconds{1};
  // A reply with classless static routes (121, 249) but no 0.0.0.0/0 among them gets the
  // default route via its first router (option 3), which RFC 3442 clients otherwise ignore.
  bool classless_default_route = true;
};

struct StoreSection {
  enum class Type : std::uint8_t { Sqlite, Memory, Postgresql };
  Type type = Type::Sqlite;
  std::string path = "/var/lib/landlord/leases.db";
  std::string url;  // postgresql: the libpq connection URI (required for that type only)
  // postgresql: every commit NOTIFYs the other servers, and each server LISTENs and reads the
  // others' changes as soon as one is notified (besides polling every sync interval). Off by
  // default: under load it costs the database a wake-up per commit per server (lease-store.md).
  bool sync_notify = false;
  // postgresql: how often each server polls the shared store for the others' changes; unset:
  // kSyncIntervalNotify with sync_notify (the poll is then only the fallback), else kSyncInterval.
  std::optional<Duration> sync_interval{};
  static constexpr Duration kSyncInterval = std::chrono::milliseconds{100};
  static constexpr Duration kSyncIntervalNotify = std::chrono::seconds{1};
  Duration poll_interval() const {
    return sync_interval.value_or(sync_notify ? kSyncIntervalNotify : kSyncInterval);
  }
  // postgresql: the most this server's clock may differ from the database's (checked at start and
  // every kClockCheckInterval); above it the server answers nobody until they agree again.
  Duration max_clock_skew = std::chrono::seconds{1};
  // postgresql: the longest a commit, a load or a poll waits for the database (and opening a
  // connection); past it the call fails and the connection is dropped. A timed-out commit is not
  // acknowledged and its records are retried. SQLite has no such key (sections.cpp).
  Duration timeout = std::chrono::seconds{5};
  static constexpr Duration kMinTimeout = std::chrono::milliseconds{100};
  static constexpr Duration kMaxTimeout = std::chrono::minutes{1};
  std::uint32_t batch_max = 256;                       // leases per group commit at most
  Duration batch_wait = std::chrono::milliseconds{2};  // longest an ACK waits for its batch to fill
  // Records coming fast (16 or more expected within it) wait for company, at most this long:
  // fewer transactions, each fsync and wake-up shared (lease-store.md).
  Duration batch_linger = std::chrono::milliseconds{8};
};

inline const char* to_string(StoreSection::Type type) {
  switch (type) {
    case StoreSection::Type::Sqlite: return "sqlite";
    case StoreSection::Type::Memory: return "memory";
    case StoreSection::Type::Postgresql: return "postgresql";
  }
  return "unknown";
}

// The operators' interface (control API, /metrics, /events): on when the section is present.
struct ControlSection {
  bool enabled = false;
  std::string socket = "/run/landlord/control.sock";  // UNIX socket, mode 0660
  std::optional<Endpoint> listen;                     // optional TCP listener
  std::optional<std::string> token_file;              // bearer token TCP requests must carry
};

// A program run for each lease event (dnsmasq --dhcp-script style); none when absent.
struct EventsSection {
  std::optional<std::string> exec;
};

// Landlord servers that share one store and serve the same clients (docs/lease-store.md): they
// split new clients by the RFC 3074 hash of the client identifier (or chaddr), each answering
// the DISCOVERs of its own hash buckets, and each allocates from its own segment of every pool
// first. Every server answers a REQUEST, a renewal or a rebind for a lease it finds in the store.
struct PeersSection {
  std::vector<Ipv4> servers;  // every peer's server-id, the same list in the same order on each
  // A DISCOVER whose `secs` (time the client has been trying) reaches this is answered whatever
  // its bucket: the peer that owns it may be down (ISC dhcpd's "load balance max seconds").
  Duration answer_all_after = std::chrono::seconds{3};
  bool enabled() const { return !servers.empty(); }
};

// The log levels, by the names spdlog reads: `log.level` and `landlord --log-level` take
// exactly these.
inline constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug",    "info", "warn",
                                                               "error", "critical", "off"};

struct LogSection {
  std::string level = "info";  // one of kLogLevels
};

// Names in DNS (`ddns:`, docs/ddns.md): on when the section is present. The updater reads
// `settings`; `key_file` is where its TSIG key came from, for messages (empty: unsigned).
struct DdnsSection {
  bool enabled = false;
  ddns::Settings settings;
  std::string key_file;
};
struct Config {
  std::string source;  // file name it was loaded from, for messages
  ServerSection server;
  StoreSection store;
  LeaseTimes lease;    // the global defaults, as written
  std::vector<ClientClass> classes;  // in file order: the first that sets a value wins
  std::vector<Subnet> subnets;
  ControlSection control;
  EventsSection events;
  PeersSection peers;
  LogSection log;
  DdnsSection ddns;
};

}  // namespace landlord::config
