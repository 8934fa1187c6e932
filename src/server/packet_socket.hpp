#pragma once
// One UDP socket on the server port with IP_PKTINFO: every datagram tells us the link it came
// in on and the destination address in its IP header (broadcast or unicast to us), and every
// reply can name the link it must leave by. Asio owns the descriptor and says when it is
// readable; the reads are recvmmsg (a burst costs one call per kReceiveBatch datagrams), and
// replies wait in an outbox until flush(), which sends them with one sendmmsg per socket.
// Replies to clients on the ingress link (direct to a client with no address yet, and
// broadcasts) leave instead as frames on an AF_PACKET socket that receives nothing: no ARP
// entry per client, and no neighbour entry at all (the kernel's table holds ~1,024; a full one
// drops even UDP broadcasts, silently).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/config/config.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/reply_routing.hpp"
#include "landlord/wire/ip_udp.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::server {

inline constexpr std::size_t kReceiveBatch = 32;
inline constexpr std::size_t kSendBatch = 32;
inline constexpr int kReceiveBufferBytes = 4 << 20;

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

class PacketSocket {
 public:
  // Fails when the UDP port cannot be had (e.g. another server holds it). The frame socket
  // needs CAP_NET_RAW; without it `frame_error` says why and frames are not sent.
  static Expected<PacketSocket, std::string> open(boost::asio::io_context& io,
                                                  const config::Endpoint& listen);

  // Reads up to kReceiveBatch waiting datagrams in one call; returns how many (0 when none
  // waits, or on error, set in `error`). Datagram i is datagram(i) with payload(i), valid until
  // the next call.
  std::size_t receive_batch(std::error_code& error);
  const Datagram& datagram(std::size_t i) const { return batch_->datagrams[i]; }
  std::span<const std::uint8_t> payload(std::size_t i) const {
    return {batch_->buffers[i].data(), batch_->datagrams[i].size};
  }

  // Replies are built in place in an outbox and leave at flush() (or when kSendBatch of a kind
  // are waiting): a burst of replies costs one sendmmsg(2) per socket instead of a sendmsg
  // each. A reply the kernel refuses is reported to the send-failure handler with its
  // destination.
  using SendFailure = std::function<void(const Destination&, std::error_code)>;
  void on_send_failure(SendFailure handler) { on_send_failure_ = std::move(handler); }
  bool sends_frames() const { return frame_socket_.valid(); }
  const std::string& frame_error() const { return frame_error_; }
  // Where the next reply of its kind (a datagram, or a frame: after room for its IPv4/UDP
  // headers) is built. queue() / queue_frame() then send its first `size` bytes; one that is not
  // queued is simply overwritten by the next.
  std::span<std::uint8_t> reply_buffer(bool frame);
  void queue(std::size_t size, const Destination& destination);
  // The reply as one IPv4/UDP datagram in an Ethernet frame to `destination.frame_to` out of
  // `destination.interface_index`, from `destination.source_address`, port `source_port`.
  void queue_frame(std::size_t size, const Destination& destination, std::uint16_t source_port);
  void flush();
  // Without frames: a temporary ARP entry on `interface_name` (SIOCSARP, as dnsmasq does) so
  // a unicast to a client that has no address yet needs no ARP exchange.
  std::error_code install_arp_entry(Ipv4 address, const Mac& hardware,
                                    const std::string& interface_name);

  boost::asio::ip::udp::socket& socket() { return socket_; }

  // Datagrams the kernel dropped because this socket's receive queue was full (SO_RXQ_OVFL),
  // as of the last datagram read: the kernel stamps it on the next datagram it queues after them.
  std::uint64_t receive_queue_drops() const { return receive_queue_drops_; }

 private:
  PacketSocket(boost::asio::ip::udp::socket socket, FileDescriptor frame_socket,
               std::string frame_error)
      : socket_(std::move(socket)),
        frame_socket_(std::move(frame_socket)),
        frame_error_(std::move(frame_error)),
        batch_(std::make_unique<Batch>()),
        outbox_(std::make_unique<Outbox>()) {}

  // Room for one IP_PKTINFO control message: the link a datagram came in on or leaves by.
  struct alignas(cmsghdr) PktinfoControl {
    std::uint8_t bytes[CMSG_SPACE(sizeof(in_pktinfo))];
  };

  // Room for what a received datagram carries: IP_PKTINFO, the SO_RXQ_OVFL drop count and
  // the SO_TIMESTAMPNS arrival time.
  struct alignas(cmsghdr) ReceiveControl {
    std::uint8_t bytes[CMSG_SPACE(sizeof(in_pktinfo)) + CMSG_SPACE(sizeof(std::uint32_t)) +
                       CMSG_SPACE(sizeof(timespec))];
  };

  // Buffers and kernel headers for recvmmsg, allocated and linked once.
  struct Batch {
    Batch();
    void rearm(std::size_t count);  // resets what the kernel wrote into the first `count`
    std::size_t filled = 0;
    std::array<std::array<std::uint8_t, wire::kMaxPacketSize>, kReceiveBatch> buffers;
    std::array<Datagram, kReceiveBatch> datagrams;
    std::array<mmsghdr, kReceiveBatch> headers;
    std::array<iovec, kReceiveBatch> vectors;
    std::array<sockaddr_in, kReceiveBatch> sources;
    std::array<ReceiveControl, kReceiveBatch> controls;
  };

  // Replies waiting for flush(), with the kernel headers for sendmmsg. A frame's buffer holds
  // its IPv4/UDP headers, then the payload.
  struct Queue {
    std::size_t count = 0;
    std::array<std::array<std::uint8_t, wire::kIpv4UdpHeadersSize + wire::kMaxPacketSize>, kSendBatch>
        buffers;
    std::array<Destination, kSendBatch> destinations;
    std::array<mmsghdr, kSendBatch> headers;
    std::array<iovec, kSendBatch> vectors;
    std::array<sockaddr_in, kSendBatch> targets;
    std::array<sockaddr_ll, kSendBatch> links;
    std::array<PktinfoControl, kSendBatch> controls;
  };
  struct Outbox {
    Queue datagrams;  // through the UDP socket
    Queue frames;     // through the packet socket
  };
  void flush(Queue& queue, int descriptor);

  boost::asio::ip::udp::socket socket_;
  FileDescriptor frame_socket_;
  std::string frame_error_;
  std::unique_ptr<Batch> batch_;
  std::unique_ptr<Outbox> outbox_;
  SendFailure on_send_failure_;
  std::uint32_t last_drop_count_ = 0;  // the kernel's 32-bit count, as last seen
  std::uint64_t receive_queue_drops_ = 0;
};

}  // namespace landlord::server
