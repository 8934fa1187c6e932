#include "landlord/server/offer_ping.hpp"

#include <arpa/inet.h>
#include <linux/icmp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <boost/asio/post.hpp>

namespace landlord::server {
namespace {

constexpr std::uint8_t kEchoReply = 0;
constexpr std::uint8_t kEchoRequest = 8;
constexpr std::size_t kEchoSize = 8 + 8;  // header, then 8 bytes of payload

// RFC 1071: the one's complement of the one's complement sum of 16-bit words.
std::uint16_t checksum(const std::uint8_t* data, std::size_t size) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < size; i += 2) sum += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (size % 2 == 1) sum += static_cast<std::uint32_t>(data[size - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

}  // namespace

Expected<std::unique_ptr<OfferPing>, std::string> OfferPing::open(boost::asio::io_context& io) {
  const int descriptor = ::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (descriptor < 0) return unexpected("cannot open an ICMP socket: " + std::error_code{errno, std::generic_category()}.message());
  // Only echo replies reach us: the kernel filters the rest (destination unreachable, ...).
  icmp_filter filter{~(1u << kEchoReply)};
  if (setsockopt(descriptor, SOL_RAW, ICMP_FILTER, &filter, sizeof filter) != 0) {
    const std::string reason = std::error_code{errno, std::generic_category()}.message();
    ::close(descriptor);
    return unexpected("cannot filter the ICMP socket: " + reason);
  }
  return std::unique_ptr<OfferPing>(new OfferPing(io, descriptor));
}

OfferPing::OfferPing(boost::asio::io_context& io, int descriptor)
    : io_(io), socket_(io, descriptor), identifier_(static_cast<std::uint16_t>(::getpid())) {
  wait_for_replies();
}

OfferPing::~OfferPing() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

void OfferPing::probe(Ipv4 address, Duration wait, Done done) {
  if (probes_.size() >= kMaxInFlight || probes_.contains(next_sequence_)) {
    boost::asio::post(io_, [done = std::move(done)] { done(Answer::NotProbed); });
    return;
  }
  const std::uint16_t sequence = next_sequence_++;
  std::array<std::uint8_t, kEchoSize> echo{};
  echo[0] = kEchoRequest;
  echo[4] = static_cast<std::uint8_t>(identifier_ >> 8);
  echo[5] = static_cast<std::uint8_t>(identifier_);
  echo[6] = static_cast<std::uint8_t>(sequence >> 8);
  echo[7] = static_cast<std::uint8_t>(sequence);
  std::memcpy(echo.data() + 8, "landlord", 8);
  const std::uint16_t sum = checksum(echo.data(), echo.size());
  echo[2] = static_cast<std::uint8_t>(sum >> 8);
  echo[3] = static_cast<std::uint8_t>(sum);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = htonl(address.to_uint());
  if (::sendto(socket_.native_handle(), echo.data(), echo.size(), 0, reinterpret_cast<const sockaddr*>(&target),
               sizeof target) != static_cast<ssize_t>(echo.size())) {
    boost::asio::post(io_, [done = std::move(done)] { done(Answer::NotProbed); });
    return;
  }
  Probe& probe = probes_[sequence];
  probe.address = address;
  probe.done = std::move(done);
  probe.timer = std::make_unique<boost::asio::steady_timer>(io_);
  probe.timer->expires_after(wait);
  probe.timer->async_wait([this, sequence](const boost::system::error_code& error) {
    if (!error) finish(sequence, Answer::Silent);
  });
}

void OfferPing::wait_for_replies() {
  socket_.async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& error) {
    if (error) return;  // closed
    read_replies();
    wait_for_replies();
  });
}

void OfferPing::read_replies() {
  std::array<std::uint8_t, 1500> packet;
  for (;;) {
    sockaddr_in source{};
    socklen_t source_size = sizeof source;
    const ssize_t size = ::recvfrom(socket_.native_handle(), packet.data(), packet.size(), 0,
                                    reinterpret_cast<sockaddr*>(&source), &source_size);
    if (size < 0) return;  // EAGAIN: read them all
    // A raw IPv4 socket hands over the IP header too.
    const std::size_t header = static_cast<std::size_t>(packet[0] & 0x0f) * 4;
    if (static_cast<std::size_t>(size) < header + 8 || packet[header] != kEchoReply) continue;
    const std::uint8_t* icmp = packet.data() + header;
    const auto identifier = static_cast<std::uint16_t>(icmp[4] << 8 | icmp[5]);
    const auto sequence = static_cast<std::uint16_t>(icmp[6] << 8 | icmp[7]);
    const auto found = probes_.find(sequence);
    if (identifier != identifier_ || found == probes_.end() ||
        found->second.address != Ipv4{ntohl(source.sin_addr.s_addr)}) {
      continue;
    }
    finish(sequence, Answer::Answered);
  }
}

void OfferPing::finish(std::uint16_t sequence, Answer answer) {
  const auto found = probes_.find(sequence);
  if (found == probes_.end()) return;
  Done done = std::move(found->second.done);
  found->second.timer->cancel();
  probes_.erase(found);
  done(answer);
}

}  // namespace landlord::server
