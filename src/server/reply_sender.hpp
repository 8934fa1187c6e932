#pragma once
// A decided reply on its way out: routed (reply_routing.hpp, by the links and routes of
// LinkView), built in place in the socket's outbox, queued, and sent with the other replies of
// the loop turn by one flush. A reply that cannot be routed is counted and logged here.
#include <cstdint>
#include <span>

#include <boost/asio/io_context.hpp>

#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/link_view.hpp"
#include "landlord/server/no_route_report.hpp"
#include "landlord/server/rate_limit.hpp"
#include "landlord/server/reply_routing.hpp"
#include "packet_socket.hpp"

namespace landlord::server {

// A reply to a client on the ingress link leaves as an Ethernet frame when it can: no ARP
// entry, no neighbour entry. Otherwise through the UDP socket, after an ARP entry for a client
// with no address yet.
bool leaves_as_frame(const Destination& destination, const Link* ingress, bool sends_frames);

class ReplySender {
 public:
  // `source_port`: server.listen's port, the frames' UDP source.
  ReplySender(boost::asio::io_context& io, PacketSocket& socket, LinkView& links, std::uint16_t source_port);

  // `clock` is read only when the reply needs it (a route's age, an unknown link, a log line).
  void send(const engine::Reply& reply, std::uint32_t ingress_index, const Clock& clock);

  std::uint64_t unroutable() const { return unroutable_; }
  std::uint64_t no_route() const { return no_route_.drops(); }

 private:
  void report_refused(const engine::Reply& reply, const RouteRefused& refused, RateLimitedLog::Steady::time_point now);
  void deliver(std::size_t size, Destination destination, const Link* ingress, bool as_frame, const Clock& clock);
  void flush_soon();

  boost::asio::io_context& io_;
  PacketSocket& socket_;
  LinkView& links_;
  const std::uint16_t source_port_;
  bool flush_posted_ = false;
  std::uint64_t unroutable_ = 0;
  NoRouteReport no_route_;
  RateLimitedLog unroutable_log_, no_route_log_, arp_log_;
};

}  // namespace landlord::server
