#pragma once
// What the DNS updater needs to know, as plain values. The daemon's configuration (`ddns:`, not
// wired yet: docs/ddns.md) fills one of these; the module reads no file itself except through
// parse_key_file, which the loader calls.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/ddns/name.hpp"
#include "landlord/ddns/tsig.hpp"

namespace landlord::ddns {

// How a name already in DNS is treated (RFC 4703 §5; the names are Kea's
// ddns-conflict-resolution-mode values).
enum class ConflictMode {
  kCheckWithDhcid,        // a name is taken only when absent or carrying this client's DHCID
  kNoCheckWithDhcid,      // always overwrite; DHCID records still written
  kCheckExistsWithDhcid,  // overwrite a name that carries any DHCID (another DHCP client's)
  kNoCheckWithoutDhcid,   // always overwrite; no DHCID records at all
};
const char* conflict_mode_text(ConflictMode mode);  // "check-with-dhcid"
std::optional<ConflictMode> conflict_mode_from_text(std::string_view text);

struct ServerAddress {
  Ipv4 address;
  std::uint16_t port = 53;
  bool operator==(const ServerAddress&) const = default;
};
// "198.18.0.1" or "198.18.0.1:5353".
std::optional<ServerAddress> parse_server_address(std::string_view text);

struct TtlPolicy {
  // RFC 4702 §5: a third of the lease; a fixed TTL replaces the fraction when set.
  double lease_fraction = 1.0 / 3.0;
  std::optional<std::uint32_t> fixed_s;
  std::uint32_t min_s = 60;
  std::uint32_t max_s = 86400;
};
std::uint32_t ttl_for_lease(const TtlPolicy& policy, Duration lease_time);

struct Settings {
  Name forward_zone;
  std::vector<Name> reverse_zones;  // the longest one that covers an address is used
  ServerAddress server;
  std::optional<TsigKey> key;       // unsigned updates when absent
  TtlPolicy ttl;
  ConflictMode conflict_mode = ConflictMode::kCheckWithDhcid;
  // RFC 4702 §3.3: the server may do the A update although the client asked to do it (S=0),
  // and may update although the client asked for no update at all (N=1).
  bool override_client_update = false;
  bool override_no_update = false;

  bool always_tcp = false;  // every message over TCP (else UDP, TCP only after a truncation)
  Duration exchange_timeout = std::chrono::seconds(2);  // an unanswered message is lost
  Duration first_retry = std::chrono::seconds(1);       // doubled per attempt...
  Duration max_retry = std::chrono::seconds(60);        // ...up to this
  unsigned max_attempts = 8;                            // per step, then the work fails
  std::uint16_t fudge_s = kDefaultFudgeSeconds;
  std::size_t max_in_flight = 32;    // transactions holding a slot (sent or backing off)
  std::size_t max_queued = 65536;    // all transactions, in flight or waiting
};

// Checks what the types cannot: a forward zone, reverse zones under in-addr.arpa, sane limits.
Expected<void, std::string> validate(const Settings& settings);

}  // namespace landlord::ddns
