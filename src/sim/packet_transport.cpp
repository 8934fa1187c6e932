// Ethernet frames on an interface through an AF_PACKET socket: the lab transport. Each client
// speaks from its own MAC, broadcasts what RFC 2131 §4.4.4 says to broadcast, unicasts RENEW
// from its leased address, and answers ARP for that address so unicast replies reach it.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "landlord/sim/transport.hpp"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

namespace landlord::sim {

namespace {

constexpr std::size_t kMaxFramesPerPoll = 1024;  // then let the fleet's timers run
constexpr std::size_t kBatch = 64;
constexpr std::size_t kSlotBytes = 1518;
// Replies are read with recvmmsg into this socket's queue, not from a PACKET_RX_RING: a
// TPACKET_V2 ring (tried at 16 and 64 MiB) saved no simulator CPU at 40k DORA/s, cost the
// server ~1.5 us per DORA (it copies each reply into the cold ring) and raised REQUEST->ACK p99
// from 3-9 ms to 40-50 ms.
constexpr int kSocketBufferBytes = 8 << 20;

frames::Mac mac_of(const HardwareAddress& hardware) {
  frames::Mac mac{};
  const auto bytes = hardware.bytes();
  std::copy_n(bytes.begin(), std::min<std::size_t>(bytes.size(), mac.size()), mac.begin());
  return mac;
}

class PacketTransport final : public Transport {
 public:
  PacketTransport(int fd, std::string interface, ArpOwner holder_of)
      : fd_(fd), interface_(std::move(interface)), holder_of_(std::move(holder_of)) {
    // The receive headers point at fixed buffers: set once, not at every recvmmsg.
    for (std::size_t i = 0; i < kBatch; ++i) {
      in_vectors_[i] = {in_[i].data(), in_[i].size()};
      in_headers_[i].msg_hdr.msg_iov = &in_vectors_[i];
      in_headers_[i].msg_hdr.msg_iovlen = 1;
      in_headers_[i].msg_hdr.msg_name = &in_sources_[i];
    }
  }
  ~PacketTransport() override { ::close(fd_); }
  PacketTransport(const PacketTransport&) = delete;
  PacketTransport& operator=(const PacketTransport&) = delete;

  void send(Transmission& transmission) override {
    const wire::Message& message = transmission.message;
    const auto built = wire::build(message, payload_);
    if (!built) return;
    frames::UdpEndpoints endpoints;
    endpoints.source_mac = mac_of(message.hardware_address());
    endpoints.source_port = frames::kDhcpClientPort;
    endpoints.destination_port = frames::kDhcpServerPort;
    // §4.1: a client without an address sends from 0.0.0.0; RENEWING, REBINDING and RELEASE
    // come from the leased address (ciaddr).
    endpoints.source = message.ciaddr;
    if (transmission.destination == Destination::ServerUnicast) {
      endpoints.destination = transmission.server;
      const auto known = server_macs_.find(transmission.server);
      endpoints.destination_mac =
          known != server_macs_.end() ? known->second : frames::kBroadcastMac;
    } else {
      endpoints.destination = kBroadcast;
      endpoints.destination_mac = frames::kBroadcastMac;
    }
    frames::build_udp(endpoints, {payload_.data(), built->size}, frame_);
    queue(frame_);
  }

  // One sendmmsg per batch: with a system call per frame, the kernel dominates the CPU time.
  void flush() override {
    std::size_t done = 0;
    for (int stalls = 0; done < queued_ && stalls < 100;) {
      // Only the entries in use are set: zeroing all 64 each time cost more than the rest.
      std::array<mmsghdr, kBatch> headers;
      std::array<iovec, kBatch> vectors;
      const std::size_t count = queued_ - done;
      for (std::size_t i = 0; i < count; ++i) {
        vectors[i] = {out_[done + i].data(), out_size_[done + i]};
        headers[i] = {};
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
      }
      const int sent = ::sendmmsg(fd_, headers.data(), static_cast<unsigned>(count), 0);
      if (sent > 0) {
        done += static_cast<std::size_t>(sent);
        continue;
      }
      if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS &&
          errno != EINTR) {
        break;  // this batch is lost; the clients' retransmissions recover
      }
      ++stalls;
      pollfd writable{fd_, POLLOUT, 0};
      ::poll(&writable, 1, 1);
    }
    queued_ = 0;
  }

  std::size_t poll(Duration timeout, const Receiver& receiver) override {
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(timeout.count())) <= 0) return 0;
    std::size_t received = 0;
    for (std::size_t batch = 0; batch < kMaxFramesPerPoll / kBatch; ++batch) {
      for (mmsghdr& header : in_headers_) header.msg_hdr.msg_namelen = sizeof(sockaddr_ll);
      const int count = ::recvmmsg(fd_, in_headers_.data(), kBatch, MSG_DONTWAIT, nullptr);
      if (count <= 0) break;
      for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
        if (in_sources_[i].sll_pkttype == PACKET_OUTGOING) continue;  // no IGNORE_OUTGOING
        received += handle({in_[i].data(), in_headers_[i].msg_len}, receiver);
      }
      if (static_cast<std::size_t>(count) < kBatch) break;
    }
    return received;
  }

  // PACKET_STATISTICS counts since it was last read, so the drops are added up here.
  std::optional<std::size_t> receive_drops() override {
    tpacket_stats stats{};
    socklen_t length = sizeof(stats);
    if (::getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &stats, &length) != 0) return std::nullopt;
    receive_drops_ += stats.tp_drops;
    return receive_drops_;
  }

  std::string name() const override { return "l2"; }
  std::string note() const override {
    return fmt::format(
        "Ethernet frames on {}: broadcast DISCOVER/REQUEST/REBIND, unicast RENEW/RELEASE to the "
        "server, ARP answered for held addresses",
        interface_);
  }

 private:
  std::size_t handle(std::span<const std::uint8_t> frame, const Receiver& receiver) {
    if (const auto request = frames::parse_arp_request(frame)) {
      if (pcap_) pcap_->write(frame);
      answer_arp(*request);
      return 0;
    }
    const auto udp = frames::parse_udp(frame);
    if (!udp || udp->endpoints.destination_port != frames::kDhcpClientPort) return 0;
    // The server's MAC, for unicasting RENEWs and RELEASEs to it without ARP.
    if (!udp->endpoints.source.is_zero())
      server_macs_[udp->endpoints.source] = udp->endpoints.source_mac;
    if (pcap_) pcap_->write(frame);
    receiver(udp->payload);
    return 1;
  }

  void answer_arp(const frames::ArpRequest& request) {
    const auto owner = holder_of_(request.target);
    if (!owner) return;
    queue(frames::build_arp_reply(request, mac_of(*owner)));
  }

  void queue(std::span<const std::uint8_t> frame) {
    if (frame.size() > kSlotBytes) return;
    std::copy(frame.begin(), frame.end(), out_[queued_].begin());
    out_size_[queued_] = frame.size();
    if (pcap_) pcap_->write(frame);
    if (++queued_ == kBatch) flush();
  }

  int fd_;
  std::size_t receive_drops_ = 0;
  std::string interface_;
  ArpOwner holder_of_;
  std::unordered_map<Ipv4, frames::Mac> server_macs_;
  std::array<std::uint8_t, wire::kMaxPacketSize> payload_{};
  std::array<std::array<std::uint8_t, 2048>, kBatch> in_{};
  std::array<iovec, kBatch> in_vectors_{};
  std::array<sockaddr_ll, kBatch> in_sources_{};
  std::array<mmsghdr, kBatch> in_headers_{};
  std::vector<std::uint8_t> frame_;
  std::array<std::array<std::uint8_t, kSlotBytes>, kBatch> out_{};
  std::array<std::size_t, kBatch> out_size_{};
  std::size_t queued_ = 0;
};

}  // namespace

Expected<std::unique_ptr<Transport>, std::string> open_packet_transport(
    const std::string& interface, ArpOwner holder_of) {
  const unsigned index = ::if_nametoindex(interface.c_str());
  if (index == 0)
    return unexpected(fmt::format("interface {}: {}", interface, std::strerror(errno)));
  const int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0)
    return unexpected(
        fmt::format("AF_PACKET socket (needs CAP_NET_RAW): {}", std::strerror(errno)));
  sockaddr_ll local{};
  local.sll_family = AF_PACKET;
  local.sll_protocol = htons(ETH_P_ALL);
  local.sll_ifindex = static_cast<int>(index);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof(local)) != 0) {
    const int error = errno;
    ::close(fd);
    return unexpected(fmt::format("bind to {}: {}", interface, std::strerror(error)));
  }
  // Replies go to each client's own MAC, not the interface's: listen to them all.
  packet_mreq promiscuous{};
  promiscuous.mr_ifindex = static_cast<int>(index);
  promiscuous.mr_type = PACKET_MR_PROMISC;
  ::setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promiscuous, sizeof(promiscuous));
  const int yes = 1;
  ::setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &yes, sizeof(yes));
  // Promiscuous on a busy link: let the kernel keep only what we read. This is
  // `tcpdump -dd "arp or (ip and udp dst port 68)"` (frames up to 256 KiB).
  static const std::array<sock_filter, 12> kFilter = {{
      {0x28, 0, 0, 0x0000000c},
      {0x15, 8, 0, 0x00000806},
      {0x15, 0, 8, 0x00000800},
      {0x30, 0, 0, 0x00000017},
      {0x15, 0, 6, 0x00000011},
      {0x28, 0, 0, 0x00000014},
      {0x45, 4, 0, 0x00001fff},
      {0xb1, 0, 0, 0x0000000e},
      {0x48, 0, 0, 0x00000010},
      {0x15, 0, 1, 0x00000044},
      {0x6, 0, 0, 0x00040000},
      {0x6, 0, 0, 0x00000000},
  }};
  const sock_fprog program{static_cast<unsigned short>(kFilter.size()),
                           const_cast<sock_filter*>(kFilter.data())};
  ::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof(program));
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  return std::unique_ptr<Transport>(new PacketTransport(fd, interface, std::move(holder_of)));
}

}  // namespace landlord::sim
