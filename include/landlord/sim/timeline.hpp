#pragma once
// The run over time (--timeline, --stats-every, --html): one sample per period with the clients
// by state, what happened in the period (leases, renewals, rebinds, losses), the period's
// REQUEST->ACK and RENEW->ACK latencies, and the addresses our clients held. Written as CSV
// lines as they come; kept in memory for the HTML report, thinned by merging neighbours so a
// run of any length keeps at most kKeptSamples.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "landlord/sim/fleet.hpp"
#include "landlord/sim/histogram.hpp"

namespace landlord::sim {

// A period's latencies for one exchange (ms); count 0 when none completed.
struct PeriodLatency {
  std::uint64_t count = 0;
  double p50 = 0, p99 = 0, max = 0;
};

struct TimelineSample {
  double at_s = 0;      // end of the period, since the start of the run
  double length_s = 0;  // of the period (merged samples cover several)
  std::array<std::size_t, kClientStateCount> states{};
  std::size_t leases = 0, renewals = 0, rebinds = 0, naks = 0, expirations = 0;  // in the period
  std::size_t timeouts = 0, replies_dropped = 0, unicast_blocked = 0;
  std::size_t addresses_held = 0;  // distinct addresses our clients held at the end
  std::size_t violations = 0;      // found so far
  PeriodLatency request_ack, renew_ack;
  bool unicast_block_active = false;  // --block-unicast covered part of the period
};

class Timeline : public LatencyObserver {
 public:
  static constexpr std::size_t kKeptSamples = 2048;

  // Watches `fleet`'s latencies from now on; sample() is called once per period.
  explicit Timeline(Fleet& fleet);
  ~Timeline() override;
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  void on_latency(Exchange exchange, double latency_ms) override;
  // Closes the period ending `at_s` seconds into the run and returns its sample.
  const TimelineSample& sample(double at_s);

  const std::vector<TimelineSample>& samples() const { return samples_; }

 private:
  void thin();

  Fleet& fleet_;
  struct Counters {
    std::size_t leases = 0, renewals = 0, rebinds = 0, naks = 0, expirations = 0;
    std::size_t timeouts = 0, replies_dropped = 0, unicast_blocked = 0;
  };
  static Counters counters_of(const Stats& stats);
  Counters previous_;  // at the last sample
  double previous_at_s_ = 0;
  Histogram request_ack_{kLatencyResolutionMs};
  Histogram renew_ack_{kLatencyResolutionMs};
  std::vector<TimelineSample> samples_;
};

// CSV: one header line, then one line per sample; the columns are documented in
// docs/simulator.md.
std::string timeline_csv_header();
std::string timeline_csv_line(const TimelineSample& sample);

}  // namespace landlord::sim
