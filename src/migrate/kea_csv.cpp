// Kea memfile lease4 CSV: a header naming the columns (Kea 2.2: address, hwaddr, client_id,
// valid_lifetime, expire, subnet_id, fqdn_fwd, fqdn_rev, hostname, state, user_context; later
// versions add pool_id), then one row per lease change. `expire` is Unix seconds; state 0 is
// a live lease, 1 declined, 2 expired-reclaimed. Commas inside a value are written "&#x2c".
#include <charconv>
#include <map>

#include "landlord/migrate/lease_file.hpp"
#include "text_lines.hpp"

namespace landlord::migrate {
namespace {

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

}  // namespace

LeaseFile read_kea_csv(std::string_view text) {
  LeaseFile file;
  file.journal = true;
  std::map<std::string, std::size_t, std::less<>> columns;
  for_each_line(text, [&](int number, std::string_view line) {
    if (trim(line).empty()) return;
    const std::vector<std::string_view> fields = split(line, ',');
    if (columns.empty()) {
      for (std::size_t i = 0; i < fields.size(); ++i) columns[std::string{trim(fields[i])}] = i;
      for (const char* required : {"address", "hwaddr", "client_id", "expire", "hostname", "state"}) {
        if (!columns.contains(required)) {
          file.failures.push_back({number, std::string{line},
                                   std::string{"header has no '"} + required + "' column: not a Kea lease4 file"});
          columns.clear();
          return;
        }
      }
      return;
    }
    const auto field = [&](std::string_view name) -> std::string_view {
      const std::size_t index = columns.find(name)->second;
      return index < fields.size() ? trim(fields[index]) : std::string_view{};
    };
    const auto fail = [&](std::string reason) {
      file.failures.push_back({number, std::string{line}, std::move(reason)});
    };
    ForeignLease lease;
    lease.line = number;
    lease.text = std::string{line};
    const auto address = Ipv4::parse(field("address"));
    if (!address) return fail("bad address '" + std::string{field("address")} + "'");
    lease.address = *address;
    if (!field("hwaddr").empty()) {
      const auto hardware = HardwareAddress::parse(field("hwaddr"));
      if (!hardware) return fail("bad hwaddr '" + std::string{field("hwaddr")} + "'");
      lease.hardware = *hardware;
    }
    if (!field("client_id").empty()) {
      const auto id = ClientId::parse(field("client_id"));
      if (!id) return fail("bad client_id '" + std::string{field("client_id")} + "'");
      lease.client_id = *id;
    }
    std::int64_t expire = 0;
    const std::string_view expire_text = field("expire");
    if (std::from_chars(expire_text.data(), expire_text.data() + expire_text.size(), expire).ptr !=
            expire_text.data() + expire_text.size() || expire_text.empty()) {
      return fail("bad expire '" + std::string{expire_text} + "'");
    }
    // Kea writes an infinite lease (valid_lifetime 4294967295) with expire at that many
    // seconds past cltt; anything past year 9999 is taken as never.
    if (expire < 253402300800) lease.expires = time_from_unix_ms(expire * 1000);
    lease.hostname = unescape(field("hostname"));
    lease.state = std::string{field("state")};
    if (lease.state != "0" && lease.state != "1" && lease.state != "2") {
      return fail("bad state '" + lease.state + "' (0, 1 or 2)");
    }
    lease.active = lease.state == "0";
    file.leases.push_back(std::move(lease));
  });
  if (columns.empty() && file.failures.empty()) {
    file.failures.push_back({0, "", "empty file: no Kea lease4 header"});
  }
  return file;
}

}  // namespace landlord::migrate
