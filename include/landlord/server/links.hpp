#pragma once
// The host's view of its links, as the reply router needs it: which interfaces exist, their
// IPv4 addresses and directly attached subnets, and which destinations have a specific
// (non-default) route. Scanned at start-up, on SIGHUP and when a packet names an unknown link.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/ipv4.hpp"

namespace landlord::server {

struct LinkAddress {
  Ipv4 address;
  Cidr subnet;  // the directly attached subnet this address sits in
};

struct Link {
  std::uint32_t index = 0;
  std::string name;
  bool loopback = false;
  std::vector<LinkAddress> addresses;
  bool ethernet = false;  // ARPHRD_ETHER (veth, bridge, NIC): replies may leave as frames

  bool attaches(Ipv4 destination) const;         // on one of this link's subnets
  bool is_broadcast_of(Ipv4 destination) const;  // 255.255.255.255 or a subnet's broadcast
  Ipv4 primary_address() const { return addresses.empty() ? Ipv4{} : addresses.front().address; }
  // Our address on the subnet that holds `destination`, else the primary one.
  Ipv4 address_facing(Ipv4 destination) const;
};

class LinkTable {
 public:
  LinkTable() = default;
  explicit LinkTable(std::vector<Link> links) : links_(std::move(links)) {}
  static LinkTable scan();  // getifaddrs(3): every link with its IPv4 addresses

  const Link* find(std::uint32_t index) const;
  const Link* find(std::string_view name) const;
  const std::vector<Link>& links() const { return links_; }

 private:
  std::vector<Link> links_;
};

// IPv4 main routing table entries, as /proc/net/route lists them.
struct RouteEntry {
  Cidr destination;
  Ipv4 gateway;
  bool rejected = false;  // unreachable, prohibit or blackhole: the destination is not to be reached
};

class RouteTable {
 public:
  RouteTable() = default;
  explicit RouteTable(std::vector<RouteEntry> entries) : entries_(std::move(entries)) {}
  static RouteTable scan();  // reads /proc/net/route
  static RouteTable parse_proc_net_route(std::string_view text);

  // True when the most specific route covering `destination` is neither a default (/0) route
  // nor an unreachable/prohibit/blackhole one: replies are never sent where only a default
  // route would carry them, nor where the table says the destination is not to be reached.
  bool has_specific_route(Ipv4 destination) const;

 private:
  std::vector<RouteEntry> entries_;
};

}  // namespace landlord::server
