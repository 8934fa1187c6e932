#include "lossy_network.hpp"

namespace landlord::simulation {

LossyNetwork::LossyNetwork(std::uint64_t seed, LinkFaults to_server, LinkFaults to_clients)
    : random_(sim::derive_seed(seed, 0x4e7)), faults_{to_server, to_clients} {}

void LossyNetwork::send(Datagram datagram, TimePoint now) {
  const auto direction = static_cast<std::size_t>(datagram.direction);
  const LinkFaults& faults = faults_[direction];
  NetworkCounters& counters = counters_[direction];
  ++counters.sent;
  if (random_.chance(faults.drop)) {
    ++counters.dropped;
    return;
  }
  if (random_.chance(faults.duplicate)) {
    ++counters.duplicated;
    schedule(datagram, now, faults);
  }
  schedule(datagram, now, faults);
}

void LossyNetwork::schedule(const Datagram& datagram, TimePoint now, const LinkFaults& faults) {
  const Duration delay{random_.between(faults.delay_min.count(), faults.delay_max.count())};
  in_flight_.push({now + delay, sequence_++, datagram});
}

std::optional<TimePoint> LossyNetwork::next_due() const {
  if (in_flight_.empty()) return std::nullopt;
  return in_flight_.top().due;
}

Datagram LossyNetwork::take() {
  Datagram datagram = in_flight_.top().datagram;
  in_flight_.pop();
  ++counters_[static_cast<std::size_t>(datagram.direction)].delivered;
  return datagram;
}

}  // namespace landlord::simulation
