#pragma once
// The IPv4 and UDP headers of a reply sent as a link-layer frame (AF_PACKET, SOCK_DGRAM: the
// kernel adds the Ethernet header with the interface's MAC). Pure, so the checksums are tested
// without a socket.
#include <cstddef>
#include <cstdint>
#include <span>

#include "landlord/base/ipv4.hpp"

namespace landlord::server {

inline constexpr std::size_t kIpv4HeaderSize = 20;
inline constexpr std::size_t kUdpHeaderSize = 8;
inline constexpr std::size_t kIpv4UdpHeadersSize = kIpv4HeaderSize + kUdpHeaderSize;

struct UdpAddressing {
  Ipv4 source, destination;
  std::uint16_t source_port = 0, destination_port = 0;
};

// Fills `headers` (IPv4 then UDP, both checksummed) for a datagram carrying `payload`, which
// follows the headers on the wire. `payload` must fit in one unfragmented packet.
void write_ipv4_udp_headers(std::span<std::uint8_t, kIpv4UdpHeadersSize> headers,
                            const UdpAddressing& addressing, std::span<const std::uint8_t> payload);

// RFC 1071 ones'-complement sum of `bytes` added to `sum` (not folded, not inverted).
std::uint32_t add_checksum_words(std::span<const std::uint8_t> bytes, std::uint32_t sum = 0);
std::uint16_t fold_checksum(std::uint32_t sum);  // folded and inverted

}  // namespace landlord::server
