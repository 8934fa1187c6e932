#include "landlord/server/dns_updates.hpp"

#include <random>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "landlord/base/assert.hpp"
#include "landlord/ddns/dhcid.hpp"

namespace landlord::server {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;

// The updater holds this much; the rest waits in the backlog (in order, so per-name order holds).
std::size_t updater_share(const ddns::Settings& settings) { return settings.max_in_flight * 4; }

std::uint32_t random_seed() {
  std::random_device device;
  return device();
}

std::optional<ddns::Binding> binding_of(const lease::Lease& record) {
  if (record.fqdn.empty() || !record.dns_sides.any()) return std::nullopt;
  auto name = ddns::Name::from_text(record.fqdn);
  if (!name) return std::nullopt;  // the engine writes only valid names; a store row may not be one
  ddns::Binding binding;
  binding.address = record.address;
  binding.identifier = ddns::dhcid_identifier(record.client_id, record.hardware);
  binding.fqdn = std::move(*name);
  binding.forward = record.dns_sides.forward;
  binding.reverse = record.dns_sides.reverse;
  binding.lease_time = record.lease_time;
  return binding;
}

asio::ip::address_v4 to_asio(Ipv4 address) { return asio::ip::address_v4{address.to_uint()}; }

}  // namespace

// One message over TCP (RFC 1035 §4.2.2: a two-byte length before each message), on a
// connection of its own, closed once answered or once the updater's exchange time is over.
struct DnsUpdates::TcpExchange {
  explicit TcpExchange(asio::io_context& io) : socket(io), deadline(io) {}
  tcp::socket socket;
  asio::steady_timer deadline;
  std::vector<std::uint8_t> out;
  std::array<std::uint8_t, 2> length{};
  std::vector<std::uint8_t> in;
  std::uint16_t id = 0;
  bool done = false;
};

DnsUpdates::DnsUpdates(asio::io_context& io, ddns::Settings settings, const Clock& clock, Settled settled)
    : io_(io),
      clock_(clock),
      updater_(std::move(settings), random_seed()),
      udp_(io),
      timer_(io),
      settled_(std::move(settled)) {}

DnsUpdates::~DnsUpdates() { stop(); }

Expected<void, std::string> DnsUpdates::start() {
  boost::system::error_code error;
  udp_.open(udp::v4(), error);
  if (!error) udp_.bind(udp::endpoint{udp::v4(), 0}, error);  // an ephemeral port: answers come back to it
  if (error) return unexpected("ddns: cannot open a UDP socket: " + error.message());
  receive();
  return {};
}

void DnsUpdates::stop() {
  if (stopped_) return;
  stopped_ = true;
  timer_.cancel();
  boost::system::error_code ignored;
  udp_.close(ignored);
  for (const auto& exchange : tcp_) {
    exchange->deadline.cancel();
    exchange->socket.close(ignored);
  }
  if (pending() > 0) spdlog::info("ddns: stopping with {} updates not finished (sent again at the next start)", pending());
}

bool DnsUpdates::resume(const lease::Lease& record) {
  if (stopped_) return false;
  auto binding = binding_of(record);
  if (!binding) return false;
  if (record.dns_state == lease::DnsState::Pending || record.dns_state == lease::DnsState::Failed) {
    lease::Lease unsettled = record;
    unsettled.dns_state = lease::DnsState::Pending;
    on_lease(unsettled);
    return true;
  }
  if (record.state == lease::LeaseState::Bound) added_.insert_or_assign(record.address.to_uint(), *binding);
  return false;
}

void DnsUpdates::on_lease(const lease::Lease& record) {
  if (stopped_) return;
  auto binding = binding_of(record);
  if (!binding) return;
  const std::uint32_t address = record.address.to_uint();
  if (record.state == lease::LeaseState::Bound) {
    // A client that renamed itself: its old name goes first (same address, so in order).
    if (const auto old = added_.find(address); old != added_.end() && !(old->second.fqdn == binding->fqdn)) {
      submit(ddns::Operation::kRemove, old->second);
    }
    added_.insert_or_assign(address, *binding);
    submit(ddns::Operation::kAdd, *binding);
  } else if (record.dns_state == lease::DnsState::Pending &&
             (record.state == lease::LeaseState::Released || record.state == lease::LeaseState::Expired ||
              record.state == lease::LeaseState::Declined)) {
    added_.erase(address);
    submit(ddns::Operation::kRemove, *binding);
  }
  pump();
}

void DnsUpdates::submit(ddns::Operation operation, const ddns::Binding& binding) {
  if (!backlog_.empty() || updater_.queued() >= updater_share(updater_.settings())) {
    backlog_.emplace_back(operation, binding);
    return;
  }
  const TimePoint now = clock_.now();
  if (operation == ddns::Operation::kAdd) {
    updater_.add(binding, now);
  } else {
    updater_.remove(binding, now);
  }
}

void DnsUpdates::pump() {
  if (stopped_) return;
  const TimePoint now = clock_.now();
  while (!backlog_.empty() && updater_.queued() < updater_share(updater_.settings())) {
    auto [operation, binding] = std::move(backlog_.front());
    backlog_.pop_front();
    if (operation == ddns::Operation::kAdd) {
      updater_.add(binding, now);
    } else {
      updater_.remove(binding, now);
    }
  }
  for (auto& outgoing : updater_.take_outgoing()) send(std::move(outgoing));
  for (const auto& completion : updater_.take_completions()) complete(completion);
  // Completions free room: more of the backlog goes in at the next turn of the loop.
  if (!backlog_.empty() && updater_.queued() < updater_share(updater_.settings())) {
    asio::post(io_, [this] { pump(); });
  }
  const auto deadline = updater_.next_deadline();
  if (!deadline) return;
  timer_.expires_at(clock_.to_steady(*deadline));
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error || stopped_) return;  // re-armed, or stopping
    updater_.tick(clock_.now());
    pump();
  });
}

void DnsUpdates::send(ddns::Outgoing outgoing) {
  ++counters_.messages_sent;
  if (outgoing.transport == ddns::Transport::kTcp) return send_tcp(std::move(outgoing));
  const udp::endpoint server{to_asio(outgoing.server.address), outgoing.server.port};
  boost::system::error_code error;
  udp_.send_to(asio::buffer(outgoing.bytes), server, 0, error);
  if (error) {
    spdlog::debug("ddns: send to {}:{} failed: {}", outgoing.server.address.to_string(), outgoing.server.port,
                  error.message());
    updater_.on_send_failed(outgoing.id, clock_.now());
  }
}

void DnsUpdates::send_tcp(ddns::Outgoing outgoing) {
  auto exchange = std::make_shared<TcpExchange>(io_);
  exchange->id = outgoing.id;
  const std::size_t size = outgoing.bytes.size();
  LANDLORD_ASSERT(size <= 0xffff);
  exchange->out.reserve(size + 2);
  exchange->out.push_back(static_cast<std::uint8_t>(size >> 8));
  exchange->out.push_back(static_cast<std::uint8_t>(size & 0xff));
  exchange->out.insert(exchange->out.end(), outgoing.bytes.begin(), outgoing.bytes.end());
  tcp_.push_back(exchange);
  const auto position = std::prev(tcp_.end());
  // Ends the exchange once: answered, failed or out of time; a failure is the updater's loss.
  auto finish = [this, exchange, position](bool failed) {
    if (exchange->done) return;
    exchange->done = true;
    boost::system::error_code ignored;
    exchange->deadline.cancel();
    exchange->socket.close(ignored);
    if (stopped_) return;
    tcp_.erase(position);
    if (failed) updater_.on_send_failed(exchange->id, clock_.now());
    pump();
  };
  exchange->deadline.expires_after(updater_.settings().exchange_timeout);
  exchange->deadline.async_wait([finish](const boost::system::error_code& error) {
    if (!error) finish(true);
  });
  const tcp::endpoint server{to_asio(outgoing.server.address), outgoing.server.port};
  exchange->socket.async_connect(server, [this, exchange, finish](const boost::system::error_code& connected) {
    if (connected) return finish(true);
    asio::async_write(exchange->socket, asio::buffer(exchange->out),
                      [this, exchange, finish](const boost::system::error_code& written, std::size_t) {
                        if (written) return finish(true);
                        read_tcp_answer(exchange, finish);
                      });
  });
}

template <typename Finish>
void DnsUpdates::read_tcp_answer(const std::shared_ptr<TcpExchange>& exchange, Finish finish) {
  asio::async_read(exchange->socket, asio::buffer(exchange->length),
                   [this, exchange, finish](const boost::system::error_code& got_length, std::size_t) {
                     if (got_length) return finish(true);
                     exchange->in.resize(static_cast<std::size_t>(exchange->length[0]) << 8 | exchange->length[1]);
                     asio::async_read(exchange->socket, asio::buffer(exchange->in),
                                      [this, exchange, finish](const boost::system::error_code& got_body, std::size_t) {
                                        if (got_body) return finish(true);
                                        if (!stopped_) updater_.on_response(exchange->in, clock_.now());
                                        finish(false);
                                      });
                   });
}

void DnsUpdates::receive() {
  udp_.async_receive(asio::buffer(datagram_), [this](const boost::system::error_code& error, std::size_t size) {
    if (stopped_ || error == asio::error::operation_aborted) return;
    // An ICMP error from an earlier send (port unreachable) comes back as a receive error: the
    // updater times that message out; keep reading.
    if (!error) {
      updater_.on_response(std::span<const std::uint8_t>{datagram_.data(), size}, clock_.now());
      pump();
    }
    receive();
  });
}

void DnsUpdates::complete(const ddns::Completion& completion) {
  const std::string name = completion.binding.fqdn.to_text();
  const std::string address = completion.binding.address.to_string();
  const bool adding = completion.operation == ddns::Operation::kAdd;
  bool conflict = false;
  for (const auto side : {completion.forward, completion.reverse}) {
    if (side != ddns::RecordStatus::kConflict) continue;
    ++counters_.conflicts;
    conflict = true;
  }
  if (settled_) {
    const lease::DnsState result = completion.cause != ddns::Cause::kNone ? lease::DnsState::Failed
                                   : conflict                            ? lease::DnsState::Conflict
                                                                         : lease::DnsState::Done;
    std::string fqdn = name;
    if (!fqdn.empty() && fqdn.back() == '.') fqdn.pop_back();  // records keep no root dot
    settled_(completion.binding.address, fqdn, adding, result);
  }
  if (completion.cause == ddns::Cause::kNone) {
    ++(adding ? counters_.adds_done : counters_.removals_done);
    spdlog::log(conflict ? spdlog::level::warn : spdlog::level::info, "ddns: {} {} {}: forward {}, reverse {}{}",
                adding ? "added" : "removed", name, address, ddns::record_status_text(completion.forward),
                ddns::record_status_text(completion.reverse),
                conflict ? " (a record another client or an operator holds is left alone)" : "");
    return;
  }
  const auto cause = static_cast<std::size_t>(completion.cause);
  ++counters_.failed[cause];
  // Which side failed first names the zone: the forward zone, or a reverse zone.
  const std::size_t side = completion.forward == ddns::RecordStatus::kFailed ? 0 : 1;
  const bool first = !cause_logged_[cause][side];
  cause_logged_[cause][side] = true;
  spdlog::log(first ? spdlog::level::warn : spdlog::level::debug, "ddns: {} {} {} failed ({}): {}{}",
              adding ? "adding" : "removing", name, address, ddns::cause_text(completion.cause), completion.detail,
              first ? " (further failures of this cause in this zone are logged at debug level)" : "");
}

}  // namespace landlord::server
