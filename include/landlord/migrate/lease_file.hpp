#pragma once
// Another DHCP server's lease file, read into one shape: Kea's memfile CSV (lease4), ISC
// dhcpd's dhcpd.leases and dnsmasq's dnsmasq.leases. Readers only; what to import is decided
// in migrate/import_plan.hpp. A line the reader does not understand is a failure with its line
// number and why, never skipped in silence; the reader then goes on with the next line (dhcpd:
// the next `lease ADDRESS {` that starts a line), so one bad line costs no other lease.
//
// Files are read as a stream, a line at a time: memory is bounded by the longest line
// (kMaxLineBytes; a longer line is a failure) or, for dhcpd, the longest statement
// (kMaxStatementBytes), never by the file.
#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/base/time.hpp"

namespace landlord::migrate {

inline constexpr std::size_t kMaxLineBytes = 64 * 1024;
inline constexpr std::size_t kMaxStatementBytes = 1024 * 1024;
inline constexpr std::size_t kMaxShownBytes = 100;  // of a line kept for a report

enum class Format : std::uint8_t { KeaCsv, Dhcpd, Dnsmasq };
std::optional<Format> parse_format(std::string_view name);  // "kea-csv", "dhcpd", "dnsmasq"
std::string_view to_string(Format format);
// Kea's CSV and dhcpd.leases are journals: a later entry for an address replaces earlier ones.
bool is_journal(Format format);

struct ForeignLease {
  Ipv4 address;
  HardwareAddress hardware;            // empty when the file has none
  ClientId client_id;                  // empty when the file has none
  std::string hostname;
  // The name the old server put in DNS for the lease, and which records (Kea: fqdn_fwd/fqdn_rev
  // with the hostname): kept so that landlord removes them when the lease ends.
  std::string fqdn;
  lease::DnsSides dns_sides;
  std::optional<TimePoint> expires;    // nullopt: never (an infinite lease)
  bool active = true;                  // false: free, released, declined, expired, abandoned
  std::string state;                   // the file's own word for it ("active", "2", ...)
  int line = 0;                        // 1-based, where the entry starts
  std::string text;                    // that line, escaped and cut (shown()), for reports
};

struct LineFailure {
  int line = 0;                        // 0: the file as a whole (an empty Kea file)
  std::string text;                    // escaped and cut, for reports
  std::string reason;
};

// What a reader finds, in file order, as it finds it.
class LeaseVisitor {
 public:
  virtual ~LeaseVisitor() = default;
  virtual void lease(ForeignLease&& lease) = 0;
  virtual void failure(LineFailure&& failure) = 0;
  virtual void ignored() = 0;  // an entry of no concern (an IPv6 lease, a host block, ...)
};

// Reads `input` to its end. The caller checks input.bad() for a read error.
void read_lease_stream(Format format, std::istream& input, LeaseVisitor& visitor);

// A whole (small) file, collected: tests and the fuzzer.
struct LeaseFile {
  std::vector<ForeignLease> leases;    // in file order
  std::vector<LineFailure> failures;   // lines not understood
  std::size_t ignored = 0;
  bool journal = false;
};

LeaseFile read_lease_file(Format format, std::string_view text);
LeaseFile read_kea_csv(std::string_view text);
LeaseFile read_dhcpd_leases(std::string_view text);
LeaseFile read_dnsmasq_leases(std::string_view text);

}  // namespace landlord::migrate
