#include "landlord/server/udp_frame.hpp"

namespace landlord::server {
namespace {

constexpr std::uint8_t kProtocolUdp = 17;
constexpr std::uint8_t kTimeToLive = 64;

void put16(std::uint8_t* at, std::uint16_t value) {
  at[0] = static_cast<std::uint8_t>(value >> 8);
  at[1] = static_cast<std::uint8_t>(value);
}

void put32(std::uint8_t* at, std::uint32_t value) {
  put16(at, static_cast<std::uint16_t>(value >> 16));
  put16(at + 2, static_cast<std::uint16_t>(value));
}

}  // namespace

std::uint32_t add_checksum_words(std::span<const std::uint8_t> bytes, std::uint32_t sum) {
  std::size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) sum += static_cast<std::uint32_t>(bytes[i] << 8 | bytes[i + 1]);
  if (i < bytes.size()) sum += static_cast<std::uint32_t>(bytes[i] << 8);  // odd byte, padded
  return sum;
}

std::uint16_t fold_checksum(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

void write_ipv4_udp_headers(std::span<std::uint8_t, kIpv4UdpHeadersSize> headers,
                            const UdpAddressing& addressing, std::span<const std::uint8_t> payload) {
  const auto udp_length = static_cast<std::uint16_t>(kUdpHeaderSize + payload.size());
  std::uint8_t* ip = headers.data();
  ip[0] = 0x45;  // version 4, 5 words
  ip[1] = 0;
  put16(ip + 2, static_cast<std::uint16_t>(kIpv4HeaderSize + udp_length));
  put16(ip + 4, 0);       // identification: never fragmented
  put16(ip + 6, 0x4000);  // don't fragment
  ip[8] = kTimeToLive;
  ip[9] = kProtocolUdp;
  put16(ip + 10, 0);
  put32(ip + 12, addressing.source.to_uint());
  put32(ip + 16, addressing.destination.to_uint());
  put16(ip + 10, fold_checksum(add_checksum_words({ip, kIpv4HeaderSize})));

  std::uint8_t* udp = ip + kIpv4HeaderSize;
  put16(udp, addressing.source_port);
  put16(udp + 2, addressing.destination_port);
  put16(udp + 4, udp_length);
  put16(udp + 6, 0);
  // Pseudo-header (addresses, protocol, length), then the UDP header and the payload.
  std::uint32_t sum = add_checksum_words({ip + 12, 8});
  sum += kProtocolUdp + udp_length;
  sum = add_checksum_words({udp, kUdpHeaderSize}, sum);
  sum = add_checksum_words(payload, sum);
  const std::uint16_t checksum = fold_checksum(sum);
  put16(udp + 6, checksum == 0 ? 0xffff : checksum);  // 0 means "no checksum" in UDP
}

}  // namespace landlord::server
