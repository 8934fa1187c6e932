#include "landlord/migrate/kea_export.hpp"

#include <fmt/format.h>

namespace landlord::migrate {
namespace {

std::string escape(const std::string& text) {  // Kea's escaping of a comma inside a value
  std::string escaped;
  for (const char c : text) {
    if (c == ',') {
      escaped += "&#x2c";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace

std::string export_kea_csv(std::span<const lease::Lease> records, TimePoint now) {
  std::string text =
      "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,"
      "user_context\n";
  for (const lease::Lease& record : records) {
    if (record.state != lease::LeaseState::Bound || record.expires_at() <= now) continue;
    // Kea's hostname is the name its DNS records are at when fqdn_fwd/fqdn_rev are set: a lease
    // with records in DNS hands Kea that name, so Kea removes them when the lease ends.
    const bool named = !record.fqdn.empty() && record.dns_sides.any();
    text += fmt::format("{},{},{},{},{},{},{},{},{},0,\n", record.address.to_string(),
                        record.hardware.empty() ? std::string{} : record.hardware.to_string(),
                        record.client_id.empty() ? std::string{} : record.client_id.to_string(),
                        std::chrono::duration_cast<std::chrono::seconds>(record.lease_time).count(),
                        unix_seconds(record.expires_at()), record.subnet_id,
                        named && record.dns_sides.forward ? 1 : 0, named && record.dns_sides.reverse ? 1 : 0,
                        escape(named ? record.fqdn : record.hostname));
  }
  return text;
}

}  // namespace landlord::migrate
