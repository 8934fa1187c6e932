#pragma once
// The packet simulator (TigerBeetle's packet_simulator.zig, in miniature): datagrams between
// the simulated fleet and the server, each one dropped, duplicated or delayed by a seeded
// draw. Independent delays reorder packets. Delivery is by virtual time, ties by send order,
// so a run replays exactly from its seed.
#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/sim/random.hpp"

namespace landlord::simulation {

// Faults of one direction of the link.
struct LinkFaults {
  double drop = 0;        // probability a datagram is lost
  double duplicate = 0;   // probability a datagram arrives twice (each copy delayed on its own)
  Duration delay_min{1};  // one-way delay, uniform in [min, max]: unequal delays reorder
  Duration delay_max{1};
};

enum class Direction : std::uint8_t { ToServer, ToClients };

struct Datagram {
  Direction direction = Direction::ToServer;
  std::vector<std::uint8_t> payload;
  // ToServer: sent to a broadcast address (DISCOVER, REBINDING, ...) or unicast to the server.
  bool to_broadcast = true;
  Ipv4 source;  // the sender's IP source address: 0.0.0.0 before it has a lease
  // ToClients, RFC 2131 §4.1: a reply unicast to ciaddr reaches only the host that has that
  // address when it arrives; broadcasts and frames sent to chaddr reach the client whatever
  // address it has. `chaddr` is the client the reply is for.
  std::optional<Ipv4> to_address;
  HardwareAddress chaddr;
};

struct NetworkCounters {
  std::uint64_t sent = 0, delivered = 0, dropped = 0, duplicated = 0;
};

class LossyNetwork {
 public:
  LossyNetwork(std::uint64_t seed, LinkFaults to_server, LinkFaults to_clients);

  void send(Datagram datagram, TimePoint now);
  std::optional<TimePoint> next_due() const;
  // The earliest datagram due; call only when next_due() <= now.
  Datagram take();

  const NetworkCounters& counters(Direction direction) const {
    return counters_[static_cast<std::size_t>(direction)];
  }

 private:
  struct InFlight {
    TimePoint due;
    std::uint64_t sequence;  // ties at one millisecond keep send order: determinism
    Datagram datagram;
    bool operator>(const InFlight& other) const {
      return due != other.due ? due > other.due : sequence > other.sequence;
    }
  };
  void schedule(const Datagram& datagram, TimePoint now, const LinkFaults& faults);

  sim::Random random_;
  LinkFaults faults_[2];
  NetworkCounters counters_[2];
  std::uint64_t sequence_ = 0;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight_;
};

}  // namespace landlord::simulation
