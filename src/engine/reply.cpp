#include "reply.hpp"

#include <algorithm>
#include <array>

#include "default_route.hpp"
#include "landlord/base/assert.hpp"
#include "landlord/engine/lease_times.hpp"

namespace landlord::engine {
namespace {

using wire::MessageType;
namespace option = wire::option;

// The configured scopes a reply draws options from, most specific first (reservation, the
// client's classes in config order, pool, subnet with the global defaults merged in at load):
// the first scope that sets a code wins.
struct Scopes {
  static constexpr std::size_t kMost = 3 + config::kMaxClasses;
  std::array<const std::vector<config::OptionValue>*, kMost> options{};
  std::array<const config::BootFields*, kMost> boot{};
  std::size_t count = 0;

  void add(const std::vector<config::OptionValue>& scope_options, const config::BootFields& scope_boot) {
    LANDLORD_ASSERT(count < kMost);
    options[count] = &scope_options;
    boot[count] = &scope_boot;
    ++count;
  }
  template <typename Member>
  const auto* first_boot(Member member) const {
    for (std::size_t i = 0; i < count; ++i) {
      if (const auto& value = boot[i]->*member) return &*value;
    }
    return static_cast<decltype(&*(boot[0]->*member))>(nullptr);
  }
};

Scopes scopes_for(const wire::Message& request, const ReplySpec& spec) {
  Scopes scopes;
  if (spec.subnet == nullptr) return scopes;
  if (spec.reservation != nullptr) scopes.add(spec.reservation->options, spec.reservation->boot);
  for (std::size_t index = 0; index < spec.classes.size(); ++index) {
    if ((spec.member_of >> index & 1) != 0) scopes.add(spec.classes[index].options, spec.classes[index].boot);
  }
  // The pool of the address given (yiaddr), or of the client's own for an INFORM.
  const Ipv4 address = spec.your_address.is_zero() ? request.ciaddr : spec.your_address;
  for (const config::PoolScope& pool : spec.subnet->pool_scopes) {
    if (pool.range.contains(address)) {
      scopes.add(pool.options, pool.boot);
      break;
    }
  }
  scopes.add(spec.subnet->options, spec.subnet->boot);
  return scopes;
}

template <std::size_t N>
void copy_name(const std::string* name, std::array<std::uint8_t, N>& field) {
  if (name == nullptr) return;
  LANDLORD_ASSERT(name->size() < N);  // the loader keeps room for the NUL
  std::copy(name->begin(), name->end(), field.begin());
}

// RFC 2131 Table 3: what the server copies from the client and what it fills in itself.
wire::Message header_for(const wire::Message& request, const ReplySpec& spec, const Scopes& scopes) {
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
  reply.giaddr = request.giaddr;
  reply.chaddr = request.chaddr;
  if (spec.type == MessageType::Nak) return reply;  // Table 3: siaddr, sname, file unused
  // The boot server and file of a network boot (next-server, boot-file, server-hostname).
  if (const Ipv4* next_server = scopes.first_boot(&config::BootFields::next_server)) reply.siaddr = *next_server;
  copy_name(scopes.first_boot(&config::BootFields::boot_file), reply.file);
  copy_name(scopes.first_boot(&config::BootFields::server_hostname), reply.sname);
  return reply;
}

// The configured options: those the client listed in option 55, in its order, first (clients
// such as some embedded stacks read only the first few), then the rest in config order; for each
// code the most specific scope's value.
void add_configured_options(const wire::Message& request, const Scopes& scopes,
                            wire::Options& options) {
  const auto add = [&](const config::OptionValue& value) {
    if (!options.has(value.code)) options.set(value.code, value.value);
  };
  for (const std::uint8_t code : request.options.get(option::kParameterRequestList)) {
    for (std::size_t scope = 0; scope < scopes.count && !options.has(code); ++scope) {
      for (const config::OptionValue& value : *scopes.options[scope]) {
        if (value.code == code) add(value);
      }
    }
  }
  for (std::size_t scope = 0; scope < scopes.count; ++scope) {
    for (const config::OptionValue& value : *scopes.options[scope]) add(value);
  }
}

// RFC 4702 §4: a client that sent option 81 gets the server's decision in it; one that named
// itself with option 12 gets the name's host label back unless a scope set option 12.
void add_name(const ddns::NameDecision& name, wire::Options& options) {
  if (name.reply_fqdn) {
    options.set(ddns::kOptionClientFqdn, ddns::encode_client_fqdn(*name.reply_fqdn));
  } else if (name.reply_hostname && !options.has(option::kHostname)) {
    options.set_text(option::kHostname, *name.reply_hostname);
  }
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
  const Scopes scopes = scopes_for(request, spec);
  reply.message = header_for(request, spec, scopes);
  wire::Options& options = reply.message.options;
  options.set_u8(option::kMessageType, static_cast<std::uint8_t>(spec.type));
  options.set_ipv4(option::kServerId, spec.server_id);
  if (spec.type == MessageType::Nak) {
    // §4.3.2: a NAK relayed to a client on another subnet must be broadcast by the relay.
    if (!request.giaddr.is_zero()) reply.message.flags |= wire::kBroadcastFlag;
    if (!spec.nak_message.empty()) options.set_text(option::kMessage, spec.nak_message);
  } else {
    if (spec.durations) {
      const LeaseDurations& times = *spec.durations;
      set_lease_times(options, wire_lease_times(times.lease_time, times.renew_time, times.rebind_time));
    }
    if (spec.subnet != nullptr) {
      options.set_ipv4(option::kSubnetMask, Ipv4{spec.subnet->subnet.mask()});
      add_configured_options(request, scopes, options);
      if (spec.classless_default_route) add_default_route(options);
    }
    if (spec.name != nullptr) add_name(*spec.name, options);
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
