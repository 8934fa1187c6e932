#pragma once
// Ethernet, IPv4, UDP and ARP framing for the L2 transport and for pcap files: pure functions
// over byte spans, so checksums and parsing are tested without a socket.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "landlord/base/ipv4.hpp"

namespace landlord::sim::frames {

using Mac = std::array<std::uint8_t, 6>;
inline constexpr Mac kBroadcastMac = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
inline constexpr std::uint16_t kDhcpServerPort = 67;
inline constexpr std::uint16_t kDhcpClientPort = 68;
inline constexpr std::size_t kEthernetHeader = 14;
inline constexpr std::size_t kIpv4Header = 20;
inline constexpr std::size_t kUdpHeader = 8;
inline constexpr std::size_t kHeaders = kEthernetHeader + kIpv4Header + kUdpHeader;

struct UdpEndpoints {
  Mac source_mac{}, destination_mac{};
  Ipv4 source, destination;
  std::uint16_t source_port = 0, destination_port = 0;
};

// Writes an Ethernet/IPv4/UDP frame around `payload` into `out` (resized), with IP and UDP
// checksums (the IPv4/UDP part by wire/ip_udp.hpp, as the server's frames).
void build_udp(const UdpEndpoints& endpoints, std::span<const std::uint8_t> payload,
               std::vector<std::uint8_t>& out);

struct UdpFrame {
  UdpEndpoints endpoints;
  std::span<const std::uint8_t> payload;
};
// An IPv4/UDP frame with valid lengths (fragments are refused); nullopt for anything else.
std::optional<UdpFrame> parse_udp(std::span<const std::uint8_t> frame);

struct ArpRequest {
  Mac sender_mac{};
  Ipv4 sender, target;
};
// An Ethernet/IPv4 ARP request ("who has target?"); nullopt for anything else.
std::optional<ArpRequest> parse_arp_request(std::span<const std::uint8_t> frame);
// The reply "target is at `owner`", sent back to the requester.
std::vector<std::uint8_t> build_arp_reply(const ArpRequest& request, const Mac& owner);

}  // namespace landlord::sim::frames
