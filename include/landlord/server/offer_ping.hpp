#pragma once
// Offer-ping's I/O: an ICMP echo to an address about to be offered, and whether anything
// answered within the wait. One raw ICMP socket (CAP_NET_RAW) on the daemon's event loop: a
// probe never blocks the loop, only the OFFER that waits for it. Replies are matched by
// identifier, sequence number and source address; everything else the socket sees is ignored.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"

namespace landlord::server {

class OfferPing {
 public:
  // Probes at most this many addresses at once; past it probe() answers "not probed" at once.
  static constexpr std::size_t kMaxInFlight = 256;

  enum class Answer : std::uint8_t { Silent, Answered, NotProbed };
  using Done = std::function<void(Answer)>;

  // Fails without CAP_NET_RAW (the reason is the error).
  static Expected<std::unique_ptr<OfferPing>, std::string> open(boost::asio::io_context& io);
  ~OfferPing();

  // Sends one echo request to `address`; `done` runs on the loop, exactly once: Answered when
  // an echo reply from `address` came within `wait`, Silent when not, NotProbed when the
  // request could not be sent or too many probes are in flight.
  void probe(Ipv4 address, Duration wait, Done done);

  std::size_t in_flight() const { return probes_.size(); }

 private:
  OfferPing(boost::asio::io_context& io, int descriptor);
  void wait_for_replies();
  void read_replies();
  void finish(std::uint16_t sequence, Answer answer);

  struct Probe {
    Ipv4 address;
    std::unique_ptr<boost::asio::steady_timer> timer;
    Done done;
  };
  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor socket_;
  std::uint16_t identifier_;
  std::uint16_t next_sequence_ = 1;
  std::unordered_map<std::uint16_t, Probe> probes_;  // by sequence number
};

}  // namespace landlord::server
