#include "landlord/sim/frames.hpp"

#include <algorithm>
#include <array>

#include "landlord/base/big_endian.hpp"
#include "landlord/wire/ip_udp.hpp"

namespace landlord::sim::frames {

namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeArp = 0x0806;
using wire::kProtocolUdp;

}  // namespace

void build_udp(const UdpEndpoints& e, std::span<const std::uint8_t> payload,
               std::vector<std::uint8_t>& out) {
  out.resize(kHeaders + payload.size());
  std::uint8_t* eth = out.data();
  std::copy(e.destination_mac.begin(), e.destination_mac.end(), eth);
  std::copy(e.source_mac.begin(), e.source_mac.end(), eth + 6);
  store_be16(eth + 12, kEtherTypeIpv4);

  std::uint8_t* ip = eth + kEthernetHeader;
  std::copy(payload.begin(), payload.end(), ip + kIpv4Header + kUdpHeader);
  // Type of service "low delay", as DHCP clients commonly send.
  wire::write_ipv4_udp_headers(
      std::span<std::uint8_t, wire::kIpv4UdpHeadersSize>{ip, wire::kIpv4UdpHeadersSize},
      {e.source, e.destination, e.source_port, e.destination_port, 0x10}, payload);
}

std::optional<UdpFrame> parse_udp(std::span<const std::uint8_t> frame) {
  if (frame.size() < kHeaders || load_be16(frame.data() + 12) != kEtherTypeIpv4) return std::nullopt;
  const std::uint8_t* ip = frame.data() + kEthernetHeader;
  const std::size_t ip_header = std::size_t{ip[0] & 0x0fu} * 4;
  if ((ip[0] >> 4) != 4 || ip_header < kIpv4Header || ip[9] != kProtocolUdp) return std::nullopt;
  if ((load_be16(ip + 6) & 0x3fff) != 0) return std::nullopt;  // a fragment
  const std::size_t ip_length = load_be16(ip + 2);
  if (ip_length < ip_header + kUdpHeader || kEthernetHeader + ip_length > frame.size()) {
    return std::nullopt;
  }
  const std::uint8_t* udp = ip + ip_header;
  const std::size_t udp_length = load_be16(udp + 4);
  if (udp_length < kUdpHeader || udp_length > ip_length - ip_header) return std::nullopt;

  UdpFrame parsed;
  std::copy(frame.begin(), frame.begin() + 6, parsed.endpoints.destination_mac.begin());
  std::copy(frame.begin() + 6, frame.begin() + 12, parsed.endpoints.source_mac.begin());
  parsed.endpoints.source = Ipv4{load_be32(ip + 12)};
  parsed.endpoints.destination = Ipv4{load_be32(ip + 16)};
  parsed.endpoints.source_port = load_be16(udp);
  parsed.endpoints.destination_port = load_be16(udp + 2);
  parsed.payload = {udp + kUdpHeader, udp_length - kUdpHeader};
  return parsed;
}

std::optional<ArpRequest> parse_arp_request(std::span<const std::uint8_t> frame) {
  constexpr std::size_t kArpLength = 28;
  if (frame.size() < kEthernetHeader + kArpLength || load_be16(frame.data() + 12) != kEtherTypeArp) {
    return std::nullopt;
  }
  const std::uint8_t* arp = frame.data() + kEthernetHeader;
  // Ethernet hardware (1), IPv4 protocol, 6- and 4-byte addresses, operation 1 (request).
  if (load_be16(arp) != 1 || load_be16(arp + 2) != kEtherTypeIpv4 || arp[4] != 6 || arp[5] != 4 ||
      load_be16(arp + 6) != 1) {
    return std::nullopt;
  }
  ArpRequest request;
  std::copy(arp + 8, arp + 14, request.sender_mac.begin());
  request.sender = Ipv4{load_be32(arp + 14)};
  request.target = Ipv4{load_be32(arp + 24)};
  return request;
}

std::vector<std::uint8_t> build_arp_reply(const ArpRequest& request, const Mac& owner) {
  std::vector<std::uint8_t> frame(kEthernetHeader + 28);
  std::uint8_t* eth = frame.data();
  std::copy(request.sender_mac.begin(), request.sender_mac.end(), eth);
  std::copy(owner.begin(), owner.end(), eth + 6);
  store_be16(eth + 12, kEtherTypeArp);
  std::uint8_t* arp = eth + kEthernetHeader;
  store_be16(arp, 1);
  store_be16(arp + 2, kEtherTypeIpv4);
  arp[4] = 6;
  arp[5] = 4;
  store_be16(arp + 6, 2);  // reply
  std::copy(owner.begin(), owner.end(), arp + 8);
  store_be32(arp + 14, request.target.to_uint());
  std::copy(request.sender_mac.begin(), request.sender_mac.end(), arp + 18);
  store_be32(arp + 24, request.sender.to_uint());
  return frame;
}

}  // namespace landlord::sim::frames
