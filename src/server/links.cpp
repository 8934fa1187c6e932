#include "landlord/server/links.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <array>
#include <string>
#include <utility>

namespace landlord::server {

bool Link::attaches(Ipv4 destination) const {
  return std::any_of(addresses.begin(), addresses.end(),
                     [&](const LinkAddress& entry) { return entry.subnet.contains(destination); });
}

Ipv4 Link::address_facing(Ipv4 destination) const {
  auto found = std::find_if(addresses.begin(), addresses.end(), [&](const LinkAddress& entry) {
    return entry.subnet.contains(destination);
  });
  return found != addresses.end() ? found->address : primary_address();
}

bool Link::is_broadcast_of(Ipv4 destination) const {
  if (destination.is_broadcast()) return true;
  return std::any_of(addresses.begin(), addresses.end(), [&](const LinkAddress& entry) {
    return entry.subnet.prefix_length < 31 && entry.subnet.broadcast() == destination;
  });
}

namespace {

Ipv4 from_sockaddr(const sockaddr* address) {
  const auto* in = reinterpret_cast<const sockaddr_in*>(address);
  return Ipv4{ntohl(in->sin_addr.s_addr)};
}

}  // namespace

LinkTable LinkTable::scan() {
  std::vector<Link> links;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return LinkTable{};
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    const unsigned index = if_nametoindex(entry->ifa_name);
    if (index == 0) continue;
    auto link = std::find_if(links.begin(), links.end(),
                             [&](const Link& known) { return known.index == index; });
    if (link == links.end()) {
      links.push_back(
          Link{index, entry->ifa_name, (entry->ifa_flags & IFF_LOOPBACK) != 0, {}, false});
      link = links.end() - 1;
    }
    if (entry->ifa_addr != nullptr && entry->ifa_addr->sa_family == AF_PACKET) {
      const auto* packet = reinterpret_cast<const sockaddr_ll*>(entry->ifa_addr);
      link->ethernet = packet->sll_hatype == ARPHRD_ETHER;
    }
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET ||
        entry->ifa_netmask == nullptr) {
      continue;
    }
    const Ipv4 address = from_sockaddr(entry->ifa_addr);
    const auto prefix =
        static_cast<std::uint8_t>(std::popcount(from_sockaddr(entry->ifa_netmask).to_uint()));
    Cidr subnet{address, prefix};
    subnet.network = Ipv4{address.to_uint() & subnet.mask()};
    link->addresses.push_back({address, subnet});
  }
  freeifaddrs(list);
  return LinkTable{std::move(links)};
}

const Link* LinkTable::find(std::uint32_t index) const {
  auto found = std::find_if(links_.begin(), links_.end(),
                            [&](const Link& link) { return link.index == index; });
  return found == links_.end() ? nullptr : &*found;
}

const Link* LinkTable::find(std::string_view name) const {
  auto found = std::find_if(links_.begin(), links_.end(),
                            [&](const Link& link) { return link.name == name; });
  return found == links_.end() ? nullptr : &*found;
}

namespace {

constexpr std::uint32_t kRouteRejected = 0x0200;  // RTF_REJECT in <linux/route.h>

// /proc/net/route prints addresses as the hex of the raw network-order 32-bit word in host
// (little-endian on every Linux we run on) order: 0100A8C0 is 192.168.0.1.
std::optional<Ipv4> parse_proc_address(std::string_view hex) {
  std::uint32_t raw = 0;
  auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), raw, 16);
  if (error != std::errc{} || end != hex.data() + hex.size()) return std::nullopt;
  return Ipv4{ntohl(raw)};
}

}  // namespace

RouteTable RouteTable::parse_proc_net_route(std::string_view text) {
  // Read once a second on the packet thread while relays are answered: split in place rather
  // than through iostreams, which cost more than the rest of the scan.
  const auto next_token = [](std::string_view& rest) {
    const std::size_t start = rest.find_first_not_of(" \t");
    if (start == std::string_view::npos) return rest = {}, std::string_view{};
    const std::size_t end = rest.find_first_of(" \t", start);
    const std::string_view token = rest.substr(start, end == std::string_view::npos ? end : end - start);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    return token;
  };
  std::vector<RouteEntry> entries;
  bool header = true;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (std::exchange(header, false)) continue;
    std::array<std::string_view, 8> fields;  // Iface Destination Gateway Flags RefCnt Use Metric Mask
    bool complete = true;
    for (std::string_view& field : fields) {
      field = next_token(line);
      complete = complete && !field.empty();
    }
    if (!complete) continue;
    const std::string_view interface = fields[0];
    auto network = parse_proc_address(fields[1]);
    auto via = parse_proc_address(fields[2]);
    auto netmask = parse_proc_address(fields[7]);
    if (!network || !via || !netmask) continue;
    std::uint32_t route_flags = 0;
    const std::string_view flags = fields[3];
    const auto parsed = std::from_chars(flags.data(), flags.data() + flags.size(), route_flags, 16);
    if (parsed.ec != std::errc{}) continue;
    const auto prefix = static_cast<std::uint8_t>(std::popcount(netmask->to_uint()));
    // Unreachable and prohibit routes carry RTF_REJECT; a blackhole has no device ("*").
    const bool rejected = (route_flags & kRouteRejected) != 0 || interface == "*";
    entries.push_back({Cidr{*network, prefix}, *via, rejected});
  }
  return RouteTable{std::move(entries)};
}

RouteTable RouteTable::scan() {
  std::string text;
  const int fd = ::open("/proc/net/route", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return RouteTable{};
  char chunk[4096];
  for (ssize_t got; (got = ::read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(got));
  ::close(fd);
  return parse_proc_net_route(text);
}

bool RouteTable::has_specific_route(Ipv4 destination) const {
  // The longest prefix that covers the destination decides, as in the kernel's lookup.
  const RouteEntry* best = nullptr;
  for (const RouteEntry& entry : entries_) {
    if (entry.destination.contains(destination) &&
        (best == nullptr || entry.destination.prefix_length > best->destination.prefix_length)) {
      best = &entry;
    }
  }
  return best != nullptr && best->destination.prefix_length > 0 && !best->rejected;
}

}  // namespace landlord::server
