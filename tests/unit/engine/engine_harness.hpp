#pragma once
// Test support: a two-subnet config built in C++, client messages built field by field, and a
// harness that drives the engine with a virtual clock.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "landlord/engine/engine.hpp"

namespace landlord::engine::testing {

namespace option = wire::option;
using wire::MessageType;
using namespace std::chrono_literals;

inline constexpr Ipv4 kServerAddress{198, 18, 0, 1};  // our address on the local link
inline constexpr Ipv4 kRelayAddress{198, 18, 1, 1};   // a relay on the second subnet
inline constexpr Ipv4 kListedRelay{198, 18, 9, 1};    // a relay listed in subnet 2's `relays`
inline constexpr Ipv4 kOtherServer{198, 18, 0, 2};
inline const TimePoint kStart = time_from_unix_ms(1'800'000'000'000);

inline config::Config make_config() {
  config::Config config;
  config.server.authoritative = true;
  config.lease.time = 1h;

  config::Subnet local;
  local.id = 1;
  local.subnet = *Cidr::parse("198.18.0.0/24");
  local.pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 199}}};
  local.options = {{option::kRouters, {198, 18, 0, 1}},
                   {option::kDnsServers, {198, 18, 0, 53}},
                   {option::kDomainName, {'l', 'a', 'b'}}};
  local.lease = config.lease;
  local.reservations = {
      {HardwareAddress::parse("02:00:00:00:00:99"), std::nullopt, Ipv4{198, 18, 0, 150}, "printer"},
      {std::nullopt, ClientId::parse("ff:00:00:00:01"), Ipv4{198, 18, 0, 20}, "reserved-by-id"}};
  local.interfaces = {"veth-local"};

  config::Subnet remote;
  remote.id = 2;
  remote.subnet = *Cidr::parse("198.18.1.0/24");
  remote.pools = {{Ipv4{198, 18, 1, 100}, Ipv4{198, 18, 1, 103}}};
  remote.relays = {kListedRelay};
  remote.lease = config.lease;
  remote.lease.time = 10min;  // a subnet override
  remote.lease.renew = Duration{2min};

  config.subnets = {local, remote};
  return config;
}

inline HardwareAddress mac(std::uint8_t last) {
  const std::uint8_t bytes[6] = {2, 0, 0, 0, 0, last};
  return HardwareAddress(HardwareAddress::kEthernet, bytes);
}

inline wire::Message client_message(MessageType type, std::uint8_t mac_last) {
  wire::Message message;
  message.op = wire::Op::BootRequest;
  message.xid = 0x1000u + mac_last;
  const auto hardware = mac(mac_last);
  std::copy(hardware.bytes().begin(), hardware.bytes().end(), message.chaddr.begin());
  message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(type));
  return message;
}

// Broadcast on the server's own link (DISCOVER, SELECTING, INIT-REBOOT, REBINDING).
inline Ingress local_broadcast() {
  Ingress ingress;
  ingress.interface_index = 2;
  ingress.interface_name = "veth-local";
  ingress.interface_address = kServerAddress;
  ingress.to_broadcast = true;
  return ingress;
}

// Unicast to us (RENEWING, RELEASE, INFORM).
inline Ingress local_unicast(Ipv4 from) {
  Ingress ingress = local_broadcast();
  ingress.to_broadcast = false;
  ingress.source_address = from;
  return ingress;
}

inline Ingress from_relay(Ipv4 relay, std::uint16_t port = kServerPort) {
  Ingress ingress = local_unicast(relay);
  ingress.source_port = port;
  return ingress;
}

inline ClientKey key(std::uint8_t mac_last) { return ClientKey::from({}, mac(mac_last)); }

inline std::vector<std::uint8_t> codes(const wire::Message& message) {
  const auto span = message.options.codes();
  return {span.begin(), span.end()};
}

// A parameterised case's `name` as a GoogleTest name: letters and digits, '_' elsewhere.
struct CaseName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string name = info.param.name;
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
  }
};

inline std::optional<MessageType> reply_type(const Outcome& outcome) {
  if (!outcome.reply) return std::nullopt;
  return outcome.reply->message.type();
}

class Harness {
 public:
  explicit Harness(config::Config config = make_config()) : engine(config) {}

  Engine engine;
  TimePoint now = kStart;

  Outcome send(const wire::Message& message, const Ingress& ingress = local_broadcast()) {
    return engine.handle(message, ingress, now);
  }

  // Moves time forward and runs the reclaimer, as the server's timer would.
  std::vector<lease::Lease> advance(Duration by) {
    now += by;
    return engine.reclaim(now, 1'000'000);
  }

  Outcome discover(std::uint8_t client, std::optional<Ipv4> requested = std::nullopt) {
    auto message = client_message(MessageType::Discover, client);
    if (requested) message.options.set_ipv4(option::kRequestedAddress, *requested);
    return send(message);
  }

  Outcome select(std::uint8_t client, Ipv4 address, Ipv4 server = kServerAddress) {
    auto message = client_message(MessageType::Request, client);
    message.options.set_ipv4(option::kServerId, server);
    message.options.set_ipv4(option::kRequestedAddress, address);
    return send(message);
  }

  // DISCOVER then REQUEST for what was offered: the granted address.
  Ipv4 dora(std::uint8_t client) {
    const Outcome offer = discover(client);
    EXPECT_EQ(reply_type(offer), MessageType::Offer);
    const Ipv4 address = offer.reply->message.yiaddr;
    const Outcome ack = select(client, address);
    EXPECT_EQ(reply_type(ack), MessageType::Ack);
    return address;
  }

  // `secs`: how long the client says it has been trying (RFC 2131 §2).
  Outcome init_reboot(std::uint8_t client, Ipv4 address, std::uint16_t secs = 0) {
    auto message = client_message(MessageType::Request, client);
    message.secs = secs;
    message.options.set_ipv4(option::kRequestedAddress, address);
    return send(message);
  }

  Outcome renew(std::uint8_t client, Ipv4 address) {
    auto message = client_message(MessageType::Request, client);
    message.ciaddr = address;
    return send(message, local_unicast(address));
  }

  Outcome rebind(std::uint8_t client, Ipv4 address) {
    auto message = client_message(MessageType::Request, client);
    message.ciaddr = address;
    return send(message, local_broadcast());
  }

  Outcome release(std::uint8_t client, Ipv4 address) {
    auto message = client_message(MessageType::Release, client);
    message.ciaddr = address;
    message.options.set_ipv4(option::kServerId, kServerAddress);
    return send(message, local_unicast(address));
  }

  Outcome decline(std::uint8_t client, Ipv4 address) {
    auto message = client_message(MessageType::Decline, client);
    message.options.set_ipv4(option::kRequestedAddress, address);
    message.options.set_ipv4(option::kServerId, kServerAddress);
    return send(message);
  }
};

}  // namespace landlord::engine::testing
