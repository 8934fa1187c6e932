#include "reply.hpp"

#include <algorithm>
#include <limits>

namespace landlord::engine {
namespace {

using wire::MessageType;
namespace option = wire::option;

std::uint32_t whole_seconds(Duration duration) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(duration).count();
  // 0xffffffff means "infinite" on the wire; anything that long is the same to a client.
  return static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(seconds, 0, std::numeric_limits<std::uint32_t>::max()));
}

// RFC 2131 Table 3: what the server copies from the client and what it fills in itself.
wire::Message header_for(const wire::Message& request, const ReplySpec& spec) {
  wire::Message reply;
  reply.op = wire::Op::BootReply;
  reply.htype = request.htype;
  reply.hlen = request.hlen;
  reply.hops = 0;
  reply.xid = request.xid;
  reply.secs = 0;
  reply.flags = request.flags;
  // ciaddr is echoed in an ACK (RENEWING, REBINDING, INFORM); an OFFER and a NAK carry 0.
  reply.ciaddr = spec.type == MessageType::Ack ? request.ciaddr : Ipv4{};
  reply.yiaddr = spec.your_address;
  reply.siaddr = Ipv4{};  // no next-server: landlord does not serve boot files
  reply.giaddr = request.giaddr;
  reply.chaddr = request.chaddr;
  return reply;
}

// The subnet's configured options: those the client listed in option 55, in its order, first
// (clients such as some embedded stacks read only the first few), then the rest in config order.
void add_configured_options(const wire::Message& request, const config::Subnet& subnet,
                            wire::Options& options) {
  const auto add = [&](const config::OptionValue& value) {
    if (!options.has(value.code)) options.set(value.code, value.value);
  };
  for (const std::uint8_t code : request.options.get(option::kParameterRequestList)) {
    for (const config::OptionValue& value : subnet.options) {
      if (value.code == code) add(value);
    }
  }
  for (const config::OptionValue& value : subnet.options) add(value);
}

void route(const wire::Message& request, const Ingress& ingress, Reply& reply) {
  const wire::Message& message = reply.message;
  const bool nak = message.type() == MessageType::Nak;
  const bool inform = request.type() == MessageType::Inform;
  if (inform && !request.ciaddr.is_zero()) {
    // §4.3.5: the ACK to an INFORM goes straight to the client's own address.
    reply.route = Route::Ciaddr;
    reply.destination = request.ciaddr;
    reply.port = kClientPort;
  } else if (!request.giaddr.is_zero()) {
    reply.route = Route::Relay;
    reply.destination = request.giaddr;
    reply.port = kServerPort;
    // RFC 8357: a relay that listens on another port says so with sub-option 19; the reply goes
    // back to the port the relayed datagram came from (as Kea does).
    if (request.options.has(option::kRelayAgentInfo)) {
      const auto info = wire::parse_relay_agent_info(request.options.get(option::kRelayAgentInfo));
      if (info && info->relay_port) {
        reply.port = ingress.source_port != 0 ? ingress.source_port : *info->relay_port;
      }
    }
  } else if (nak) {
    reply.route = Route::Broadcast;  // §4.1: a NAK without giaddr is always broadcast
    reply.destination = kBroadcast;
    reply.port = kClientPort;
  } else if (!request.ciaddr.is_zero()) {
    reply.route = Route::Ciaddr;
    reply.destination = request.ciaddr;
    reply.port = kClientPort;
  } else if (request.broadcast()) {
    reply.route = Route::Broadcast;
    reply.destination = kBroadcast;
    reply.port = kClientPort;
  } else {
    reply.route = Route::DirectToClient;
    reply.destination = message.yiaddr;
    reply.port = kClientPort;
  }
}

}  // namespace

Reply make_reply(const wire::Message& request, const Ingress& ingress, const ReplySpec& spec) {
  Reply reply;
  reply.message = header_for(request, spec);
  wire::Options& options = reply.message.options;
  options.set_u8(option::kMessageType, static_cast<std::uint8_t>(spec.type));
  options.set_ipv4(option::kServerId, spec.server_id);
  if (spec.type == MessageType::Nak) {
    // §4.3.2: a NAK relayed to a client on another subnet must be broadcast by the relay.
    if (!request.giaddr.is_zero()) reply.message.flags |= wire::kBroadcastFlag;
    if (!spec.nak_message.empty()) options.set_text(option::kMessage, spec.nak_message);
  } else {
    if (spec.durations) {
      options.set_u32(option::kLeaseTime, whole_seconds(spec.durations->lease_time));
      options.set_u32(option::kRenewalTime, whole_seconds(spec.durations->renew_time));
      options.set_u32(option::kRebindingTime, whole_seconds(spec.durations->rebind_time));
    }
    if (spec.subnet != nullptr) {
      options.set_ipv4(option::kSubnetMask, Ipv4{spec.subnet->subnet.mask()});
      add_configured_options(request, *spec.subnet, options);
    }
  }
  // RFC 3011 §3: a server that honours the subnet selection option returns an identical copy
  // to any client that sends it (clients discard replies without it).
  if (request.options.has(option::kSubnetSelection)) {
    options.set(option::kSubnetSelection, request.options.get(option::kSubnetSelection));
  }
  // RFC 6842: the client identifier comes back in every reply, NAK included.
  if (request.options.has(option::kClientId)) {
    options.set(option::kClientId, request.options.get(option::kClientId));
  }
  // RFC 3046 §2.2: the relay agent information goes back unchanged, as the last option.
  if (request.options.has(option::kRelayAgentInfo)) {
    options.set(option::kRelayAgentInfo, request.options.get(option::kRelayAgentInfo));
  }
  constexpr std::uint16_t kLargestDatagram = 1500;  // Ethernet MTU: never fragment a reply
  const auto datagram = std::min<std::uint16_t>(
      request.options.get_u16(option::kMaxMessageSize).value_or(0), kLargestDatagram);
  reply.max_size = static_cast<std::uint16_t>(wire::reply_size_limit(datagram));
  route(request, ingress, reply);
  return reply;
}

}  // namespace landlord::engine
