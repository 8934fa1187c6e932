// dhcp_frames: what the lab tests need to know about a capture, one line per frame, read from
// the bytes (tcpdump's text decodes would hide e.g. a changed byte inside option 82):
//   dhcp frame=N eth_src=MAC eth_dst=MAC ip_src=A ip_dst=A op=request|reply type=T xid=0x...
//        ciaddr=A yiaddr=A giaddr=A chaddr=MAC broadcast_flag=0|1 option82=HEX|none
//   arp frame=N eth_src=MAC eth_dst=MAC op=request|reply sender=A target=A
// Frames of other kinds, and UDP datagrams on other ports, are left out; a DHCP datagram that
// does not parse is a line "dhcp frame=N unparsable". Exit 2 if the file cannot be read.
// Usage: dhcp_frames CAPTURE.pcap
#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>
#include <string>

#include "../support/pcap_reader.hpp"
#include "landlord/wire/message.hpp"

namespace {

using namespace landlord;

std::string mac_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  char text[18];
  std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", bytes[at], bytes[at + 1],
                bytes[at + 2], bytes[at + 3], bytes[at + 4], bytes[at + 5]);
  return text;
}

std::string ipv4_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return Ipv4{bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]}.to_string();
}

std::string hex(std::span<const std::uint8_t> bytes) {
  std::string text;
  char pair[3];
  for (const std::uint8_t byte : bytes) {
    std::snprintf(pair, sizeof pair, "%02x", byte);
    text += pair;
  }
  return text;
}

void print_arp(const test::Frame& frame) {
  const std::span<const std::uint8_t> bytes{frame.bytes};
  constexpr std::size_t kArp = 14;
  if (bytes.size() < kArp + 28) return;
  const unsigned operation = bytes[kArp + 6] << 8 | bytes[kArp + 7];
  std::printf("arp frame=%zu eth_src=%s eth_dst=%s op=%s sender=%s target=%s\n",
              frame.frame_number, mac_at(bytes, 6).c_str(), mac_at(bytes, 0).c_str(),
              operation == 1 ? "request" : "reply", ipv4_at(bytes, kArp + 14).c_str(),
              ipv4_at(bytes, kArp + 24).c_str());
}

void print_dhcp(const test::Frame& frame, const test::UdpDatagram& datagram) {
  const std::span<const std::uint8_t> bytes{frame.bytes};
  const auto parsed = wire::parse(std::span{datagram.payload.data(), datagram.payload.size()});
  if (!parsed) {
    std::printf("dhcp frame=%zu unparsable\n", frame.frame_number);
    return;
  }
  const wire::Message& message = *parsed;
  const auto type = message.type();
  const auto agent = message.options.get(wire::option::kRelayAgentInfo);
  std::printf(
      "dhcp frame=%zu eth_src=%s eth_dst=%s ip_src=%s ip_dst=%s op=%s type=%s xid=0x%08x "
      "ciaddr=%s yiaddr=%s giaddr=%s chaddr=%s broadcast_flag=%d option82=%s\n",
      frame.frame_number, mac_at(bytes, 6).c_str(), mac_at(bytes, 0).c_str(),
      Ipv4{datagram.source_address}.to_string().c_str(),
      Ipv4{datagram.destination_address}.to_string().c_str(),
      message.op == wire::Op::BootReply ? "reply" : "request",
      type ? std::string(wire::to_string(*type)).c_str() : "none", message.xid,
      message.ciaddr.to_string().c_str(), message.yiaddr.to_string().c_str(),
      message.giaddr.to_string().c_str(), mac_at(message.chaddr, 0).c_str(),
      message.broadcast() ? 1 : 0,
      message.options.has(wire::option::kRelayAgentInfo) ? hex(agent).c_str() : "none");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CAPTURE.pcap\n", argv[0]);
    return 2;
  }
  try {
    for (const test::Frame& frame : test::read_frames(argv[1])) {
      if (frame.bytes.size() < 14) continue;
      const unsigned ether_type = frame.bytes[12] << 8 | frame.bytes[13];
      if (ether_type == 0x0806) {
        print_arp(frame);
        continue;
      }
      test::UdpDatagram datagram;
      if (!test::decode_udp(frame.bytes, datagram)) continue;
      const auto is_dhcp = [](std::uint16_t port) { return port == 67 || port == 68; };
      if (!is_dhcp(datagram.source_port) && !is_dhcp(datagram.destination_port)) continue;
      print_dhcp(frame, datagram);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "dhcp_frames: %s\n", error.what());
    return 2;
  }
  return 0;
}
