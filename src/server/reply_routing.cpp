#include "landlord/server/reply_routing.hpp"

#include <algorithm>

namespace landlord::server {
namespace {

constexpr Cidr kLoopback{Ipv4{127, 0, 0, 0}, 8};

bool attached_anywhere(const LinkTable& links, Ipv4 destination) {
  return std::any_of(links.links().begin(), links.links().end(),
                     [&](const Link& link) { return link.attaches(destination); });
}

Expected<Destination, RouteRefused> broadcast_on(const Link* ingress, std::uint16_t port) {
  if (ingress == nullptr || ingress->loopback) {
    return unexpected(RouteRefused{"broadcast needs the client's link, which is unknown"});
  }
  return Destination{kBroadcast, port, ingress->index, ingress->primary_address(), kBroadcastMac};
}

std::optional<Mac> ethernet_mac(const wire::Message& message) {
  const HardwareAddress hardware = message.hardware_address();
  if (hardware.type() != HardwareAddress::kEthernet || hardware.length() != 6) return std::nullopt;
  Mac mac{};
  std::copy_n(hardware.bytes().begin(), mac.size(), mac.begin());
  return mac;
}

}  // namespace

Expected<Destination, RouteRefused> resolve_destination(const engine::Reply& reply,
                                                        const Link* ingress, const LinkTable& links,
                                                        const RouteTable& routes) {
  const Ipv4 destination = reply.destination;
  switch (reply.route) {
    case engine::Route::Relay:
      if (kLoopback.contains(destination) || attached_anywhere(links, destination) ||
          routes.has_specific_route(destination)) {
        return Destination{destination, reply.port, 0, Ipv4{}, std::nullopt};
      }
      return unexpected(
          RouteRefused{"relay agent is not reachable without a default route", true});

    case engine::Route::Ciaddr: {
      if (kLoopback.contains(destination)) {
        return Destination{destination, reply.port, ingress != nullptr ? ingress->index : 0, Ipv4{},
                           std::nullopt};
      }
      if (ingress == nullptr || !ingress->attaches(destination)) {
        // A client renewing across a router (RFC 2131 §4.4.5: unicast, no relay): the reply
        // goes back through the kernel's routing, as Kea's and dhcpd's do, but only along a
        // route that names its network; the kernel picks the link and our source address.
        if (attached_anywhere(links, destination) || routes.has_specific_route(destination)) {
          return Destination{destination, reply.port, 0, Ipv4{}, std::nullopt};
        }
        return unexpected(
            RouteRefused{"no route to ciaddr other than a default route (or none)", true});
      }
      // A renewing client on our link gets a frame to chaddr, like a direct reply: through the
      // kernel every renewing client would need a neighbour entry, and the table holds ~1,024.
      const auto mac = ethernet_mac(reply.message);
      if (!mac || ingress->loopback) {
        return Destination{destination, reply.port, ingress->index, Ipv4{}, std::nullopt};
      }
      return Destination{destination, reply.port, ingress->index,
                         ingress->address_facing(destination), *mac};
    }

    case engine::Route::Broadcast: return broadcast_on(ingress, reply.port);

    case engine::Route::DirectToClient: {
      if (ingress == nullptr || !ingress->attaches(destination)) {
        return unexpected(RouteRefused{"yiaddr is not on a subnet of the ingress link"});
      }
      const auto mac = ethernet_mac(reply.message);
      if (!mac) {
        // No Ethernet address to send the frame to: broadcast, as §4.1 allows.
        return broadcast_on(ingress, reply.port);
      }
      return Destination{destination, reply.port, ingress->index,
                         ingress->address_facing(destination), *mac};
    }
  }
  return unexpected(RouteRefused{"unknown route"});
}

}  // namespace landlord::server
