#pragma once
// Helpers for the simulator's tests: client identities and a scripted server that builds
// replies the way RFC 2131 §4.3 describes them.
#include <optional>

#include "landlord/sim/client.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim::test {

inline constexpr Ipv4 kServerId{198, 18, 0, 1};
inline const TimePoint kEpoch = time_from_unix_ms(1'700'000'000'000);

inline ClientIdentity identity(std::uint8_t last_byte) {
  const std::array<std::uint8_t, 6> mac = {0x02, 0, 0, 0, 0, last_byte};
  const std::array<std::uint8_t, 7> id = {1, 0x02, 0, 0, 0, 0, last_byte};
  return {HardwareAddress{HardwareAddress::kEthernet, mac}, ClientId{id}};
}

struct Server {
  Ipv4 id = kServerId;

  wire::Message reply(const ClientIdentity& client, std::uint32_t xid,
                      wire::MessageType type) const {
    wire::Message message;
    message.op = wire::Op::BootReply;
    message.xid = xid;
    const auto bytes = client.hardware.bytes();
    std::copy(bytes.begin(), bytes.end(), message.chaddr.begin());
    message.hlen = client.hardware.length();
    message.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(type));
    message.options.set_ipv4(wire::option::kServerId, id);
    return message;
  }
  wire::Message offer(const ClientIdentity& client, std::uint32_t xid, Ipv4 address,
                      std::uint32_t lease_s = 3600) const {
    wire::Message message = reply(client, xid, wire::MessageType::Offer);
    message.yiaddr = address;
    message.options.set_u32(wire::option::kLeaseTime, lease_s);
    return message;
  }
  wire::Message ack(const ClientIdentity& client, std::uint32_t xid, Ipv4 address,
                    std::uint32_t lease_s, std::optional<std::uint32_t> t1_s = std::nullopt,
                    std::optional<std::uint32_t> t2_s = std::nullopt) const {
    wire::Message message = reply(client, xid, wire::MessageType::Ack);
    message.yiaddr = address;
    message.options.set_u32(wire::option::kLeaseTime, lease_s);
    if (t1_s) message.options.set_u32(wire::option::kRenewalTime, *t1_s);
    if (t2_s) message.options.set_u32(wire::option::kRebindingTime, *t2_s);
    return message;
  }
  wire::Message nak(const ClientIdentity& client, std::uint32_t xid) const {
    return reply(client, xid, wire::MessageType::Nak);
  }
};

}  // namespace landlord::sim::test
