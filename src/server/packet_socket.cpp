#include "packet_socket.hpp"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "landlord/base/assert.hpp"
#include "landlord/base/close_on_exec.hpp"
#include "landlord/wire/ip_udp.hpp"

namespace landlord::server {
namespace {

std::error_code last_error() { return {errno, std::generic_category()}; }

sockaddr_in to_sockaddr(Ipv4 address, std::uint16_t port) {
  sockaddr_in result{};
  result.sin_family = AF_INET;
  result.sin_addr.s_addr = htonl(address.to_uint());
  result.sin_port = htons(port);
  return result;
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<PacketSocket, std::string> PacketSocket::open(boost::asio::io_context& io,
                                                       const config::Endpoint& listen) {
  namespace ip = boost::asio::ip;
  boost::system::error_code error;
  ip::udp::socket socket{io};
  const ip::udp::endpoint endpoint{ip::address_v4{listen.address.to_uint()}, listen.port};
  const auto fail = [&](std::string_view what) {
    return unexpected(fmt::format("{} {}:{}: {}", what, listen.address.to_string(), listen.port,
                                  error.message()));
  };
  if (socket.open(ip::udp::v4(), error)) return fail("cannot open a socket for");
  if (!set_close_on_exec(socket.native_handle())) {
    error.assign(errno, boost::system::system_category());
    return fail("FD_CLOEXEC on");
  }
  // No SO_REUSEADDR: a second server on the same port must fail here, not share the port and
  // hand out addresses from a lease table of its own. (UDP has no TIME_WAIT: a restart right
  // after the last process exits binds without it.)
  if (socket.set_option(boost::asio::socket_base::broadcast(true), error))
    return fail("SO_BROADCAST on");
  const int on = 1;
  if (setsockopt(socket.native_handle(), IPPROTO_IP, IP_PKTINFO, &on, sizeof on) != 0) {
    error.assign(errno, boost::system::system_category());
    return fail("IP_PKTINFO on");
  }
  if (socket.bind(endpoint, error)) {
    if (error == boost::asio::error::address_in_use) {
      return unexpected(fmt::format("port {} on {} is in use by another process", listen.port,
                                    listen.address.to_string()));
    }
    return fail("cannot bind");
  }
  if (socket.non_blocking(true, error)) return fail("cannot make non-blocking");
  // Room for a burst while the loop is busy: the default (~208 KiB, a few hundred requests with
  // the kernel's overhead) overflows when thousands of clients start at once. FORCE passes
  // net.core.rmem_max with CAP_NET_ADMIN; without it the kernel caps the plain request there.
  const int receive_buffer = kReceiveBufferBytes;
  if (setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUFFORCE, &receive_buffer,
                 sizeof receive_buffer) != 0) {
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
               sizeof receive_buffer);
  }
  // Every datagram read after a drop carries the socket's count of datagrams the kernel
  // dropped for a full receive queue: the one overload this process cannot see otherwise.
  if (setsockopt(socket.native_handle(), SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on) != 0) {
    error.assign(errno, boost::system::system_category());
    return fail("SO_RXQ_OVFL on");
  }
  // When the kernel queued each datagram: how long a request waited for us (discover-max-wait).
  if (setsockopt(socket.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    error.assign(errno, boost::system::system_category());
    return fail("SO_TIMESTAMPNS on");
  }
  // Protocol 0: this socket only sends; the kernel queues nothing to it.
  FileDescriptor frames{::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  std::string frame_error;
  if (!frames.valid()) frame_error = std::error_code{errno, std::generic_category()}.message();
  return PacketSocket{std::move(socket), std::move(frames), std::move(frame_error)};
}

PacketSocket::Batch::Batch() {
  for (std::size_t i = 0; i < kReceiveBatch; ++i) {
    vectors[i] = iovec{buffers[i].data(), buffers[i].size()};
    msghdr& header = headers[i].msg_hdr;
    header = msghdr{};
    header.msg_name = &sources[i];
    header.msg_iov = &vectors[i];
    header.msg_iovlen = 1;
    header.msg_control = controls[i].bytes;
  }
  rearm(kReceiveBatch);
}

void PacketSocket::Batch::rearm(std::size_t count) {
  // The kernel rewrites only these, and only in the headers it filled.
  for (std::size_t i = 0; i < count; ++i) {
    headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_in);
    headers[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
  }
}

std::size_t PacketSocket::receive_batch(std::error_code& error) {
  Batch& batch = *batch_;
  batch.rearm(batch.filled);
  batch.filled = 0;
  const int received =
      recvmmsg(socket_.native_handle(), batch.headers.data(), kReceiveBatch, MSG_DONTWAIT, nullptr);
  if (received < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) error = last_error();
    return 0;
  }
  const auto count = static_cast<std::size_t>(received);
  batch.filled = count;
  for (std::size_t i = 0; i < count; ++i) {
    msghdr& header = batch.headers[i].msg_hdr;
    Datagram& datagram = batch.datagrams[i];
    datagram = Datagram{};
    datagram.size = batch.headers[i].msg_len;
    datagram.truncated = (header.msg_flags & MSG_TRUNC) != 0;
    datagram.source = Ipv4{ntohl(batch.sources[i].sin_addr.s_addr)};
    datagram.source_port = ntohs(batch.sources[i].sin_port);
    for (cmsghdr* message = CMSG_FIRSTHDR(&header); message != nullptr;
         message = CMSG_NXTHDR(&header, message)) {
      if (message->cmsg_level == IPPROTO_IP && message->cmsg_type == IP_PKTINFO) {
        in_pktinfo info;
        std::memcpy(&info, CMSG_DATA(message), sizeof info);
        datagram.interface_index = static_cast<std::uint32_t>(info.ipi_ifindex);
        datagram.header_destination = Ipv4{ntohl(info.ipi_addr.s_addr)};
      } else if (message->cmsg_level == SOL_SOCKET && message->cmsg_type == SO_RXQ_OVFL) {
        std::uint32_t dropped = 0;
        std::memcpy(&dropped, CMSG_DATA(message), sizeof dropped);
        receive_queue_drops_ += static_cast<std::uint32_t>(dropped - last_drop_count_);  // wraps
        last_drop_count_ = dropped;
      } else if (message->cmsg_level == SOL_SOCKET && message->cmsg_type == SO_TIMESTAMPNS) {
        timespec arrived{};
        std::memcpy(&arrived, CMSG_DATA(message), sizeof arrived);
        datagram.queued_at_ns = std::int64_t{arrived.tv_sec} * 1'000'000'000 + arrived.tv_nsec;
      }
    }
  }
  return count;
}

std::span<std::uint8_t> PacketSocket::reply_buffer(bool frame) {
  Queue& queue = frame ? outbox_->frames : outbox_->datagrams;
  if (queue.count == kSendBatch) flush(queue, frame ? frame_socket_.get() : socket_.native_handle());
  const std::span<std::uint8_t> buffer{queue.buffers[queue.count]};
  return buffer.subspan(frame ? wire::kIpv4UdpHeadersSize : 0, wire::kMaxPacketSize);
}

void PacketSocket::queue(std::size_t size, const Destination& destination) {
  Queue& queue = outbox_->datagrams;
  LANDLORD_ASSERT(queue.count < kSendBatch && size <= wire::kMaxPacketSize);
  const std::size_t i = queue.count++;
  queue.destinations[i] = destination;
  queue.targets[i] = to_sockaddr(destination.address, destination.port);
  queue.vectors[i] = iovec{queue.buffers[i].data(), size};
  msghdr& header = queue.headers[i].msg_hdr;
  header = msghdr{};
  header.msg_name = &queue.targets[i];
  header.msg_namelen = sizeof queue.targets[i];
  header.msg_iov = &queue.vectors[i];
  header.msg_iovlen = 1;
  if (destination.interface_index != 0 || !destination.source_address.is_zero()) {
    // The link to leave by (broadcasts and on-link unicasts) and our address on it.
    header.msg_control = queue.controls[i].bytes;
    header.msg_controllen = sizeof queue.controls[i].bytes;
    cmsghdr* message = CMSG_FIRSTHDR(&header);
    message->cmsg_level = IPPROTO_IP;
    message->cmsg_type = IP_PKTINFO;
    message->cmsg_len = CMSG_LEN(sizeof(in_pktinfo));
    in_pktinfo info{};
    info.ipi_ifindex = static_cast<int>(destination.interface_index);
    info.ipi_spec_dst.s_addr = htonl(destination.source_address.to_uint());
    std::memcpy(CMSG_DATA(message), &info, sizeof info);
  }
}

void PacketSocket::queue_frame(std::size_t size, const Destination& destination,
                               std::uint16_t source_port) {
  Queue& queue = outbox_->frames;
  LANDLORD_ASSERT(queue.count < kSendBatch && size <= wire::kMaxPacketSize);
  const std::size_t i = queue.count++;
  const std::span<std::uint8_t> buffer{queue.buffers[i]};
  wire::write_ipv4_udp_headers(
      buffer.first<wire::kIpv4UdpHeadersSize>(),
      {destination.source_address, destination.address, source_port, destination.port},
      buffer.subspan(wire::kIpv4UdpHeadersSize, size));
  queue.destinations[i] = destination;
  sockaddr_ll& link = queue.links[i];
  link = sockaddr_ll{};
  link.sll_family = AF_PACKET;
  link.sll_protocol = htons(ETH_P_IP);
  link.sll_ifindex = static_cast<int>(destination.interface_index);
  link.sll_halen = 6;
  if (destination.frame_to) std::copy_n(destination.frame_to->begin(), 6, link.sll_addr);
  queue.vectors[i] = iovec{buffer.data(), wire::kIpv4UdpHeadersSize + size};
  msghdr& header = queue.headers[i].msg_hdr;
  header = msghdr{};
  header.msg_name = &link;
  header.msg_namelen = sizeof link;
  header.msg_iov = &queue.vectors[i];
  header.msg_iovlen = 1;
}

void PacketSocket::flush() {
  flush(outbox_->datagrams, socket_.native_handle());
  flush(outbox_->frames, frame_socket_.get());
}

void PacketSocket::flush(Queue& queue, int descriptor) {
  std::size_t next = 0;
  while (next < queue.count) {
    const int sent =
        sendmmsg(descriptor, &queue.headers[next], static_cast<unsigned>(queue.count - next), 0);
    if (sent > 0) {
      next += static_cast<std::size_t>(sent);
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    // sendmmsg stops at the first message the kernel refuses: report it, go on after it.
    if (on_send_failure_) on_send_failure_(queue.destinations[next], last_error());
    ++next;
  }
  queue.count = 0;
}

namespace {

arpreq arp_request(Ipv4 address, const std::string& interface_name) {
  arpreq request{};
  const sockaddr_in protocol = to_sockaddr(address, 0);
  std::memcpy(&request.arp_pa, &protocol, sizeof protocol);
  request.arp_ha.sa_family = ARPHRD_ETHER;
  std::strncpy(request.arp_dev, interface_name.c_str(), sizeof request.arp_dev - 1);
  return request;
}

}  // namespace

std::error_code PacketSocket::install_arp_entry(Ipv4 address, const Mac& hardware,
                                                const std::string& interface_name) {
  arpreq request = arp_request(address, interface_name);
  std::memcpy(request.arp_ha.sa_data, hardware.data(), hardware.size());
  request.arp_flags = ATF_COM;  // complete, not permanent
  if (ioctl(socket_.native_handle(), SIOCSARP, &request) != 0) return last_error();
  return {};
}

}  // namespace landlord::server
