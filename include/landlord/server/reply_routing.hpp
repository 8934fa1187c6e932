#pragma once
// Carries out RFC 2131 §4.1 reply routing as the engine decided it (Reply::route), and
// refuses any destination the server must not send to: replies go only to directly attached
// clients, loopback, and relay agents or renewing clients (ciaddr) behind a specific route —
// never where only a default route, or no route at all, would carry them.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/links.hpp"

namespace landlord::server {

using Mac = std::array<std::uint8_t, 6>;
inline constexpr Mac kBroadcastMac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

struct Destination {
  Ipv4 address;
  std::uint16_t port = engine::kClientPort;
  std::uint32_t interface_index = 0;  // 0: the routing table chooses the link
  Ipv4 source_address;                // 0: the kernel chooses
  // Set for a reply to a client on the ingress link (RFC 2131 §4.1): yiaddr at chaddr for a
  // client with no address yet, or a broadcast (ff:ff:ff:ff:ff:ff). It leaves as an Ethernet
  // frame to this MAC on `interface_index`, so no ARP entry is needed (the client could not
  // answer an ARP request for an address it does not have yet).
  std::optional<Mac> frame_to;
};

struct RouteRefused {
  std::string_view reason;  // static text for the log line
  // The destination is a unicast address the host has no specific route to (only a default
  // route, or none): counted and logged once per destination, apart from malformed routings.
  bool no_route = false;
};

// `ingress` is the link the request arrived on (nullptr when unknown).
Expected<Destination, RouteRefused> resolve_destination(const engine::Reply& reply,
                                                        const Link* ingress, const LinkTable& links,
                                                        const RouteTable& routes);

}  // namespace landlord::server
