#pragma once
// Carries out RFC 2131 §4.1 reply routing as the engine decided it (Reply::route), and
// refuses any destination the server must not send to: replies go only to directly attached
// clients, loopback, or relay agents reachable without a default route.
#include <cstdint>
#include <optional>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/links.hpp"

namespace landlord::server {

struct Destination {
  Ipv4 address;
  std::uint16_t port = engine::kClientPort;
  std::uint32_t interface_index = 0;  // 0: the routing table chooses the link
  Ipv4 source_address;                // 0: the kernel chooses
  // For a client with no address yet: install address -> hardware in the ARP table of
  // `interface_index` first, so the unicast needs no ARP reply from the client (RFC 2131 §4.1).
  std::optional<HardwareAddress> arp_hardware;
};

struct RouteRefused {
  std::string_view reason;  // static text for the log line
};

// `ingress` is the link the request arrived on (nullptr when unknown).
Expected<Destination, RouteRefused> resolve_destination(const engine::Reply& reply,
                                                        const Link* ingress, const LinkTable& links,
                                                        const RouteTable& routes);

}  // namespace landlord::server
