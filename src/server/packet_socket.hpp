#pragma once
// One UDP socket on the server port with IP_PKTINFO: every datagram tells us the link it came
// in on and the destination address in its IP header (broadcast or unicast to us), and every
// reply can name the link it must leave by. Asio owns the descriptor and says when it is
// readable; the reads and writes themselves are plain recvmsg/sendmsg.
// Replies to clients on the ingress link (direct to a client with no address yet, and
// broadcasts) leave instead as frames on an AF_PACKET socket that receives nothing: no ARP
// entry per client, and no neighbour entry at all (the kernel's table holds ~1,024; a full one
// drops even UDP broadcasts, silently).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/config/config.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/reply_routing.hpp"

namespace landlord::server {

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

  // One waiting datagram, or nullopt when none is (or on error, set in `error`).
  std::optional<Datagram> receive(std::span<std::uint8_t> buffer, std::error_code& error);
  std::error_code send(std::span<const std::uint8_t> bytes, const Destination& destination);

  bool sends_frames() const { return frame_socket_.valid(); }
  const std::string& frame_error() const { return frame_error_; }
  // `payload` as one IPv4/UDP datagram in an Ethernet frame to `destination.frame_to` out of
  // `destination.interface_index`, from `destination.source_address`, port `source_port`.
  std::error_code send_frame(std::span<const std::uint8_t> payload, const Destination& destination,
                             std::uint16_t source_port);
  // Without frames: a temporary ARP entry on `interface_name` (SIOCSARP, as dnsmasq does) so
  // a unicast to a client that has no address yet needs no ARP exchange.
  std::error_code install_arp_entry(Ipv4 address, const Mac& hardware,
                                    const std::string& interface_name);

  boost::asio::ip::udp::socket& socket() { return socket_; }

 private:
  PacketSocket(boost::asio::ip::udp::socket socket, FileDescriptor frame_socket,
               std::string frame_error)
      : socket_(std::move(socket)),
        frame_socket_(std::move(frame_socket)),
        frame_error_(std::move(frame_error)) {}
  boost::asio::ip::udp::socket socket_;
  FileDescriptor frame_socket_;
  std::string frame_error_;
};

}  // namespace landlord::server
