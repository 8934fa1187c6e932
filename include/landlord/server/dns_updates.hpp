#pragma once
// The daemon's side of DNS updates (docs/ddns.md): durable lease records in, RFC 2136 UPDATEs
// out, on the event loop. ddns::Updater decides every message and retry; this piece only
// moves bytes (UDP from an ephemeral port, TCP after a truncation or with `tcp: true`), arms
// one timer at the updater's next deadline, and logs and counts what completes. The ACK never
// waits for it: a record reaches on_lease() only once it is durable and answered. What the
// work settled as (done, conflict, failed) goes back to the caller (`Settled`), which writes it
// into the lease record, so that a restart sends again only what is unsettled.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/ddns/updater.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/server/clock.hpp"

namespace landlord::server {

class DnsUpdates {
 public:
  static constexpr std::size_t kCauses = static_cast<std::size_t>(ddns::Cause::kInvalidResponse) + 1;
  struct Counters {
    std::uint64_t adds_done = 0;      // a name's records put in place
    std::uint64_t removals_done = 0;  // a name's records taken out (or found absent)
    std::uint64_t conflicts = 0;      // a side left alone: another client's name, or an operator's record
    std::array<std::uint64_t, kCauses> failed{};  // transactions given up, by cause
    std::uint64_t messages_sent = 0;
  };

  // An add (`added`) or a removal of `fqdn`'s records for `address` finished as `result`.
  using Settled = std::function<void(Ipv4 address, const std::string& fqdn, bool added, lease::DnsState result)>;

  DnsUpdates(boost::asio::io_context& io, ddns::Settings settings, const Clock& clock, Settled settled);
  ~DnsUpdates();
  DnsUpdates(const DnsUpdates&) = delete;
  DnsUpdates& operator=(const DnsUpdates&) = delete;

  // Opens the UDP socket; an error says why.
  Expected<void, std::string> start();
  // A durable lease record with a name: added while Bound (every grant and renewal: records
  // deleted behind our back come back, a conflict is looked at again), removed once it has ended
  // and its removal is pending. Records without a name, or whose name is not the server's to
  // update, are ignored.
  void on_lease(const lease::Lease& record);
  // A record read at start: its unsettled work (pending, or failed before the restart) sent
  // again, and a bound lease's name remembered so that a later rename removes it. Whether work
  // was sent.
  bool resume(const lease::Lease& record);
  void stop();

  // Work not finished: queued in the updater or waiting for room in it.
  std::size_t pending() const { return updater_.queued() + backlog_.size(); }
  const Counters& counters() const { return counters_; }

 private:
  struct TcpExchange;
  using Work = std::pair<ddns::Operation, ddns::Binding>;

  void submit(ddns::Operation operation, const ddns::Binding& binding);
  void pump();  // feed the backlog, send what is due, account completions, re-arm the timer
  void send(ddns::Outgoing outgoing);
  void send_tcp(ddns::Outgoing outgoing);
  template <typename Finish>
  void read_tcp_answer(const std::shared_ptr<TcpExchange>& exchange, Finish finish);
  void receive();
  void complete(const ddns::Completion& completion);

  boost::asio::io_context& io_;
  const Clock& clock_;
  ddns::Updater updater_;
  boost::asio::ip::udp::socket udp_;
  boost::asio::steady_timer timer_;
  std::array<std::uint8_t, 65535> datagram_{};
  std::list<std::shared_ptr<TcpExchange>> tcp_;
  // Work beyond what the updater holds (a start with many named leases, a burst of grants):
  // fed in as transactions finish, so nothing is refused as queue-full.
  std::deque<Work> backlog_;
  // The name last added for each address, so a client that renames itself leaves no orphan.
  std::unordered_map<std::uint32_t, ddns::Binding> added_;
  // Each (cause, side) is logged once at warning level; repeats go to debug.
  std::array<std::array<bool, 2>, kCauses> cause_logged_{};
  Counters counters_;
  Settled settled_;
  bool stopped_ = false;
};

}  // namespace landlord::server
