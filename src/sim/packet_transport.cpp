// Ethernet frames on an interface through an AF_PACKET socket: the lab transport. Each client
// speaks from its own MAC, broadcasts what RFC 2131 §4.4.4 says to broadcast, unicasts RENEW
// from its leased address, and answers ARP for that address so unicast replies reach it.
#include <arpa/inet.h>
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

#include <fmt/format.h>

#include "landlord/sim/transport.hpp"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

namespace landlord::sim {

namespace {

constexpr std::size_t kMaxFramesPerPoll = 1024;  // then let the fleet's timers run
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
      : fd_(fd), interface_(std::move(interface)), holder_of_(std::move(holder_of)) {}
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
      endpoints.destination_mac = known != server_macs_.end() ? known->second : frames::kBroadcastMac;
    } else {
      endpoints.destination = kBroadcast;
      endpoints.destination_mac = frames::kBroadcastMac;
    }
    frames::build_udp(endpoints, {payload_.data(), built->size}, frame_);
    transmit(frame_);
  }

  void flush() override {}

  std::size_t poll(Duration timeout, const Receiver& receiver) override {
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(timeout.count())) <= 0) return 0;
    std::size_t received = 0;
    for (std::size_t i = 0; i < kMaxFramesPerPoll; ++i) {
      sockaddr_ll from{};
      socklen_t from_length = sizeof(from);
      const ssize_t size = ::recvfrom(fd_, in_.data(), in_.size(), MSG_DONTWAIT,
                                      reinterpret_cast<sockaddr*>(&from), &from_length);
      if (size <= 0) break;
      if (from.sll_pkttype == PACKET_OUTGOING) continue;  // kernels without IGNORE_OUTGOING
      const std::span<const std::uint8_t> frame{in_.data(), static_cast<std::size_t>(size)};
      if (const auto request = frames::parse_arp_request(frame)) {
        answer_arp(*request);
        continue;
      }
      const auto udp = frames::parse_udp(frame);
      if (!udp || udp->endpoints.destination_port != frames::kDhcpClientPort) continue;
      // The server's MAC, for unicasting RENEWs and RELEASEs to it without ARP.
      if (!udp->endpoints.source.is_zero()) server_macs_[udp->endpoints.source] = udp->endpoints.source_mac;
      if (pcap_) pcap_->write(frame);
      receiver(udp->payload);
      ++received;
    }
    return received;
  }

  std::string name() const override { return "l2"; }
  std::string note() const override {
    return fmt::format(
        "Ethernet frames on {}: broadcast DISCOVER/REQUEST/REBIND, unicast RENEW/RELEASE to the "
        "server, ARP answered for held addresses",
        interface_);
  }

 private:
  void answer_arp(const frames::ArpRequest& request) {
    const auto owner = holder_of_(request.target);
    if (!owner) return;
    const auto reply = frames::build_arp_reply(request, mac_of(*owner));
    transmit(reply);
    ++arp_answered_;
  }

  void transmit(std::span<const std::uint8_t> frame) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (::send(fd_, frame.data(), frame.size(), 0) >= 0) break;
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS && errno != EINTR) break;
      pollfd writable{fd_, POLLOUT, 0};
      ::poll(&writable, 1, 1);
    }
    if (pcap_) pcap_->write(frame);
  }

  int fd_;
  std::string interface_;
  ArpOwner holder_of_;
  std::unordered_map<Ipv4, frames::Mac> server_macs_;
  std::array<std::uint8_t, wire::kMaxPacketSize> payload_{};
  std::array<std::uint8_t, 9216> in_{};
  std::vector<std::uint8_t> frame_;
  std::size_t arp_answered_ = 0;
};

}  // namespace

Expected<std::unique_ptr<Transport>, std::string> open_packet_transport(const std::string& interface,
                                                                        ArpOwner holder_of) {
  const unsigned index = ::if_nametoindex(interface.c_str());
  if (index == 0) return unexpected(fmt::format("interface {}: {}", interface, std::strerror(errno)));
  const int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0) return unexpected(fmt::format("AF_PACKET socket (needs CAP_NET_RAW): {}", std::strerror(errno)));
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
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  return std::unique_ptr<Transport>(new PacketTransport(fd, interface, std::move(holder_of)));
}

}  // namespace landlord::sim
