#include "landlord/server/links.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <fstream>
#include <sstream>

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
  std::vector<RouteEntry> entries;
  std::istringstream lines{std::string{text}};
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::istringstream fields{line};
    std::string interface, destination, gateway, flags, refcnt, use, metric, mask;
    if (!(fields >> interface >> destination >> gateway >> flags >> refcnt >> use >> metric >>
          mask)) {
      continue;
    }
    auto network = parse_proc_address(destination);
    auto via = parse_proc_address(gateway);
    auto netmask = parse_proc_address(mask);
    if (!network || !via || !netmask) continue;
    std::uint32_t route_flags = 0;
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
  std::ifstream file{"/proc/net/route"};
  std::stringstream text;
  text << file.rdbuf();
  return parse_proc_net_route(text.str());
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
