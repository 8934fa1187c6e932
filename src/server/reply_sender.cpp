#include "reply_sender.hpp"

#include <algorithm>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "landlord/wire/message.hpp"

namespace landlord::server {

bool leaves_as_frame(const Destination& destination, const Link* ingress, bool sends_frames) {
  return destination.frame_to && ingress != nullptr && ingress->ethernet && sends_frames;
}

ReplySender::ReplySender(boost::asio::io_context& io, PacketSocket& socket, LinkView& links,
                         std::uint16_t source_port)
    : io_(io), socket_(socket), links_(links), source_port_(source_port) {}

void ReplySender::send(const engine::Reply& reply, std::uint32_t ingress_index, const Clock& clock) {
  // Replies that may follow a route (to a relay, to a client renewing across a router) are
  // judged by a routing table at most LinkView::kRescanInterval old.
  if (reply.route == engine::Route::Relay || reply.route == engine::Route::Ciaddr) {
    links_.refresh_routes_if_stale(clock.steady());
  }
  const Link* ingress = links_.find(ingress_index, clock);
  auto destination = resolve_destination(reply, ingress, links_.links(), links_.routes());
  if (!destination) {
    report_refused(reply, destination.error(), clock.steady());
    return;
  }
  // Built straight into the outbox slot it leaves from.
  const bool as_frame = leaves_as_frame(*destination, ingress, socket_.sends_frames());
  const std::span<std::uint8_t> buffer = socket_.reply_buffer(as_frame);
  const std::size_t limit = std::min<std::size_t>(buffer.size(), reply.max_size);
  auto built = wire::build(reply.message, buffer.first(limit));
  if (!built) {
    spdlog::error("cannot encode a reply for {} in {} bytes", reply.message.hardware_address().to_string(), limit);
    return;
  }
  deliver(built->size, *destination, ingress, as_frame, clock);
  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::debug("sending {} xid {:#010x} to {}:{} ({}, {} bytes)",
                  reply.message.type() ? wire::to_string(*reply.message.type()) : "reply", reply.message.xid,
                  destination->address.to_string(), destination->port, engine::to_string(reply.route), built->size);
  }
}

void ReplySender::report_refused(const engine::Reply& reply, const RouteRefused& refused,
                                 RateLimitedLog::Steady::time_point now) {
  const std::string_view type = reply.message.type() ? wire::to_string(*reply.message.type()) : "reply";
  if (!refused.no_route) {
    ++unroutable_;
    unroutable_log_.log(now, spdlog::level::warn, "dropped {} for {} ({} {}): {}", type,
                        reply.message.hardware_address().to_string(), engine::to_string(reply.route),
                        reply.destination.to_string(), refused.reason);
    return;
  }
  // Counted every time, named once per destination (and rate-limited across them).
  if (!no_route_.first_drop_to(reply.destination)) return;
  no_route_log_.log(now, spdlog::level::warn,
                    "no route to {} ({}): dropped {} for {}; {}; further drops to it are only "
                    "counted (no_route)",
                    reply.destination.to_string(), engine::to_string(reply.route), type,
                    reply.message.hardware_address().to_string(), refused.reason);
}

void ReplySender::deliver(std::size_t size, Destination destination, const Link* ingress, bool as_frame,
                          const Clock& clock) {
  flush_soon();
  if (as_frame) {
    socket_.queue_frame(size, destination, source_port_);
    return;
  }
  if (destination.frame_to && ingress != nullptr && *destination.frame_to != kBroadcastMac) {
    if (auto error = socket_.install_arp_entry(destination.address, *destination.frame_to, ingress->name)) {
      arp_log_.log(clock.steady(), spdlog::level::warn, "cannot add an ARP entry for {} on {}: {}; broadcasting instead",
                   destination.address.to_string(), ingress->name, error.message());
      destination.address = kBroadcast;
    }
    // The entry is left for the kernel to age out, as dnsmasq does.
  }
  socket_.queue(size, destination);
}

// Replies decided in one turn of the event loop (a recvmmsg batch, a committed batch) leave
// together, right after it.
void ReplySender::flush_soon() {
  if (flush_posted_) return;
  flush_posted_ = true;
  boost::asio::post(io_, [this] {
    flush_posted_ = false;
    socket_.flush();
  });
}

}  // namespace landlord::server
