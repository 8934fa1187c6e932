#pragma once
// A tiny reader of classic pcap files (not pcapng) for tests: the frames, and the UDP datagrams
// carried in Ethernet / IPv4 frames, with their frame number. No libpcap: captures are test vectors.
// Header-only; include it by relative path (e.g. "../../support/pcap_reader.hpp").
// Malformed files throw std::runtime_error (test code: a broken vector should fail loudly).
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace landlord::test {

struct UdpDatagram {
  std::size_t frame_number = 0;  // 1-based, as tcpdump and Wireshark count
  std::uint32_t source_address = 0;       // host byte order
  std::uint32_t destination_address = 0;  // host byte order
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::vector<std::uint8_t> payload;
};

namespace pcap_detail {

inline std::uint32_t read_u32(std::span<const std::uint8_t> bytes, std::size_t at, bool swapped) {
  const std::uint32_t little = std::uint32_t{bytes[at]} | std::uint32_t{bytes[at + 1]} << 8 |
                               std::uint32_t{bytes[at + 2]} << 16 | std::uint32_t{bytes[at + 3]} << 24;
  if (!swapped) return little;
  return (little >> 24) | ((little >> 8) & 0xff00u) | ((little << 8) & 0xff0000u) | (little << 24);
}

inline std::uint16_t read_be16(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint16_t>(bytes[at] << 8 | bytes[at + 1]);
}

inline std::uint32_t read_be32(std::span<const std::uint8_t> bytes, std::size_t at) {
  return std::uint32_t{read_be16(bytes, at)} << 16 | read_be16(bytes, at + 2);
}

// The UDP datagram in one Ethernet frame, or nothing if the frame carries something else.
inline bool decode_frame(std::span<const std::uint8_t> frame, UdpDatagram& out) {
  constexpr std::size_t kEthernetHeader = 14;
  constexpr std::uint16_t kVlan = 0x8100, kIpv4 = 0x0800;
  constexpr std::uint8_t kUdp = 17;
  if (frame.size() < kEthernetHeader) return false;
  std::size_t at = 12;
  std::uint16_t ether_type = read_be16(frame, at);
  at += 2;
  if (ether_type == kVlan) {
    if (frame.size() < at + 4) return false;
    ether_type = read_be16(frame, at + 2);
    at += 4;
  }
  if (ether_type != kIpv4 || frame.size() < at + 20) return false;
  const auto ip = frame.subspan(at);
  const std::size_t ip_header = std::size_t{ip[0] & 0x0fu} * 4;
  const std::size_t ip_total = read_be16(ip, 2);
  const bool fragment = (read_be16(ip, 6) & 0x3fffu) != 0;
  if ((ip[0] >> 4) != 4 || ip_header < 20 || ip_total < ip_header + 8 || ip_total > ip.size() ||
      ip[9] != kUdp || fragment) {
    return false;
  }
  const auto udp = ip.subspan(ip_header, ip_total - ip_header);
  const std::size_t udp_length = read_be16(udp, 4);
  if (udp_length < 8 || udp_length > udp.size()) return false;
  out.source_address = read_be32(ip, 12);
  out.destination_address = read_be32(ip, 16);
  out.source_port = read_be16(udp, 0);
  out.destination_port = read_be16(udp, 2);
  out.payload.assign(udp.begin() + 8, udp.begin() + static_cast<std::ptrdiff_t>(udp_length));
  return true;
}

}  // namespace pcap_detail

struct Frame {
  std::size_t frame_number = 0;  // 1-based, as tcpdump and Wireshark count
  std::vector<std::uint8_t> bytes;
};

// Every frame of an Ethernet capture, in capture order.
inline std::vector<Frame> read_frames(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open " + path);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
  const std::span<const std::uint8_t> all{bytes};

  constexpr std::size_t kFileHeader = 24, kRecordHeader = 16;
  constexpr std::uint32_t kMicroseconds = 0xa1b2c3d4, kNanoseconds = 0xa1b23c4d;
  constexpr std::uint32_t kLinkEthernet = 1;
  if (all.size() < kFileHeader) throw std::runtime_error(path + ": not a pcap file");
  const std::uint32_t magic = pcap_detail::read_u32(all, 0, false);
  bool swapped = false;
  if (magic != kMicroseconds && magic != kNanoseconds) {
    swapped = true;
    const std::uint32_t swapped_magic = pcap_detail::read_u32(all, 0, true);
    if (swapped_magic != kMicroseconds && swapped_magic != kNanoseconds) {
      throw std::runtime_error(path + ": not a classic pcap file");
    }
  }
  if (pcap_detail::read_u32(all, 20, swapped) != kLinkEthernet) {
    throw std::runtime_error(path + ": link type is not Ethernet");
  }

  std::vector<Frame> frames;
  std::size_t at = kFileHeader;
  for (std::size_t frame_number = 1; at < all.size(); ++frame_number) {
    if (all.size() - at < kRecordHeader) throw std::runtime_error(path + ": truncated record");
    const std::size_t captured = pcap_detail::read_u32(all, at + 8, swapped);
    at += kRecordHeader;
    if (all.size() - at < captured) throw std::runtime_error(path + ": truncated frame");
    const auto frame = all.subspan(at, captured);
    frames.push_back(Frame{frame_number, {frame.begin(), frame.end()}});
    at += captured;
  }
  return frames;
}

// The UDP datagram in one Ethernet frame, if it carries one.
inline bool decode_udp(std::span<const std::uint8_t> frame, UdpDatagram& out) {
  return pcap_detail::decode_frame(frame, out);
}

// Every UDP datagram in the file, in capture order; frames that are not Ethernet/IPv4/UDP are
// skipped (their frame numbers are not reused).
inline std::vector<UdpDatagram> read_udp_datagrams(const std::string& path) {
  std::vector<UdpDatagram> datagrams;
  for (const Frame& frame : read_frames(path)) {
    UdpDatagram datagram;
    datagram.frame_number = frame.frame_number;
    if (pcap_detail::decode_frame(frame.bytes, datagram)) datagrams.push_back(std::move(datagram));
  }
  return datagrams;
}

}  // namespace landlord::test
