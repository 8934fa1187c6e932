#include "landlord/wire/ip_udp.hpp"

#include <array>
#include <bit>
#include <cstring>

#include "landlord/base/big_endian.hpp"

namespace landlord::wire {
namespace {

constexpr std::uint8_t kTimeToLive = 64;

}  // namespace

// RFC 1071 §2(B): the one's-complement sum does not depend on byte order, so the bytes are
// summed 8 at a time in the host's order and the folded sum swapped once. Every frame the
// server and the simulator send passes through here.
std::uint16_t internet_checksum(std::span<const std::uint8_t> bytes, std::uint32_t initial) {
  const std::uint8_t* at = bytes.data();
  std::size_t left = bytes.size();
  std::uint64_t sum = 0;
  for (; left >= 8; at += 8, left -= 8) {
    std::uint64_t word;
    std::memcpy(&word, at, sizeof(word));
    sum += (word & 0xffffffffu) + (word >> 32);
  }
  for (; left >= 2; at += 2, left -= 2) {
    std::uint16_t half;
    std::memcpy(&half, at, sizeof(half));
    sum += half;
  }
  if (left == 1) {
    // An odd last byte is the high byte of a word padded with zero (network order).
    const std::array<std::uint8_t, 2> padded = {*at, 0};
    std::uint16_t half;
    std::memcpy(&half, padded.data(), sizeof(half));
    sum += half;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  auto folded = static_cast<std::uint16_t>(sum);
  if constexpr (std::endian::native == std::endian::little) {
    folded = static_cast<std::uint16_t>(folded << 8 | folded >> 8);
  }
  std::uint64_t total = std::uint64_t{folded} + initial;
  while (total >> 16) total = (total & 0xffff) + (total >> 16);
  return static_cast<std::uint16_t>(~total);
}

void write_ipv4_udp_headers(std::span<std::uint8_t, kIpv4UdpHeadersSize> headers,
                            const UdpAddressing& addressing, std::span<const std::uint8_t> payload) {
  const auto udp_length = static_cast<std::uint16_t>(kUdpHeaderSize + payload.size());
  std::uint8_t* ip = headers.data();
  ip[0] = 0x45;  // version 4, 5 words
  ip[1] = addressing.type_of_service;
  store_be16(ip + 2, static_cast<std::uint16_t>(kIpv4HeaderSize + udp_length));
  store_be16(ip + 4, 0);       // identification: never fragmented
  store_be16(ip + 6, 0x4000);  // don't fragment
  ip[8] = kTimeToLive;
  ip[9] = kProtocolUdp;
  store_be16(ip + 10, 0);
  store_be32(ip + 12, addressing.source.to_uint());
  store_be32(ip + 16, addressing.destination.to_uint());
  store_be16(ip + 10, internet_checksum({ip, kIpv4HeaderSize}));

  std::uint8_t* udp = ip + kIpv4HeaderSize;
  store_be16(udp, addressing.source_port);
  store_be16(udp + 2, addressing.destination_port);
  store_be16(udp + 4, udp_length);
  store_be16(udp + 6, 0);
  // The pseudo-header (addresses, protocol, UDP length; RFC 768) as a sum of words, then the
  // UDP header and the payload, which need not follow the header in memory.
  const std::uint32_t source = addressing.source.to_uint();
  const std::uint32_t destination = addressing.destination.to_uint();
  const std::uint32_t pseudo = (source >> 16) + (source & 0xffff) + (destination >> 16) +
                               (destination & 0xffff) + kProtocolUdp + udp_length;
  // The header's words, folded in as an initial sum: its checksum field is still 0.
  const std::uint16_t header_checksum = internet_checksum({udp, kUdpHeaderSize}, pseudo);
  std::uint16_t checksum =
      internet_checksum(payload, static_cast<std::uint16_t>(~header_checksum));
  if (checksum == 0) checksum = 0xffff;  // 0 means "no checksum" in UDP over IPv4
  store_be16(udp + 6, checksum);
}

}  // namespace landlord::wire
