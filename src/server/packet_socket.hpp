#pragma once
// One UDP socket on the server port with IP_PKTINFO: every datagram tells us the link it came
// in on and the destination address in its IP header (broadcast or unicast to us), and every
// reply can name the link it must leave by. Asio owns the descriptor and says when it is
// readable; the reads and writes themselves are plain recvmsg/sendmsg, which is also where
// recvmmsg/sendmmsg batching will go (issue #6).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/config/config.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/reply_routing.hpp"

namespace landlord::server {

class PacketSocket {
 public:
  static Expected<PacketSocket, std::string> open(boost::asio::io_context& io,
                                                  const config::Endpoint& listen);

  // One waiting datagram, or nullopt when none is (or on error, set in `error`).
  std::optional<Datagram> receive(std::span<std::uint8_t> buffer, std::error_code& error);
  std::error_code send(std::span<const std::uint8_t> bytes, const Destination& destination);
  // Adds a temporary ARP entry on `interface_name` (SIOCSARP, as dnsmasq does) so a unicast to
  // a client that has no address yet needs no ARP exchange.
  std::error_code install_arp_entry(Ipv4 address, const HardwareAddress& hardware,
                                    const std::string& interface_name);

  boost::asio::ip::udp::socket& socket() { return socket_; }

 private:
  explicit PacketSocket(boost::asio::ip::udp::socket socket) : socket_(std::move(socket)) {}
  boost::asio::ip::udp::socket socket_;
};

}  // namespace landlord::server
