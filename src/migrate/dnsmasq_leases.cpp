// dnsmasq.leases: one line per lease, "EXPIRY MAC ADDRESS HOSTNAME CLIENT-ID", EXPIRY in Unix
// seconds (0: never), "*" for no hostname or client id. After a "duid ..." line come DHCPv6
// leases (an IAID where the MAC was, an IPv6 address): not ours, counted as ignored.
#include "foreign_time.hpp"
#include "format_reader.hpp"

namespace landlord::migrate {
namespace {

class DnsmasqReader final : public FormatReader {
 public:
  using FormatReader::FormatReader;

  void line(int number, std::string_view line) override {
    const std::vector<std::string_view> fields = words(line);
    if (fields.empty()) return;
    const auto fail = [&](std::string reason) { FormatReader::fail(number, line, std::move(reason)); };
    if (fields[0] == "duid") {
      ipv6_ = true;
      return;
    }
    if (fields.size() < 4) return fail("expected EXPIRY MAC ADDRESS HOSTNAME [CLIENT-ID]");
    if (ipv6_ || fields[2].find(':') != std::string_view::npos) {
      out_.ignored();
      return;
    }
    ForeignLease lease;
    lease.line = number;
    lease.text = shown(line, kMaxShownBytes);
    const auto expiry = parse_integer(fields[0]);
    if (!expiry) return fail("bad expiry " + quoted(fields[0]));
    if (*expiry != 0) {
      lease.expires = time_from_unix_seconds(*expiry);
      if (!lease.expires) return fail("expiry " + quoted(fields[0]) + " is before 1970 or after 9999");
    }
    const auto hardware = HardwareAddress::parse(fields[1]);
    if (!hardware) return fail("bad hardware address " + quoted(fields[1]));
    lease.hardware = *hardware;
    const auto address = Ipv4::parse(fields[2]);
    if (!address) return fail("bad address " + quoted(fields[2]));
    lease.address = *address;
    if (fields[3] != "*") lease.hostname = std::string{fields[3]};
    if (fields.size() > 4 && fields[4] != "*") {
      const auto id = ClientId::parse(fields[4]);
      if (!id) return fail("bad client id " + quoted(fields[4]));
      lease.client_id = *id;
    }
    lease.state = "active";
    out_.lease(std::move(lease));
  }

 private:
  bool ipv6_ = false;
};

}  // namespace

std::unique_ptr<FormatReader> dnsmasq_reader(LeaseVisitor& out) { return std::make_unique<DnsmasqReader>(out); }

}  // namespace landlord::migrate
