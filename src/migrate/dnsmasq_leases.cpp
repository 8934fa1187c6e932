// dnsmasq.leases: one line per lease, "EXPIRY MAC ADDRESS HOSTNAME CLIENT-ID", EXPIRY in Unix
// seconds (0: never), "*" for no hostname or client id. After a "duid ..." line come DHCPv6
// leases (an IAID where the MAC was, an IPv6 address): not ours, counted as ignored.
#include <charconv>

#include "landlord/migrate/lease_file.hpp"
#include "text_lines.hpp"

namespace landlord::migrate {

LeaseFile read_dnsmasq_leases(std::string_view text) {
  LeaseFile file;
  bool ipv6 = false;
  for_each_line(text, [&](int number, std::string_view line) {
    const std::vector<std::string_view> fields = words(line);
    if (fields.empty()) return;
    const auto fail = [&](std::string reason) {
      file.failures.push_back({number, std::string{line}, std::move(reason)});
    };
    if (fields[0] == "duid") {
      ipv6 = true;
      return;
    }
    if (fields.size() < 4) return fail("expected EXPIRY MAC ADDRESS HOSTNAME [CLIENT-ID]");
    if (ipv6 || fields[2].find(':') != std::string_view::npos) {
      ++file.ignored;
      return;
    }
    ForeignLease lease;
    lease.line = number;
    lease.text = std::string{line};
    std::int64_t expiry = 0;
    if (std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), expiry).ptr !=
        fields[0].data() + fields[0].size()) {
      return fail("bad expiry '" + std::string{fields[0]} + "'");
    }
    if (expiry != 0) lease.expires = time_from_unix_ms(expiry * 1000);
    const auto hardware = HardwareAddress::parse(fields[1]);
    if (!hardware) return fail("bad hardware address '" + std::string{fields[1]} + "'");
    lease.hardware = *hardware;
    const auto address = Ipv4::parse(fields[2]);
    if (!address) return fail("bad address '" + std::string{fields[2]} + "'");
    lease.address = *address;
    if (fields[3] != "*") lease.hostname = std::string{fields[3]};
    if (fields.size() > 4 && fields[4] != "*") {
      const auto id = ClientId::parse(fields[4]);
      if (!id) return fail("bad client id '" + std::string{fields[4]} + "'");
      lease.client_id = *id;
    }
    lease.state = "active";
    file.leases.push_back(std::move(lease));
  });
  return file;
}

}  // namespace landlord::migrate
