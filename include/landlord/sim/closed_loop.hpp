#pragma once
// The closed-loop benchmark (ISC's method for Kea, PEERS.md §4.3): offer new clients at a rate,
// raise the rate step by step, and stop at the first step where more than a threshold of the
// replies missed a deadline. The sustainable rate is what the last passing step completed.
// Sans-I/O like the fleet it drives: the caller brings time, packets and a Sink.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "landlord/base/time.hpp"
#include "landlord/sim/fleet.hpp"

namespace landlord::sim {

struct ClosedLoopPlan {
  double start_rate_per_s = 10;
  double factor = 1.25;                         // rate of step n+1 = rate of step n × factor
  Duration step = std::chrono::seconds(5);      // arrivals of one step
  Duration deadline = std::chrono::seconds(1);  // a reply later than this is a miss
  double max_miss_fraction = 0.025;             // more than this fails a step
  std::size_t max_steps = 20;
  std::size_t max_clients = 0;  // fresh clients over all steps (the pool); 0: no limit
};

// One step's verdict. Every new client expects two replies: OFFER to its first DISCOVER and
// ACK to its first REQUEST, each within the deadline of that request's first transmission.
struct StepResult {
  double rate_per_s = 0;  // offered: new clients per second
  std::size_t clients = 0;
  std::size_t replies_missed = 0;  // late, never came, or still outstanding at the end
  std::size_t completed = 0;       // ACKs received (late ones too): DORAs done
  double completed_per_s = 0;      // completed / step length
  double miss_fraction = 0;        // replies_missed / (2 × clients)
  bool passed = false;
};

enum class ClosedLoopStop : std::uint8_t {
  Running,        // in a report: interrupted (Ctrl-C) before the search ended
  MissThreshold,  // a step failed: the answer
  Steps,          // max_steps all passed: the server is faster than this search went
  Duration,       // the run's duration left no room for another step
  Clients,        // the next step would need more than max_clients
};
std::string_view to_string(ClosedLoopStop stop);

// Judges clients [first, first + count) of `fleet` at `now_ns`: how many replies missed the
// deadline, and whether each expected reply is already decided (came, or its deadline passed).
struct StepTally {
  std::size_t replies_missed = 0;
  std::size_t completed = 0;
  bool decided = true;
};
StepTally tally_step(const Fleet& fleet, ClientIndex first, std::size_t count,
                     std::int64_t now_ns, Duration deadline);

class ClosedLoop {
 public:
  // `fleet` should have been made with no clients of its own (Workload::clients = 0); its
  // duration bounds the whole search.
  ClosedLoop(const ClosedLoopPlan& plan, Fleet& fleet, TimePoint start);

  void advance(TimePoint now, std::int64_t precise_ns, Sink& sink);
  void receive(std::span<const std::uint8_t> payload, TimePoint now, std::int64_t precise_ns,
               Sink& sink) {
    fleet_.receive(payload, now, precise_ns, sink);
  }
  std::optional<TimePoint> next_deadline() const;
  // A step under way is judged first, even when it ends a little past the fleet's duration.
  bool finished(TimePoint now) const {
    return stop_ != ClosedLoopStop::Running || (!in_step_ && fleet_.finished(now));
  }

  const ClosedLoopPlan& plan() const { return plan_; }
  const std::vector<StepResult>& steps() const { return steps_; }
  ClosedLoopStop stop_reason() const { return stop_; }
  // The offered rate of the step under way (or next).
  double current_rate_per_s() const { return next_rate_per_s_; }
  // completed_per_s of the last step that passed; nullopt when the first step failed.
  std::optional<double> sustainable_dora_per_s() const;
  // Fresh clients all max_steps would need if every step passed: the pool to configure.
  std::size_t clients_needed() const;

 private:
  std::size_t clients_for(double rate_per_s) const;
  void begin_step(TimePoint now);
  void end_step(const StepTally& tally);

  static constexpr Duration kRecheck{20};  // after a step's arrivals, until it is decided

  ClosedLoopPlan plan_;
  Fleet& fleet_;
  TimePoint end_;  // the fleet's duration
  ClosedLoopStop stop_ = ClosedLoopStop::Running;
  std::vector<StepResult> steps_;
  double next_rate_per_s_;
  // The step under way.
  bool in_step_ = false;
  ClientIndex step_first_ = 0;
  std::size_t step_clients_ = 0;
  TimePoint step_arrivals_end_{};
  TimePoint step_last_check_{};
  std::size_t clients_used_ = 0;
};

}  // namespace landlord::sim
