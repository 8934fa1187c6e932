// UDP as a relay agent. Batches with sendmmsg/recvmmsg: issue #6 wants the simulator to move
// many packets per CPU-second, and a system call per packet would dominate.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "landlord/sim/transport.hpp"

namespace landlord::sim {

namespace {

constexpr std::size_t kBatch = 64;
constexpr std::size_t kSlotBytes = 1500;
constexpr std::size_t kMaxBatchesPerPoll = 16;  // then let the fleet's timers run
constexpr int kSocketBufferBytes = 8 << 20;
constexpr std::uint8_t kRelayPortSubOption = 19;  // RFC 8357
// Sub-option 19 is empty in DHCPv4 (RFC 8357 §5.1): "reply to the UDP source port".
constexpr std::array<std::uint8_t, 2> kRelayAgentInfo = {kRelayPortSubOption, 0};

sockaddr_in to_sockaddr(Endpoint endpoint) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(endpoint.port);
  address.sin_addr.s_addr = htonl(endpoint.address.to_uint());
  return address;
}

class RelayTransport final : public Transport {
 public:
  RelayTransport(int fd, Endpoint server, Endpoint bound)
      : fd_(fd), server_(to_sockaddr(server)), server_endpoint_(server), bound_(bound) {}
  ~RelayTransport() override { ::close(fd_); }
  RelayTransport(const RelayTransport&) = delete;
  RelayTransport& operator=(const RelayTransport&) = delete;

  void send(Transmission& transmission) override {
    wire::Message& message = transmission.message;
    message.giaddr = bound_.address;
    message.hops = 1;
    message.options.set(wire::option::kRelayAgentInfo, kRelayAgentInfo);
    const auto built = wire::build(message, out_[queued_]);
    if (!built) return;
    out_size_[queued_] = built->size;
    if (pcap_) capture(out_[queued_], built->size, bound_, server_endpoint_);
    if (++queued_ == kBatch) flush();
  }

  void flush() override {
    std::size_t done = 0;
    while (done < queued_) {
      std::array<mmsghdr, kBatch> headers{};
      std::array<iovec, kBatch> vectors{};
      const std::size_t count = queued_ - done;
      for (std::size_t i = 0; i < count; ++i) {
        vectors[i] = {out_[done + i].data(), out_size_[done + i]};
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_name = &server_;
        headers[i].msg_hdr.msg_namelen = sizeof(server_);
      }
      const int sent = ::sendmmsg(fd_, headers.data(), static_cast<unsigned>(count), 0);
      if (sent < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          pollfd writable{fd_, POLLOUT, 0};
          ::poll(&writable, 1, 10);
          continue;
        }
        ++send_errors_;
        break;  // e.g. ECONNREFUSED from a previous datagram: drop this batch, keep running
      }
      done += static_cast<std::size_t>(sent);
    }
    queued_ = 0;
  }

  std::size_t poll(Duration timeout, const Receiver& receiver) override {
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(timeout.count())) <= 0) return 0;
    std::size_t received = 0;
    for (std::size_t batch = 0; batch < kMaxBatchesPerPoll; ++batch) {
      std::array<mmsghdr, kBatch> headers{};
      std::array<iovec, kBatch> vectors{};
      std::array<sockaddr_in, kBatch> sources{};
      for (std::size_t i = 0; i < kBatch; ++i) {
        vectors[i] = {in_[i].data(), in_[i].size()};
        headers[i].msg_hdr.msg_iov = &vectors[i];
        headers[i].msg_hdr.msg_iovlen = 1;
        headers[i].msg_hdr.msg_name = &sources[i];
        headers[i].msg_hdr.msg_namelen = sizeof(sources[i]);
      }
      const int count = ::recvmmsg(fd_, headers.data(), kBatch, MSG_DONTWAIT, nullptr);
      if (count <= 0) break;
      for (int i = 0; i < count; ++i) {
        const std::span<const std::uint8_t> payload{in_[static_cast<std::size_t>(i)].data(),
                                                    headers[static_cast<std::size_t>(i)].msg_len};
        if (pcap_) {
          const Endpoint from{Ipv4{ntohl(sources[static_cast<std::size_t>(i)].sin_addr.s_addr)},
                              ntohs(sources[static_cast<std::size_t>(i)].sin_port)};
          capture(payload, from, bound_);
        }
        receiver(payload);
      }
      received += static_cast<std::size_t>(count);
      if (static_cast<std::size_t>(count) < kBatch) break;
    }
    return received;
  }

  std::span<const std::uint8_t> relay_agent_info() const override { return kRelayAgentInfo; }
  std::string name() const override { return "relay"; }
  std::string note() const override {
    return fmt::format(
        "renew and rebind both relayed; unicast/broadcast distinction not exercised (giaddr {}:{}, "
        "server {}:{})",
        bound_.address.to_string(), bound_.port, server_endpoint_.address.to_string(),
        server_endpoint_.port);
  }

 private:
  // pcap files get made-up Ethernet headers around the real IP/UDP datagram.
  void capture(std::span<const std::uint8_t> payload, Endpoint from, Endpoint to) {
    frames::UdpEndpoints endpoints;
    endpoints.source = from.address;
    endpoints.destination = to.address;
    endpoints.source_port = from.port;
    endpoints.destination_port = to.port;
    frames::build_udp(endpoints, payload, frame_);
    pcap_->write(frame_);
  }
  void capture(const std::array<std::uint8_t, kSlotBytes>& slot, std::size_t size, Endpoint from,
               Endpoint to) {
    capture(std::span<const std::uint8_t>{slot.data(), size}, from, to);
  }

  int fd_;
  sockaddr_in server_;
  Endpoint server_endpoint_;
  Endpoint bound_;
  std::array<std::array<std::uint8_t, kSlotBytes>, kBatch> out_{};
  std::array<std::size_t, kBatch> out_size_{};
  std::size_t queued_ = 0;
  std::array<std::array<std::uint8_t, wire::kMaxPacketSize>, kBatch> in_{};
  std::size_t send_errors_ = 0;
  std::vector<std::uint8_t> frame_;
};

}  // namespace

std::optional<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port) {
  Endpoint endpoint{{}, default_port};
  const auto colon = text.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5) return std::nullopt;
    unsigned value = 0;
    for (const char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535) return std::nullopt;
    endpoint.port = static_cast<std::uint16_t>(value);
    text = text.substr(0, colon);
  }
  const auto address = Ipv4::parse(text);
  if (!address) return std::nullopt;
  endpoint.address = *address;
  return endpoint;
}

Expected<std::unique_ptr<Transport>, std::string> open_relay_transport(Endpoint server,
                                                                       Endpoint bind) {
  if (bind.address.is_zero()) {
    return unexpected(std::string("--bind needs a concrete address: it becomes giaddr"));
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return unexpected(fmt::format("socket: {}", std::strerror(errno)));
  const int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBufferBytes, sizeof(kSocketBufferBytes));
  sockaddr_in local = to_sockaddr(bind);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof(local)) != 0) {
    const int error = errno;
    ::close(fd);
    return unexpected(
        fmt::format("bind {}:{}: {}", bind.address.to_string(), bind.port, std::strerror(error)));
  }
  socklen_t length = sizeof(local);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length);
  bind.port = ntohs(local.sin_port);
  return std::unique_ptr<Transport>(new RelayTransport(fd, server, bind));
}

}  // namespace landlord::sim
