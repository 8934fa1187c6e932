#pragma once
// Another DHCP server's lease file, read into one shape: Kea's memfile CSV (lease4), ISC
// dhcpd's dhcpd.leases and dnsmasq's dnsmasq.leases. Readers only; what to import is decided
// in migrate/import_plan.hpp. A line the reader does not understand is a failure, never
// skipped in silence.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"

namespace landlord::migrate {

enum class Format : std::uint8_t { KeaCsv, Dhcpd, Dnsmasq };
std::optional<Format> parse_format(std::string_view name);  // "kea-csv", "dhcpd", "dnsmasq"
std::string_view to_string(Format format);

struct ForeignLease {
  Ipv4 address;
  HardwareAddress hardware;            // empty when the file has none
  ClientId client_id;                  // empty when the file has none
  std::string hostname;
  std::optional<TimePoint> expires;    // nullopt: never (an infinite lease)
  bool active = true;                  // false: free, released, declined, expired, abandoned
  std::string state;                   // the file's own word for it ("active", "2", ...)
  int line = 0;                        // 1-based, where the entry starts
  std::string text;                    // that line, for reports
};

struct LineFailure {
  int line = 0;
  std::string text;
  std::string reason;
};

struct LeaseFile {
  std::vector<ForeignLease> leases;    // in file order
  std::vector<LineFailure> failures;   // lines not understood
  std::size_t ignored = 0;             // entries of no concern (IPv6 leases, host blocks, ...)
  // Kea's CSV and dhcpd.leases are journals: a later entry for an address replaces earlier ones.
  bool journal = false;
};

LeaseFile read_kea_csv(std::string_view text);
LeaseFile read_dhcpd_leases(std::string_view text);
LeaseFile read_dnsmasq_leases(std::string_view text);
LeaseFile read_lease_file(Format format, std::string_view text);

}  // namespace landlord::migrate
