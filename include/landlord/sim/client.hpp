#pragma once
// One simulated RFC 2131 client (§4.4, figure 5), sans-I/O: the caller hands it an input and
// the time, and it answers with what to transmit and what happened. It never reads a clock,
// never touches a socket, and draws its randomness (xids, jitter) from its own seeded
// generator, so a run replays exactly from its seed.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/sim/random.hpp"
#include "landlord/sim/request_options.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim {

using namespace std::chrono_literals;

enum class ClientState : std::uint8_t {
  Init,        // no address; waiting to (re)start discovery (after a DECLINE: 10 s, §3.1.5)
  Selecting,   // DISCOVER sent, waiting for an OFFER
  Requesting,  // REQUEST for an offered address sent, waiting for ACK/NAK
  InitReboot,  // restarted with a remembered address; nothing sent yet
  Rebooting,   // REQUEST for the remembered address broadcast, waiting for ACK/NAK
  Bound,       // holding a lease until T1
  Renewing,    // past T1: REQUEST unicast to the granting server
  Rebinding,   // past T2: REQUEST broadcast to any server
  Stopped,     // departed (released or vanished) or never started
};
inline constexpr std::size_t kClientStateCount = 9;
std::string_view to_string(ClientState state);

// Which request/reply exchange a transmission or a latency belongs to.
enum class Exchange : std::uint8_t { Discover, Request, Reboot, Renew, Rebind, Decline, Release };
inline constexpr std::size_t kExchangeCount = 7;
std::string_view to_string(Exchange exchange);

// RFC 2131 timing, scalable for labs with leases of seconds instead of hours.
struct Timing {
  Duration retransmit_base = 4s;        // §4.1: first retransmission after 4 s, then 8, 16, ...
  Duration retransmit_max = 64s;        // ... up to 64 s
  Duration jitter = 1s;                 // each delay randomised by ±1 s
  Duration renew_retransmit_min = 60s;  // §4.4.5: half the remaining time, down to 60 s
  Duration decline_restart = 10s;       // §3.1.5: wait at least 10 s after a DECLINE
  int request_attempts = 5;  // REQUEST transmissions before falling back to INIT (§3.1.5)

  // Scales the exponential backoff: base b gives b, 2b, ... 16b, jitter b/4 (4 s -> 4..64 ±1).
  static Timing with_retransmit_base(Duration base, Duration renew_minimum);
};

struct ClientIdentity {
  HardwareAddress hardware;
  ClientId client_id;  // option 61; empty: the server keys the client by chaddr
};

// Inputs to step().
struct Start {};   // power on in INIT: begin discovery
struct Reboot {};  // restart: INIT-REBOOT with the remembered address if any
struct Tick {};    // the time reached next_deadline()
struct Depart {
  bool release;
};  // leave the network; RELEASE first when `release`
struct Received {
  const wire::Message* reply;
};  // a reply whose chaddr is ours
using Input = std::variant<Start, Reboot, Tick, Depart, Received>;

// Where a transmission goes (§4.4.4).
enum class Destination : std::uint8_t { Broadcast, ServerUnicast };

struct Transmission {
  wire::Message message;
  Destination destination = Destination::Broadcast;
  Ipv4 server;  // for ServerUnicast: the server identifier from the lease (option 54)
  Exchange exchange = Exchange::Discover;
  bool retransmission = false;
};

// What the server's replies did to this client; the fleet counts them and the auditor judges
// the server from them.
struct Event {
  enum class Kind : std::uint8_t {
    Offered,         // OFFER accepted in SELECTING
    Leased,          // ACK in REQUESTING or REBOOTING: address newly held
    Renewed,         // ACK in RENEWING
    Rebound,         // ACK in REBINDING
    Nak,             // NAK: back to INIT
    Declined,        // ACK received and declined (workload choice)
    Released,        // RELEASE sent on departure
    Expired,         // lease reached its expiry with no ACK: back to INIT
    RenewStarted,    // T1 reached: `lease_fraction` is how far into the lease
    RebindStarted,   // T2 reached
    Retransmitted,   // a request timed out and was sent again
    GaveUp,          // REQUESTING/REBOOTING exhausted its attempts: back to INIT
    AddressChanged,  // ACK for another address than the one requested, without a NAK
  };
  Kind kind = Kind::Offered;
  Exchange exchange = Exchange::Discover;
  Ipv4 address;           // the address concerned (for AddressChanged: the one ACKed)
  Ipv4 expected_address;  // AddressChanged: the address that was requested
  Duration lease_time{0};
  Duration t1{0}, t2{0};      // as applied (server values or the 50 % / 87.5 % defaults)
  TimePoint lease_start{};    // when the answered request was sent (§4.4.1)
  double lease_fraction = 0;  // RenewStarted/RebindStarted: elapsed / lease time
  std::uint32_t xid = 0;
};

// At most one transmission and a few events per step.
struct Output {
  // User-provided on purpose: with the implicit constructor g++ 12 zeroes all of
  // `transmission`'s ~6 KB storage (a Message) at every step, the client's largest cost.
  Output() {}  // NOLINT(modernize-use-equals-default)
  std::optional<Transmission> transmission;
  std::array<Event, 4> events{};
  std::size_t event_count = 0;

  void add(const Event& event);
  std::span<const Event> event_list() const { return {events.data(), event_count}; }
};

class Client {
 public:
  // `options` (shared by the fleet, outliving the client) adds to every request; nullptr: none.
  Client(ClientIdentity identity, const Timing& timing, std::uint64_t seed,
         const RequestOptions* options = nullptr);

  Output step(const Input& input, TimePoint now);

  // The next moment a Tick is due; nullopt when the client waits for nothing.
  std::optional<TimePoint> next_deadline() const { return deadline_; }

  ClientState state() const { return state_; }
  const ClientIdentity& identity() const { return identity_; }
  Ipv4 address() const { return address_; }   // held (or remembered) address
  Ipv4 server() const { return server_; }     // option 54 of the lease
  std::uint32_t xid() const { return xid_; }  // of the current exchange
  TimePoint lease_expiry() const { return lease_start_ + lease_time_; }
  TimePoint t1_at() const { return lease_start_ + t1_; }
  TimePoint t2_at() const { return lease_start_ + t2_; }

  // Workload choice: decline the next address ACKed in REQUESTING (once), as after a
  // failed ARP probe (§4.4.1).
  void decline_next_ack() { decline_next_ack_ = true; }

 private:
  void on_start(TimePoint now, Output& out);
  void on_reboot(TimePoint now, Output& out);
  void on_tick(TimePoint now, Output& out);
  void on_depart(bool release, TimePoint now, Output& out);
  void on_reply(const wire::Message& reply, TimePoint now, Output& out);
  void on_offer(const wire::Message& offer, TimePoint now, Output& out);
  void on_ack(const wire::Message& ack, TimePoint now, Output& out);
  void on_nak(TimePoint now, Output& out);

  void become(ClientState next);
  void send_discover(TimePoint now, bool retransmission, Output& out);
  void send_request(TimePoint now, bool retransmission, Output& out);
  void send_decline(Output& out);
  void send_release(Output& out);
  wire::Message request_header(wire::MessageType type) const;
  void ask_for_parameters(wire::Message& message) const;  // options 55 and 51
  Duration backoff(int attempt);
  Duration renew_wait(TimePoint now, TimePoint limit) const;
  void arm_lease_timer(TimePoint now);
  Event event(Event::Kind kind, Exchange exchange) const;

  ClientIdentity identity_;
  Timing timing_;
  const RequestOptions* request_options_ = nullptr;
  Random random_;
  ClientState state_ = ClientState::Stopped;  // until Start
  std::optional<TimePoint> deadline_;
  std::uint32_t xid_ = 0;
  int attempt_ = 0;        // transmissions of the current request
  TimePoint last_sent_{};  // of the current exchange's latest transmission
  TimePoint discovery_started_{};  // the first DISCOVER of this acquisition: its `secs` count from here
  Ipv4 offered_;           // SELECTING -> REQUESTING
  Ipv4 offer_server_;
  Ipv4 address_;  // the lease (or the remembered address in INIT-REBOOT)
  Ipv4 server_;
  TimePoint lease_start_{};
  Duration lease_time_{0}, t1_{0}, t2_{0};
  bool decline_next_ack_ = false;
};

}  // namespace landlord::sim
