#pragma once
// From a received datagram to the engine's Ingress, and whether the request is ours to serve.
// Pure, so the rules that tell RENEWING (unicast to us) from REBINDING (broadcast) and a served
// link from any other are unit-tested without sockets.
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "landlord/engine/engine.hpp"
#include "landlord/server/links.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::server {

// What recvmsg with IP_PKTINFO tells about one datagram.
struct Datagram {
  std::size_t size = 0;
  std::uint32_t interface_index = 0;
  Ipv4 source;
  std::uint16_t source_port = 0;
  Ipv4 header_destination;  // the IP header's destination: tells broadcast from unicast
  bool truncated = false;   // larger than the buffer: never parse it
  std::int64_t queued_at_ns = 0;  // CLOCK_REALTIME when the kernel queued it (SO_TIMESTAMPNS); 0: unknown
};

// Whether a DISCOVER read at `now_ns` (CLOCK_REALTIME) waited in the receive queue longer than
// `max_wait` (server.discover-max-wait; 0: never): the server is behind, its client has
// retransmitted or soon will, and answering it would only cost an offer hold.
bool waited_too_long(const Datagram& datagram, std::int64_t now_ns, Duration max_wait);

// `link` is the link the datagram arrived on (nullptr when unknown). The Ingress refers to
// `link->name`, so it lives no longer than the link table.
engine::Ingress make_ingress(const Datagram& datagram, const Link* link);

// Relayed requests (giaddr set) are served from anywhere; direct ones on the configured
// interfaces, plus unicast with ciaddr: a RENEWING client may reach us over any link.
bool serves(const wire::Message& request, const engine::Ingress& ingress,
            const std::unordered_set<std::uint32_t>& served_interfaces);

}  // namespace landlord::server
