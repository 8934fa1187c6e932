#pragma once
// The validated, immutable configuration. Loading (YAML, yaml-cpp) lives apart in
// config/loader.hpp so that the core never links yaml-cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"

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

struct Reservation {
  std::optional<HardwareAddress> mac;
  std::optional<ClientId> client_id;
  Ipv4 address;
  std::string hostname;
  // Relay agent information (option 82, RFC 3046) sub-options 1 and 2, as an ISP keys a
  // subscriber by the port or line it is on; empty: not keyed so. One key per reservation.
  std::vector<std::uint8_t> circuit_id{}, remote_id{};
};

// An option value already encoded for the wire, in the order the config gave it.
struct OptionValue {
  std::uint8_t code = 0;
  std::vector<std::uint8_t> value;
};

// A pool with an adaptive lease time (`lease: {shrink-above: 90%, to: 5m}`): while more than
// `shrink_above` of its addresses are in use, new leases get `shortened_to`.
struct AdaptivePool {
  AddressRange range;
  double shrink_above = 0.9;  // 0 < value < 1
  Duration shortened_to{0};
};

struct Subnet {
  std::uint32_t id = 0;  // 1-based, position in the file; stable while the file keeps its order
  Cidr subnet;
  std::vector<AddressRange> pools;
  std::vector<Ipv4> relays;          // giaddr values selecting this subnet besides one inside it
  std::vector<OptionValue> options;  // routers, dns-servers, domain-name, ... (subnet mask is implied)
  LeaseTimes lease;                  // the global defaults with this subnet's overrides applied
  std::vector<Reservation> reservations;
  std::vector<std::string> interfaces;  // optional: interfaces whose directly attached clients use it
  std::vector<AdaptivePool> adaptive_pools;  // the pools of `pools` with an adaptive lease time
  std::optional<Duration> offer_ping;        // ICMP echo wait before an OFFER; none: no check
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
};

struct StoreSection {
  enum class Type : std::uint8_t { Sqlite, Memory };
  Type type = Type::Sqlite;
  std::string path = "/var/lib/landlord/leases.db";
  std::uint32_t batch_max = 256;                       // leases per group commit at most
  Duration batch_wait = std::chrono::milliseconds{2};  // longest an ACK waits for its batch to fill
};

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

struct LogSection {
  std::string level = "info";  // trace, debug, info, warn, error
};

struct Config {
  std::string source;  // file name it was loaded from, for messages
  ServerSection server;
  StoreSection store;
  LeaseTimes lease;    // the global defaults, as written
  std::vector<Subnet> subnets;
  ControlSection control;
  EventsSection events;
  LogSection log;
};

}  // namespace landlord::config
