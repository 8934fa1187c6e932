// The DHCP socket against the kernel on loopback: what it reads, and what the kernel dropped.
#include "packet_socket.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

namespace landlord::server {
namespace {

// A flood the 4 MiB receive queue cannot hold while nobody reads: the datagrams the kernel
// dropped are told by SO_RXQ_OVFL with the first datagram queued after them.
TEST(PacketSocket, CountsDatagramsTheKernelDroppedForAFullReceiveQueue) {
  boost::asio::io_context io;
  auto opened = PacketSocket::open(io, config::Endpoint{Ipv4{127, 0, 0, 1}, 0});
  ASSERT_TRUE(opened) << opened.error();
  PacketSocket& socket = *opened;
  const std::uint16_t port = socket.socket().local_endpoint().port();
  EXPECT_EQ(socket.receive_queue_drops(), 0u);

  const int sender = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(sender, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::array<std::uint8_t, 300> payload{};
  constexpr std::size_t kSent = 20000;
  std::size_t sent = 0;
  for (std::size_t i = 0; i < kSent; ++i) {
    if (::sendto(sender, payload.data(), payload.size(), 0, reinterpret_cast<const sockaddr*>(&target),
                 sizeof target) == static_cast<ssize_t>(payload.size())) {
      ++sent;
    }
  }
  ASSERT_EQ(sent, kSent);
  const auto drain = [&] {
    std::size_t received = 0;
    for (;;) {
      std::error_code error;
      const std::size_t count = socket.receive_batch(error);
      EXPECT_FALSE(error) << error.message();
      if (count == 0 || error) return received;
      received += count;
    }
  };
  std::size_t received = drain();
  EXPECT_GT(received, 0u);
  // The kernel stamps the drop count on a datagram as it queues it: the ones queued before the
  // queue filled carry none. The next datagram after the drops tells them.
  EXPECT_EQ(::sendto(sender, payload.data(), payload.size(), 0, reinterpret_cast<const sockaddr*>(&target),
                     sizeof target), static_cast<ssize_t>(payload.size()));
  ::close(sender);
  received += drain();
  EXPECT_GT(socket.receive_queue_drops(), 0u);
  EXPECT_EQ(received + socket.receive_queue_drops(), sent + 1) << received << " read";
}

// Each datagram carries when the kernel queued it (SO_TIMESTAMPNS): how long it waited for the
// server is what discover-max-wait judges.
TEST(PacketSocket, TellsWhenTheKernelQueuedEachDatagram) {
  boost::asio::io_context io;
  auto opened = PacketSocket::open(io, config::Endpoint{Ipv4{127, 0, 0, 1}, 0});
  ASSERT_TRUE(opened) << opened.error();
  PacketSocket& socket = *opened;
  const int sender = ::socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(sender, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(socket.socket().local_endpoint().port());
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::array<std::uint8_t, 300> payload{};
  const auto realtime_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  // The kernel turns arrival stamps on asynchronously after the first SO_TIMESTAMPNS socket
  // asks (a static key flipped from a work queue); until then datagrams are stamped when read.
  ::usleep(200'000);
  const std::int64_t before = realtime_ns();
  ASSERT_EQ(::sendto(sender, payload.data(), payload.size(), 0, reinterpret_cast<const sockaddr*>(&target),
                     sizeof target), static_cast<ssize_t>(payload.size()));
  ::close(sender);
  ::usleep(300'000);  // the datagram waits in the queue
  std::error_code error;
  ASSERT_EQ(socket.receive_batch(error), 1u) << error.message();
  const Datagram& datagram = socket.datagram(0);
  const std::int64_t read_at = realtime_ns();
  EXPECT_GE(datagram.queued_at_ns, before - 1'000'000);
  EXPECT_LE(datagram.queued_at_ns, before + 100'000'000);
  EXPECT_TRUE(waited_too_long(datagram, read_at, std::chrono::milliseconds{200}));
  EXPECT_FALSE(waited_too_long(datagram, read_at, std::chrono::seconds{1}));
  EXPECT_FALSE(waited_too_long(datagram, read_at, Duration{0})) << "0: never shed";
}

}  // namespace
}  // namespace landlord::server
