#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "kea-csv") return Format::KeaCsv;
  if (name == "dhcpd") return Format::Dhcpd;
  if (name == "dnsmasq") return Format::Dnsmasq;
  return std::nullopt;
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::KeaCsv: return "kea-csv";
    case Format::Dhcpd: return "dhcpd";
    case Format::Dnsmasq: return "dnsmasq";
  }
  return "?";
}

LeaseFile read_lease_file(Format format, std::string_view text) {
  switch (format) {
    case Format::KeaCsv: return read_kea_csv(text);
    case Format::Dhcpd: return read_dhcpd_leases(text);
    case Format::Dnsmasq: return read_dnsmasq_leases(text);
  }
  return {};
}

}  // namespace landlord::migrate
