// Kea memfile lease4 CSV: a header naming the columns (Kea 2.2: address, hwaddr, client_id,
// valid_lifetime, expire, subnet_id, fqdn_fwd, fqdn_rev, hostname, state, user_context; later
// versions add pool_id), then one row per lease change. `expire` is Unix seconds (cltt +
// valid_lifetime); state 0 is a live lease, 1 declined, 2 expired-reclaimed. An infinite lease
// has valid_lifetime 4294967295 (and an expire that many seconds past cltt, year 2100 or so).
// Commas inside a value are written "&#x2c".
#include <map>

#include "foreign_time.hpp"
#include "format_reader.hpp"

namespace landlord::migrate {
namespace {

constexpr std::int64_t kInfiniteLifetime = 0xffffffff;

std::string unescape(std::string_view value) {
  std::string text;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value.substr(i, 5) == "&#x2c") {
      text += ',';
      i += 4;
    } else {
      text += value[i];
    }
  }
  return text;
}

class KeaReader final : public FormatReader {
 public:
  using FormatReader::FormatReader;

  void line(int number, std::string_view line) override {
    if (broken_ || trim(line).empty()) return;
    const std::vector<std::string_view> fields = split(line, ',');
    if (columns_.empty()) return header(number, line, fields);
    if (trim(fields[0]) == "address") return;  // the header again: two files joined with cat
    const auto field = [&](std::string_view name) -> std::string_view {
      const auto found = columns_.find(name);
      if (found == columns_.end()) return {};
      return found->second < fields.size() ? trim(fields[found->second]) : std::string_view{};
    };
    const auto fail = [&](std::string reason) { FormatReader::fail(number, line, std::move(reason)); };
    ForeignLease lease;
    lease.line = number;
    lease.text = shown(line, kMaxShownBytes);
    const auto address = Ipv4::parse(field("address"));
    if (!address) return fail("bad address " + quoted(field("address")));
    lease.address = *address;
    if (!field("hwaddr").empty()) {
      const auto hardware = HardwareAddress::parse(field("hwaddr"));
      if (!hardware) return fail("bad hwaddr " + quoted(field("hwaddr")));
      lease.hardware = *hardware;
    }
    if (!field("client_id").empty()) {
      const auto id = ClientId::parse(field("client_id"));
      if (!id) return fail("bad client_id " + quoted(field("client_id")));
      lease.client_id = *id;
    }
    const auto expire = parse_integer(field("expire"));
    if (!expire) return fail("bad expire " + quoted(field("expire")));
    std::optional<std::int64_t> lifetime;
    if (!field("valid_lifetime").empty()) {
      lifetime = parse_integer(field("valid_lifetime"));
      if (!lifetime || *lifetime < 0 || *lifetime > kInfiniteLifetime) {
        return fail("bad valid_lifetime " + quoted(field("valid_lifetime")));
      }
    }
    if (lifetime != kInfiniteLifetime) {
      lease.expires = time_from_unix_seconds(*expire);
      if (!lease.expires) return fail("expire " + quoted(field("expire")) + " is before 1970 or after 9999");
    }
    lease.hostname = unescape(field("hostname"));
    // Kea's hostname is the name it updated DNS with when fqdn_fwd or fqdn_rev is set.
    const auto flag = [&](std::string_view name) { return field(name) == "1" || field(name) == "true"; };
    std::string name = lease.hostname;
    if (!name.empty() && name.back() == '.') name.pop_back();
    if ((flag("fqdn_fwd") || flag("fqdn_rev")) && !name.empty() && name.size() <= 253) {
      for (char& c : name) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      lease.fqdn = std::move(name);
      lease.dns_sides = {flag("fqdn_fwd"), flag("fqdn_rev")};
    }
    lease.state = std::string{field("state")};
    if (lease.state != "0" && lease.state != "1" && lease.state != "2") {
      return fail("bad state " + quoted(lease.state) + " (0, 1 or 2)");
    }
    lease.active = lease.state == "0";
    out_.lease(std::move(lease));
  }

  void overlong(int number) override {
    FormatReader::overlong(number);
    if (columns_.empty()) broken_ = true;  // no header to read the rows by
  }

  void end() override {
    if (columns_.empty() && !broken_) fail(0, {}, "empty file: no Kea lease4 header");
  }

 private:
  // The first line names the columns; without the ones needed this is not a Kea lease4 file,
  // and its other lines are not read (each would be one more failure saying the same).
  void header(int number, std::string_view line, const std::vector<std::string_view>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) columns_[std::string{trim(fields[i])}] = i;
    for (const char* required : {"address", "hwaddr", "client_id", "expire", "hostname", "state"}) {
      if (!columns_.contains(required)) {
        fail(number, line, std::string{"not a Kea lease4 file: the header has no '"} + required + "' column");
        columns_.clear();
        broken_ = true;
        return;
      }
    }
  }

  std::map<std::string, std::size_t, std::less<>> columns_;
  bool broken_ = false;
};

}  // namespace

std::unique_ptr<FormatReader> kea_csv_reader(LeaseVisitor& out) { return std::make_unique<KeaReader>(out); }

}  // namespace landlord::migrate
