// `subnets:` — each subnet's own checks, then the checks that need all of them: overlapping
// subnets and pools, a relay address claimed twice or inside another subnet, shared interfaces.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "landlord/config/keys.hpp"
#include "landlord/config/option_encoding.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/config/values.hpp"
#include "limits.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr keys::KeyList kSubnetKeys{keys::kSubnet};
constexpr keys::KeyList kReservationKeys{keys::kReservation};
// A client waits for its OFFER while the ping does; its first retransmission comes after ~4 s.
constexpr Duration kMaxOfferPing = std::chrono::seconds{2};
// The keys that name a reservation's client: exactly one per reservation.
const std::initializer_list<std::string_view> kClientKeys = {"mac", "client-id", "circuit-id", "remote-id"};

// Something a later check may point back at: "... (line 12)".
template <typename T>
struct Placed {
  T value;
  YAML::Mark mark;
  std::size_t subnet_index = 0;
};

std::string at_line(const YAML::Mark& mark) { return " (line " + std::to_string(line_of(mark)) + ")"; }

bool is_hostname(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
  });
}

// Parses "198.18.0.1/24" apart from Cidr::parse so that host bits get their own hint.
Expected<Cidr, std::string> parse_subnet(std::string_view text) {
  if (const auto cidr = Cidr::parse(text)) {
    if (cidr->prefix_length < 1 || cidr->prefix_length > 30) {
      return unexpected("prefix /" + std::to_string(cidr->prefix_length) +
                        " leaves no room for clients; use /1 to /30");
    }
    return *cidr;
  }
  const auto slash = text.find('/');
  if (slash != std::string_view::npos) {
    const auto address = Ipv4::parse(text.substr(0, slash));
    const auto as_zero = Cidr::parse(std::string{"0.0.0.0"} + std::string{text.substr(slash)});
    if (address && as_zero) {
      const Cidr network{Ipv4{address->to_uint() & as_zero->mask()}, as_zero->prefix_length};
      return unexpected("'" + std::string{text} + "' has host bits set; did you mean " +
                        network.to_string() + "?");
    }
  }
  return unexpected("'" + std::string{text} + "' is not a subnet in CIDR form (e.g. 198.18.0.0/24)");
}

Expected<HardwareAddress, std::string> parse_mac(std::string_view text) {
  const auto parsed = HardwareAddress::parse(text);
  if (parsed && parsed->length() == 6) return *parsed;
  return unexpected("'" + std::string{text} + "' is not a MAC address (six hex bytes: 02:00:00:00:00:10)");
}

Expected<ClientId, std::string> parse_client_id(std::string_view text) {
  if (const auto parsed = ClientId::parse(text)) return *parsed;
  return unexpected("'" + std::string{text} + "' is not a client id (colon hex bytes: 01:02:00:00:00:00:11)");
}

// A reservation's hostname goes to its client as option 12 (RFC 2132 §3.14), encoded once here,
// unless its own options set host-name.
void add_hostname_option(Reservation& reservation) {
  if (reservation.hostname.empty()) return;
  const bool set = std::any_of(reservation.options.begin(), reservation.options.end(),
                               [](const OptionValue& option) { return option.code == 12; });
  if (!set) reservation.options.push_back({12, encode_text(reservation.hostname)});
}

// Option 82's circuit-id or remote-id (RFC 3046): colon hex ("01:00:0a"), text in single
// quotes as Kea writes it ("'eth0/1/2:100'"), or plain text ("eth0/1/2:100"). 1-255 bytes.
Expected<std::vector<std::uint8_t>, std::string> parse_relay_id(std::string_view text) {
  std::vector<std::uint8_t> bytes;
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
    text = text.substr(1, text.size() - 2);
    bytes.assign(text.begin(), text.end());
  } else if (const auto hex = ClientId::parse(text); hex && text.find(':') != std::string_view::npos) {
    bytes.assign(hex->raw().begin(), hex->raw().end());
  } else {
    bytes.assign(text.begin(), text.end());
  }
  if (bytes.empty() || bytes.size() > 255) {
    return unexpected("'" + std::string{text} + "' is not a relay agent id: 1 to 255 bytes, as colon hex or text");
  }
  return bytes;
}

std::string describe_relay_id(const std::vector<std::uint8_t>& bytes) {
  const bool printable = std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t c) { return c >= 0x20 && c < 0x7f; });
  if (printable) return "'" + std::string{bytes.begin(), bytes.end()} + "'";
  return to_colon_hex(bytes);
}

class SubnetsReader {
 public:
  SubnetsReader(Reader& reader, const SubnetDefaults& defaults) : reader_(reader), defaults_(defaults) {}

  std::vector<Subnet> read(const Field& field) {
    const auto items = reader_.list(field);
    if (!items) return {};
    if (items->empty()) {
      reader_.error(field.mark(), "'subnets' is empty; add at least one subnet");
      return {};
    }
    for (const auto& item : *items) {
      if (subnets_.size() == kMaxSubnets) {
        reader_.error(item.Mark(), too_many(items->size(), kMaxSubnets, "subnets", "the file"));
        break;
      }
      read_subnet(item);
    }
    check_subnet_overlaps();
    check_pool_overlaps();
    check_relays();
    return std::move(subnets_);
  }

 private:
  std::string label(std::size_t index) const {
    const auto& cidr = cidrs_[index];
    return "subnet " + std::to_string(index + 1) + (cidr ? " (" + cidr->value.to_string() + ")" : "");
  }

  void read_subnet(const YAML::Node& item) {
    const std::size_t index = subnets_.size();
    Subnet& subnet = subnets_.emplace_back();
    subnet.id = static_cast<std::uint32_t>(index + 1);
    cidrs_.emplace_back();
    const auto section = reader_.section(item, item.Mark(), "subnets", kSubnetKeys);
    if (!item.IsMap() && !item.IsNull()) return;

    if (const auto* cidr_field = section.find("subnet")) {
      if (const auto cidr = reader_.parsed(*cidr_field, parse_subnet)) {
        subnet.subnet = *cidr;
        cidrs_[index] = Placed<Cidr>{*cidr, cidr_field->mark(), index};
      }
    } else {
      reader_.error(section.mark, "subnet " + std::to_string(index + 1) +
                                      " is missing required key 'subnet' (e.g. subnet: 198.18.0.0/24)");
    }
    if (const auto* pools = section.find("pools")) read_pools(*pools, index);
    if (const auto* relays = section.find("relays")) read_relays(*relays, index);
    if (const auto* interfaces = section.find("interfaces")) read_interfaces(*interfaces, index);
    if (const auto* reservations = section.find("reservations")) read_reservations(*reservations, index);
    if (const auto* ping = section.find("offer-ping")) read_offer_ping(*ping, index);
    if (const auto* primary = section.find("primary")) read_primary(*primary, index);
    if (const auto* admission = section.find("admission")) subnet.admission = read_admission(reader_, *admission);
    if (const auto* ddns = section.find("ddns")) {
      subnet.ddns = read_subnet_ddns(reader_, *ddns);
      if (!defaults_.ddns.enabled) {
        reader_.error(ddns->key.Mark(), "'ddns' in " + label(index) + " needs the top-level 'ddns' section (the DNS server and zones)");
      }
    }

    ScopeOptions own;
    if (const auto* options = section.find("options")) own = read_options(reader_, *options);
    subnet.options = merge_options(std::move(own.options), defaults_.options.options);
    subnet.boot = merge_boot(std::move(own.boot), defaults_.options.boot);

    const auto lease = read_lease(reader_, section.find("lease"), section.mark, defaults_.lease);
    subnet.lease = lease.times;
    if (lease.sets_timers()) check_lease(reader_, lease, " in " + label(index));
    for (const auto& pool : adaptive_) {
      if (pool.subnet_index != index) continue;
      check_adaptive_pool(reader_, pool.value, subnet.lease);
      subnet.adaptive_pools.push_back(*pool.value.adaptive);
    }
  }

  // Whether `address` may be handed to a client of this subnet; reports why not.
  bool check_host_address(std::size_t index, Ipv4 address, const YAML::Mark& mark, std::string_view what) {
    const auto& cidr = cidrs_[index];
    if (!cidr) return true;  // the subnet itself is broken: already reported
    const Cidr& block = cidr->value;
    if (!block.contains(address)) {
      reader_.error(mark, std::string{what} + " is outside " + label(index));
    } else if (address == block.network) {
      reader_.error(mark, std::string{what} + " is the network address of " + label(index));
    } else if (address == block.broadcast()) {
      reader_.error(mark, std::string{what} + " is the broadcast address of " + label(index));
    } else if (address == defaults_.server.server_id) {
      reader_.error(mark, std::string{what} + " is the server's own address (server-id)");
    } else {
      return true;
    }
    return false;
  }

  static std::string too_many(std::size_t count, std::size_t limit, std::string_view what,
                              std::string_view where) {
    return std::to_string(count) + " " + std::string{what} + " in " + std::string{where} +
           ", more than the " + std::to_string(limit) + " allowed; the rest are not read";
  }

  void read_pools(const Field& field, std::size_t index) {
    const auto items = reader_.list(field);
    if (!items) return;
    std::size_t read = 0;
    for (const auto& item : *items) {
      if (read++ == kMaxPoolsPerSubnet) {
        reader_.error(item.Mark(), too_many(items->size(), kMaxPoolsPerSubnet, "pools", label(index)));
        break;
      }
      auto pool = read_pool_item(reader_, item);
      if (!pool) continue;
      const AddressRange* range = &pool->range;
      const std::string what = "pool " + format_range(*range);
      const std::uint64_t size = range->size();
      if (size > kMaxPoolAddresses) {
        reader_.error(pool->mark, what + " has " + std::to_string(size) +
                                       " addresses; a pool holds at most " +
                                       std::to_string(kMaxPoolAddresses) + " (a /8)");
        continue;
      }
      if (pool_addresses_ + size > kMaxPoolAddresses) {
        reader_.error(pool->mark, what + " brings the pools to " +
                                       std::to_string(pool_addresses_ + size) +
                                       " addresses in all, more than the " +
                                       std::to_string(kMaxPoolAddresses) + " a server holds");
        continue;
      }
      const auto& cidr = cidrs_[index];
      if (cidr && !(cidr->value.contains(range->first) && cidr->value.contains(range->last))) {
        reader_.error(pool->mark, what + " is outside " + label(index));
        continue;
      }
      if (cidr && range->contains(cidr->value.network)) {
        reader_.error(pool->mark, what + " includes the network address " + cidr->value.network.to_string());
        continue;
      }
      if (cidr && range->contains(cidr->value.broadcast())) {
        reader_.error(pool->mark, what + " includes the broadcast address " + cidr->value.broadcast().to_string());
        continue;
      }
      // The server's own address handed to a client would break both of them.
      if (const auto& server_id = defaults_.server.server_id; server_id && range->contains(*server_id)) {
        reader_.error(pool->mark, what + " includes the server's own address " + server_id->to_string() +
                                       " (server-id)");
        continue;
      }
      std::uint64_t classes = 0;
      if (pool->classes) {
        const auto resolved = resolve_classes(reader_, *pool->classes, defaults_.classes);
        if (!resolved) continue;
        classes = *resolved;
      }
      subnets_[index].pools.push_back(*range);
      if (pool->options) {
        subnets_[index].pool_scopes.push_back(
            {*range, std::move(pool->options->options), std::move(pool->options->boot), classes});
      }
      pools_.push_back({*range, pool->mark, index});
      pool_addresses_ += size;
      if (pool->adaptive) adaptive_.push_back({*pool, pool->mark, index});
    }
  }

  void read_primary(const Field& field, std::size_t index) {
    const auto address = reader_.address(field);
    if (!address) return;
    const auto& servers = defaults_.peers.servers;
    if (std::find(servers.begin(), servers.end(), *address) == servers.end()) {
      reader_.error(field.mark(), "'primary' " + address->to_string() + " is not one of 'peers.servers'" +
                                      (servers.empty() ? " (there is no 'peers' section)" : ""));
      return;
    }
    subnets_[index].primary = *address;
  }

  void read_offer_ping(const Field& field, std::size_t index) {
    const auto wait = reader_.parsed(field, parse_duration);
    if (!wait) return;
    if (wait->count() <= 0 || *wait > kMaxOfferPing) {
      reader_.error(field.mark(), "'offer-ping' must be longer than 0s and at most 2s: the client waits for its OFFER meanwhile");
      return;
    }
    subnets_[index].offer_ping = *wait;
  }

  void read_relays(const Field& field, std::size_t index) {
    const auto items = reader_.list(field);
    if (!items) return;
    for (const auto& item : *items) {
      const auto address = reader_.address(item, "relays");
      if (!address) continue;
      if (address->is_zero() || address->is_broadcast()) {
        reader_.error(item.Mark(), "relay " + address->to_string() + " cannot be a giaddr");
        continue;
      }
      subnets_[index].relays.push_back(*address);
      relays_.push_back({*address, item.Mark(), index});
    }
  }

  void read_interfaces(const Field& field, std::size_t index) {
    const auto items = reader_.list(field);
    if (!items) return;
    const auto& served = defaults_.server.interfaces;
    for (const auto& item : *items) {
      const auto name = reader_.scalar(item, "interfaces");
      if (!name) continue;
      if (!is_interface_name(*name)) {
        reader_.error(item.Mark(), "'" + *name + "' is not an interface name (1-15 characters, no '/', ':' or spaces)");
        continue;
      }
      if (std::find(served.begin(), served.end(), *name) == served.end()) {
        reader_.error(item.Mark(), "interface '" + *name + "' is not in server 'interfaces'; the server would never hear its clients");
        continue;
      }
      const auto earlier = std::find_if(interfaces_.begin(), interfaces_.end(),
                                        [&](const auto& other) { return other.value == *name; });
      if (earlier != interfaces_.end()) {
        reader_.error(item.Mark(), "interface '" + *name + "' already selects " + label(earlier->subnet_index) +
                                       at_line(earlier->mark));
        continue;
      }
      subnets_[index].interfaces.push_back(*name);
      interfaces_.push_back({*name, item.Mark(), index});
    }
  }

  // What earlier reservations of this subnet claimed, by text, to refuse a second claim: a
  // hash map, since a subnet may hold tens of thousands of reservations.
  struct Claimed {
    std::unordered_map<std::string, YAML::Mark> macs, client_ids, addresses, circuit_ids, remote_ids;
  };

  static std::string claim_key(const std::vector<std::uint8_t>& bytes) { return to_colon_hex(bytes); }
  template <typename T>
  static std::string claim_key(const T& value) { return value.to_string(); }

  // Records `value` as claimed at `mark`, or reports the earlier claim and returns false.
  template <typename T>
  bool claim(std::unordered_map<std::string, YAML::Mark>& claimed, const T& value,
             const YAML::Mark& mark, const std::string& what) {
    const auto [earlier, inserted] = claimed.try_emplace(claim_key(value), mark);
    if (!inserted) {
      reader_.error(mark, what + " is already reserved in this subnet" + at_line(earlier->second));
      return false;
    }
    return true;
  }

  void read_reservations(const Field& field, std::size_t index) {
    const auto items = reader_.list(field);
    if (!items) return;
    Claimed claimed;
    std::size_t read = 0;
    for (const auto& item : *items) {
      if (read++ == kMaxReservationsPerSubnet) {
        reader_.error(item.Mark(), too_many(items->size(), kMaxReservationsPerSubnet,
                                            "reservations", label(index)));
        break;
      }
      if (auto reservation = read_reservation(item, index, claimed)) {
        subnets_[index].reservations.push_back(std::move(*reservation));
      }
    }
  }

  std::optional<Reservation> read_reservation(const YAML::Node& item, std::size_t index, Claimed& claimed) {
    const auto section = reader_.section(item, item.Mark(), "reservations", kReservationKeys);
    if (!item.IsMap() && !item.IsNull()) return std::nullopt;
    Reservation reservation;
    bool valid = true;
    const Field* mac_field = section.find("mac");
    const Field* client_id_field = section.find("client-id");
    std::vector<const Field*> client_keys;
    for (const std::string_view key : kClientKeys) {
      if (const Field* field = section.find(key)) client_keys.push_back(field);
    }
    if (client_keys.empty()) {
      reader_.error(section.mark,
                    "a reservation needs 'mac', 'client-id', 'circuit-id' or 'remote-id' to know its client");
      valid = false;
    } else if (client_keys.size() > 1) {
      const auto later = std::max_element(client_keys.begin(), client_keys.end(), [](const Field* a, const Field* b) {
        return a->key.Mark().pos < b->key.Mark().pos;
      });
      reader_.error((*later)->key.Mark(),
                    "a reservation takes one of 'mac', 'client-id', 'circuit-id' or 'remote-id', not two");
      valid = false;
    }
    for (const bool circuit : {true, false}) {
      const Field* field = section.find(circuit ? "circuit-id" : "remote-id");
      if (field == nullptr) continue;
      const auto id = reader_.parsed(*field, parse_relay_id);
      const std::string what = std::string{circuit ? "circuit-id " : "remote-id "} + (id ? describe_relay_id(*id) : "");
      valid = id && claim(circuit ? claimed.circuit_ids : claimed.remote_ids, *id, field->mark(), what) && valid;
      if (id) (circuit ? reservation.circuit_id : reservation.remote_id) = *id;
    }
    if (mac_field != nullptr) {
      const auto mac = reader_.parsed(*mac_field, parse_mac);
      valid = mac && claim(claimed.macs, *mac, mac_field->mark(), "mac " + mac->to_string()) && valid;
      if (mac) reservation.mac = *mac;
    }
    if (client_id_field != nullptr) {
      const auto client_id = reader_.parsed(*client_id_field, parse_client_id);
      valid = client_id &&
              claim(claimed.client_ids, *client_id, client_id_field->mark(), "client-id " + client_id->to_string()) &&
              valid;
      if (client_id) reservation.client_id = *client_id;
    }
    if (const auto* address_field = section.find("address")) {
      const auto address = reader_.address(*address_field);
      valid = address &&
              check_host_address(index, *address, address_field->mark(), "reserved address " + address->to_string()) &&
              claim(claimed.addresses, *address, address_field->mark(), "address " + address->to_string()) && valid;
      if (address) reservation.address = *address;
    } else {
      reader_.error(section.mark, "a reservation is missing required key 'address'");
      valid = false;
    }
    if (const auto* hostname_field = section.find("hostname")) {
      const auto hostname = reader_.scalar(*hostname_field);
      if (hostname && !is_hostname(*hostname)) {
        reader_.error(hostname_field->mark(), "'" + *hostname + "' is not a host name (letters, digits, '-', '.')");
      }
      valid = hostname && is_hostname(*hostname) && valid;
      if (hostname) reservation.hostname = *hostname;
    }
    if (const auto* options_field = section.find("options")) {
      auto own = read_options(reader_, *options_field);
      reservation.options = std::move(own.options);
      reservation.boot = std::move(own.boot);
    }
    add_hostname_option(reservation);
    if (!valid) return std::nullopt;
    return reservation;
  }

  // Sorted by first address, an item overlaps an earlier one iff it starts at or before the
  // furthest end seen so far. The error goes to whichever of the two comes later in the file.
  template <typename T, typename Range, typename Describe>
  void report_overlaps(const std::vector<Placed<T>>& items, Range range_of, Describe describe) {
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return range_of(items[a].value).first < range_of(items[b].value).first;
    });
    std::optional<std::size_t> reach;
    for (const std::size_t current : order) {
      if (reach && range_of(items[current].value).first <= range_of(items[*reach].value).last) {
        const bool current_is_later = items[current].mark.pos > items[*reach].mark.pos;
        const auto& later = items[current_is_later ? current : *reach];
        const auto& earlier = items[current_is_later ? *reach : current];
        reader_.error(later.mark, describe(later, earlier) + " overlaps " + describe(earlier, later) + at_line(earlier.mark));
      }
      if (!reach || range_of(items[current].value).last > range_of(items[*reach].value).last) reach = current;
    }
  }

  void check_subnet_overlaps() {
    std::vector<Placed<Cidr>> placed;
    for (const auto& cidr : cidrs_) {
      if (cidr) placed.push_back(*cidr);
    }
    report_overlaps(
        placed, [](const Cidr& cidr) { return AddressRange{cidr.network, cidr.broadcast()}; },
        [](const Placed<Cidr>& cidr, const Placed<Cidr>&) { return "subnet " + cidr.value.to_string(); });
  }

  void check_pool_overlaps() {
    report_overlaps(
        pools_, [](const AddressRange& range) { return range; },
        [&](const Placed<AddressRange>& pool, const Placed<AddressRange>& other) {
          const bool same_subnet = pool.subnet_index == other.subnet_index;
          return "pool " + format_range(pool.value) + (same_subnet ? "" : " of " + label(pool.subnet_index));
        });
  }

  void check_relays() {
    for (std::size_t index = 0; index < relays_.size(); ++index) {
      const auto& relay = relays_[index];
      const auto earlier = std::find_if(relays_.begin(), relays_.begin() + static_cast<std::ptrdiff_t>(index),
                                        [&](const auto& other) { return other.value == relay.value; });
      if (earlier != relays_.begin() + static_cast<std::ptrdiff_t>(index)) {
        reader_.error(relay.mark, "relay " + relay.value.to_string() + " already selects " +
                                      label(earlier->subnet_index) + at_line(earlier->mark));
        continue;
      }
      // A giaddr inside a configured subnet selects that subnet; naming it as another
      // subnet's relay would make the choice ambiguous.
      for (std::size_t other = 0; other < cidrs_.size(); ++other) {
        if (other != relay.subnet_index && cidrs_[other] && cidrs_[other]->value.contains(relay.value)) {
          reader_.error(relay.mark, "relay " + relay.value.to_string() + " is inside " + label(other) +
                                        ", which a giaddr there already selects");
        }
      }
    }
  }

  Reader& reader_;
  const SubnetDefaults& defaults_;
  std::vector<Subnet> subnets_;
  std::vector<std::optional<Placed<Cidr>>> cidrs_;  // by subnet index; empty when broken
  std::vector<Placed<AddressRange>> pools_;
  std::vector<Placed<PoolItem>> adaptive_;  // pools with an adaptive lease time
  std::vector<Placed<Ipv4>> relays_;
  std::vector<Placed<std::string>> interfaces_;
  std::uint64_t pool_addresses_ = 0;  // in all subnets' pools so far
};

}  // namespace

std::vector<Subnet> read_subnets(Reader& reader, const Field& field, const SubnetDefaults& defaults) {
  return SubnetsReader{reader, defaults}.read(field);
}

}  // namespace landlord::config::detail
