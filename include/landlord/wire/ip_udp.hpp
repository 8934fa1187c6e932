#pragma once
// The IPv4 and UDP headers of a DHCP message sent as a link-layer frame: the server's replies
// to clients that have no address yet (AF_PACKET) and the simulator's clients. Pure functions
// over byte spans, so the checksums are tested without a socket.
#include <cstddef>
#include <cstdint>
#include <span>

#include "landlord/base/ipv4.hpp"

namespace landlord::wire {

inline constexpr std::size_t kIpv4HeaderSize = 20;
inline constexpr std::size_t kUdpHeaderSize = 8;
inline constexpr std::size_t kIpv4UdpHeadersSize = kIpv4HeaderSize + kUdpHeaderSize;
inline constexpr std::uint8_t kProtocolUdp = 17;

struct UdpAddressing {
  Ipv4 source, destination;
  std::uint16_t source_port = 0, destination_port = 0;
  std::uint8_t type_of_service = 0;
};

// Fills `headers` (IPv4 then UDP, both checksummed) for a datagram carrying `payload`, which
// follows the headers on the wire. `payload` must fit in one unfragmented packet.
void write_ipv4_udp_headers(std::span<std::uint8_t, kIpv4UdpHeadersSize> headers,
                            const UdpAddressing& addressing, std::span<const std::uint8_t> payload);

// RFC 1071 internet checksum (folded, inverted) of `bytes` added to `initial`, a sum of 16-bit
// words such as a pseudo-header's. A header that carries its correct checksum sums to 0.
std::uint16_t internet_checksum(std::span<const std::uint8_t> bytes, std::uint32_t initial = 0);

}  // namespace landlord::wire
