#pragma once
// The workload (TigerBeetle's term): a seeded fleet of clients arriving at a rate, some of them
// declining, restarting, releasing or silently vanishing, with faults injected between them and
// the server. The fleet is sans-I/O like its clients: the caller brings the time, the received
// packets and a Sink for what goes out.
#include <array>
#include <cstdint>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "landlord/base/hardware_address.hpp"
#include "landlord/base/time.hpp"
#include "landlord/sim/auditor.hpp"
#include "landlord/sim/client.hpp"
#include "landlord/sim/client_groups.hpp"
#include "landlord/sim/client_macs.hpp"
#include "landlord/sim/histogram.hpp"
#include "landlord/sim/random.hpp"

namespace landlord::sim {

struct Window {
  Duration from{0};  // since the start of the run
  Duration length{0};
  bool contains(Duration since_start) const {
    return since_start >= from && since_start < from + length;
  }
};

// perfdhcp's stop conditions. A drop is a request whose reply did not come before its
// retransmission timer (the report's `timeouts`, with `gave_up`).
struct StopLimits {
  std::optional<std::size_t> max_exchanges;  // completed exchanges (Stats::exchanges())
  std::optional<std::size_t> max_drops;
  std::optional<double> max_drop_fraction;  // of packets sent, judged from 100 packets on
};
enum class StopReason : std::uint8_t { Running, Duration, MaxExchanges, MaxDrops };
std::string_view to_string(StopReason reason);

struct Workload {
  std::size_t clients = 100;
  double arrival_rate_per_s = 10;
  Duration duration = std::chrono::seconds(60);
  Duration stay{0};             // mean stay of departing/restarting clients; 0: half the duration
  double release_fraction = 0;  // depart with RELEASE
  double vanish_fraction = 0;   // depart silently: the server must let the lease expire
  double decline_fraction = 0;  // DECLINE the first ACKed address
  double restart_fraction = 0;  // restart once (INIT-REBOOT)
  double drop_replies = 0;      // fraction of server replies lost on the way
  std::optional<Window> block_unicast;  // RENEWING requests dropped in this window
  bool send_client_id = true;           // option 61 = 01 + MAC
  std::uint64_t seed = 1;
  Timing timing;
  // Client identity: MACs from a list (--macs), counted from a base (--base-mac), else seeded.
  std::vector<HardwareAddress> macs;
  std::optional<HardwareAddress> base_mac;
  RequestOptions request_options;  // --option, --prl, --request-lease-time
  std::vector<ClientGroup> client_groups;  // --client-group: shares with their own options
  StopLimits limits;               // --max-exchanges, --max-drops
};

// Where the fleet's transmissions go: a transport, or a test's scripted server.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void send(Transmission& transmission) = 0;
};

// Told of every latency as it is measured (the timeline keeps per-period distributions).
class LatencyObserver {
 public:
  virtual ~LatencyObserver() = default;
  virtual void on_latency(Exchange exchange, double latency_ms) = 0;
};

// Latencies are kept in ms to the microsecond, lease fractions to the millionth.
inline constexpr double kLatencyResolutionMs = 1e-3;
inline constexpr double kFractionResolution = 1e-6;
std::array<Histogram, kExchangeCount> latency_histograms();

struct Stats {
  std::size_t clients_started = 0;
  std::size_t offers = 0;
  std::size_t leases = 0;          // ACKs in REQUESTING or REBOOTING
  std::size_t reboots = 0;         // INIT-REBOOT attempts
  std::size_t renewals = 0;        // ACKs in RENEWING
  std::size_t rebinds = 0;         // ACKs in REBINDING
  std::size_t renew_started = 0;   // T1 reached
  std::size_t rebind_started = 0;  // T2 reached
  std::size_t expirations = 0;
  std::size_t releases = 0;
  std::size_t declines = 0;
  std::size_t vanished = 0;
  std::size_t naks = 0;
  std::size_t retransmissions = 0;  // request timeouts
  std::size_t gave_up = 0;
  std::size_t packets_sent = 0;
  std::size_t packets_received = 0;
  std::size_t replies_dropped = 0;  // --drop-replies
  std::size_t unicast_blocked = 0;  // --block-unicast
  std::size_t unparsable = 0;
  // Bounded memory whatever the run's length (histogram.hpp states the error).
  Histogram renew_fraction{kFractionResolution};  // lease fraction at T1 of renewals that succeeded
  Histogram rebind_fraction{kFractionResolution};
  Histogram granted_t1_fraction{kFractionResolution};  // T1 / lease time of every ACK
  Histogram granted_t2_fraction{kFractionResolution};
  std::array<Histogram, kExchangeCount> latency_ms = latency_histograms();
  // Exchanges a reply completed (OFFER, ACK, NAK): what --max-exchanges counts.
  std::size_t exchanges() const { return offers + leases + renewals + rebinds + naks; }
};

// When a client's first DORA happened, on the precise clock (-1: not yet). The closed-loop
// benchmark judges each step by these: a reply counts only if it came within a deadline of the
// request's first transmission.
struct DoraStamps {
  std::int64_t discover_ns = -1;  // first DISCOVER
  std::int64_t offer_ns = -1;     // first OFFER accepted
  std::int64_t request_ns = -1;   // first REQUEST in REQUESTING
  std::int64_t ack_ns = -1;       // first ACK in REQUESTING
};

class Fleet {
 public:
  Fleet(const Workload& workload, TimePoint start);
  // Clients point at the fleet's request options: it stays where it was made.
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // More new clients: `count` of them from `from` at `rate_per_s`, after those already
  // scheduled (the closed-loop benchmark's steps). Returns the index of the first.
  ClientIndex add_arrivals(TimePoint from, double rate_per_s, std::size_t count);
  std::size_t scheduled_clients() const { return scheduled_; }

  // Arrivals, departures, restarts and client timers due by `now`.
  void advance(TimePoint now, std::int64_t precise_ns, Sink& sink);
  void advance(TimePoint now, Sink& sink) { advance(now, as_ns(now), sink); }
  // A DHCP payload from the network. `precise_ns` is a monotonic stamp for latencies.
  void receive(std::span<const std::uint8_t> payload, TimePoint now, std::int64_t precise_ns,
               Sink& sink);
  // The same with a parsed message.
  void receive(const wire::Message& reply, TimePoint now, std::int64_t precise_ns, Sink& sink);
  // Virtual-time runs use the lease clock for latencies too.
  static std::int64_t as_ns(TimePoint now) { return unix_ms(now) * 1'000'000; }

  std::optional<TimePoint> next_deadline() const;
  bool finished(TimePoint now) const { return stop_reason(now) != StopReason::Running; }
  // Why the run ends at `now`: its duration, or a --max-* limit reached.
  StopReason stop_reason(TimePoint now) const;

  const Stats& stats() const { return stats_; }
  Stats& stats() { return stats_; }
  const Auditor& auditor() const { return auditor_; }
  Auditor& auditor() { return auditor_; }
  std::array<std::size_t, kClientStateCount> state_counts() const;
  std::size_t bound_now() const { return holders_.size(); }
  const Workload& workload() const { return workload_; }
  TimePoint start() const { return start_; }
  // At most one observer; nullptr to stop.
  void observe_latencies(LatencyObserver* observer) { latency_observer_ = observer; }
  // The MAC of the client holding `address`, for answering ARP.
  std::optional<HardwareAddress> holder_of(Ipv4 address) const;
  std::optional<ClientIndex> client_of(const HardwareAddress& chaddr) const;

  // For tests: direct access to a client.
  const Client& client(ClientIndex index) const { return clients_[index]; }
  std::size_t client_count() const { return clients_.size(); }
  const DoraStamps& dora_stamps(ClientIndex index) const { return dora_[index]; }

 private:
  enum class Agenda : std::uint8_t { Timer, Depart, Vanish, Restart };
  struct Due {
    TimePoint at;
    ClientIndex client;
    Agenda what;
    std::uint32_t generation;  // Timer entries: stale when the client re-armed since
    bool operator>(const Due& other) const { return at > other.at; }
  };

  // A run of arrivals at one rate: the workload's own, then any added.
  struct Arrivals {
    std::size_t first = 0;
    std::size_t count = 0;
    TimePoint from{};
    double rate_per_s = 0;
  };

  TimePoint arrival_time(std::size_t index) const;
  void arrive(TimePoint now, std::int64_t precise_ns, Sink& sink);
  void apply(ClientIndex index, const Input& input, TimePoint now, std::int64_t precise_ns,
             Sink& sink);
  void account(ClientIndex index, const Event& event, TimePoint now, std::int64_t precise_ns);
  void transmit(ClientIndex index, Transmission& transmission, TimePoint now,
                std::int64_t precise_ns, Sink& sink);
  void rearm(ClientIndex index);

  Workload workload_;
  ClientMacs macs_;
  // What each group's clients send, the run's own last; sized once, so clients may point in.
  std::vector<RequestOptions> group_options_;
  TimePoint start_;
  Random random_;       // the workload's choices, drawn in arrival order
  Random drop_random_;  // the network's losses
  std::size_t arrived_ = 0;
  std::size_t scheduled_ = 0;
  std::vector<Arrivals> arrivals_;
  std::vector<Client> clients_;
  std::vector<std::uint32_t> generation_;
  std::vector<std::optional<TimePoint>> armed_;  // the deadline queued for each client
  std::vector<std::int64_t> sent_ns_;            // latest transmission per client, for latency
  std::vector<DoraStamps> dora_;
  // Lease fraction at T1/T2, kept until the renewal/rebind succeeds.
  std::vector<double> renew_fraction_, rebind_fraction_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> agenda_;
  std::unordered_map<Ipv4, ClientIndex> holders_;
  Auditor auditor_;
  Stats stats_;
  LatencyObserver* latency_observer_ = nullptr;
  wire::Message scratch_;  // reused for parsing
};

}  // namespace landlord::sim
