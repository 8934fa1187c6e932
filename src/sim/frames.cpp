#include "landlord/sim/frames.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace landlord::sim::frames {

namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeArp = 0x0806;
constexpr std::uint8_t kProtocolUdp = 17;

void put16(std::uint8_t* at, std::uint16_t value) {
  at[0] = static_cast<std::uint8_t>(value >> 8);
  at[1] = static_cast<std::uint8_t>(value);
}
void put32(std::uint8_t* at, std::uint32_t value) {
  put16(at, static_cast<std::uint16_t>(value >> 16));
  put16(at + 2, static_cast<std::uint16_t>(value));
}
std::uint16_t get16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>(at[0] << 8 | at[1]);
}
std::uint32_t get32(const std::uint8_t* at) {
  return std::uint32_t{get16(at)} << 16 | get16(at + 2);
}

}  // namespace

// RFC 1071 §2(B): the one's-complement sum does not depend on byte order, so the bytes are
// summed 8 at a time in the host's order and the folded sum swapped once. Two frames per DORA
// pass through here; word by word it was the simulator's largest user-space cost.
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

void build_udp(const UdpEndpoints& e, std::span<const std::uint8_t> payload,
               std::vector<std::uint8_t>& out) {
  out.resize(kHeaders + payload.size());
  std::uint8_t* eth = out.data();
  std::copy(e.destination_mac.begin(), e.destination_mac.end(), eth);
  std::copy(e.source_mac.begin(), e.source_mac.end(), eth + 6);
  put16(eth + 12, kEtherTypeIpv4);

  std::uint8_t* ip = eth + kEthernetHeader;
  const auto ip_length = static_cast<std::uint16_t>(kIpv4Header + kUdpHeader + payload.size());
  ip[0] = 0x45;  // version 4, 20-byte header
  ip[1] = 0x10;  // low delay, as DHCP clients commonly send
  put16(ip + 2, ip_length);
  put16(ip + 4, 0);       // identification
  put16(ip + 6, 0x4000);  // don't fragment
  ip[8] = 64;             // TTL
  ip[9] = kProtocolUdp;
  put16(ip + 10, 0);
  put32(ip + 12, e.source.to_uint());
  put32(ip + 16, e.destination.to_uint());
  put16(ip + 10, internet_checksum({ip, kIpv4Header}));

  std::uint8_t* udp = ip + kIpv4Header;
  const auto udp_length = static_cast<std::uint16_t>(kUdpHeader + payload.size());
  put16(udp, e.source_port);
  put16(udp + 2, e.destination_port);
  put16(udp + 4, udp_length);
  put16(udp + 6, 0);
  std::copy(payload.begin(), payload.end(), udp + kUdpHeader);
  // The pseudo-header: addresses, protocol, UDP length (RFC 768).
  std::uint32_t pseudo = (e.source.to_uint() >> 16) + (e.source.to_uint() & 0xffff) +
                         (e.destination.to_uint() >> 16) + (e.destination.to_uint() & 0xffff) +
                         kProtocolUdp + udp_length;
  std::uint16_t checksum = internet_checksum({udp, udp_length}, pseudo);
  if (checksum == 0) checksum = 0xffff;  // 0 means "no checksum" in UDP over IPv4
  put16(udp + 6, checksum);
}

std::optional<UdpFrame> parse_udp(std::span<const std::uint8_t> frame) {
  if (frame.size() < kHeaders || get16(frame.data() + 12) != kEtherTypeIpv4) return std::nullopt;
  const std::uint8_t* ip = frame.data() + kEthernetHeader;
  const std::size_t ip_header = std::size_t{ip[0] & 0x0fu} * 4;
  if ((ip[0] >> 4) != 4 || ip_header < kIpv4Header || ip[9] != kProtocolUdp) return std::nullopt;
  if ((get16(ip + 6) & 0x3fff) != 0) return std::nullopt;  // a fragment
  const std::size_t ip_length = get16(ip + 2);
  if (ip_length < ip_header + kUdpHeader || kEthernetHeader + ip_length > frame.size()) {
    return std::nullopt;
  }
  const std::uint8_t* udp = ip + ip_header;
  const std::size_t udp_length = get16(udp + 4);
  if (udp_length < kUdpHeader || udp_length > ip_length - ip_header) return std::nullopt;

  UdpFrame parsed;
  std::copy(frame.begin(), frame.begin() + 6, parsed.endpoints.destination_mac.begin());
  std::copy(frame.begin() + 6, frame.begin() + 12, parsed.endpoints.source_mac.begin());
  parsed.endpoints.source = Ipv4{get32(ip + 12)};
  parsed.endpoints.destination = Ipv4{get32(ip + 16)};
  parsed.endpoints.source_port = get16(udp);
  parsed.endpoints.destination_port = get16(udp + 2);
  parsed.payload = {udp + kUdpHeader, udp_length - kUdpHeader};
  return parsed;
}

std::optional<ArpRequest> parse_arp_request(std::span<const std::uint8_t> frame) {
  constexpr std::size_t kArpLength = 28;
  if (frame.size() < kEthernetHeader + kArpLength || get16(frame.data() + 12) != kEtherTypeArp) {
    return std::nullopt;
  }
  const std::uint8_t* arp = frame.data() + kEthernetHeader;
  // Ethernet hardware (1), IPv4 protocol, 6- and 4-byte addresses, operation 1 (request).
  if (get16(arp) != 1 || get16(arp + 2) != kEtherTypeIpv4 || arp[4] != 6 || arp[5] != 4 ||
      get16(arp + 6) != 1) {
    return std::nullopt;
  }
  ArpRequest request;
  std::copy(arp + 8, arp + 14, request.sender_mac.begin());
  request.sender = Ipv4{get32(arp + 14)};
  request.target = Ipv4{get32(arp + 24)};
  return request;
}

std::vector<std::uint8_t> build_arp_reply(const ArpRequest& request, const Mac& owner) {
  std::vector<std::uint8_t> frame(kEthernetHeader + 28);
  std::uint8_t* eth = frame.data();
  std::copy(request.sender_mac.begin(), request.sender_mac.end(), eth);
  std::copy(owner.begin(), owner.end(), eth + 6);
  put16(eth + 12, kEtherTypeArp);
  std::uint8_t* arp = eth + kEthernetHeader;
  put16(arp, 1);
  put16(arp + 2, kEtherTypeIpv4);
  arp[4] = 6;
  arp[5] = 4;
  put16(arp + 6, 2);  // reply
  std::copy(owner.begin(), owner.end(), arp + 8);
  put32(arp + 14, request.target.to_uint());
  std::copy(request.sender_mac.begin(), request.sender_mac.end(), arp + 18);
  put32(arp + 24, request.sender.to_uint());
  return frame;
}

}  // namespace landlord::sim::frames
