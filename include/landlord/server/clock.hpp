#pragma once
// The server's one clock seam (docs/architecture.md, "Where time comes from"). `now()` is the
// wall clock read once at start plus steady time elapsed since: lease expiries are absolute
// (they survive a restart) yet within one run time never jumps backwards or forwards when NTP
// or an operator moves the wall clock. Timers convert a lease deadline back to the steady clock.
// Every clock reading in the daemon goes through here: lease time (`now`), steady time for its
// own intervals (`steady`: rescans, rate-limited logs, the drain limit, REQUEST->ACK latency)
// and the kernel's CLOCK_REALTIME (`realtime_ns`: only to compare with a datagram's receive
// timestamp, which the kernel stamps by that clock). The pieces that decide by time take it as
// an argument, so their tests pass any time they like.
#include <chrono>
#include <cstdint>

#include "landlord/base/time.hpp"

namespace landlord::server {

class Clock {
 public:
  using Steady = std::chrono::steady_clock;

  Clock();  // reads the system wall clock and the steady clock once
  Clock(TimePoint wall_at_start, Steady::time_point steady_at_start)
      : wall_at_start_(wall_at_start), steady_at_start_(steady_at_start) {}

  TimePoint now() const { return at(Steady::now()); }
  Steady::time_point steady() const { return Steady::now(); }
  std::int64_t realtime_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  TimePoint at(Steady::time_point steady) const {
    return wall_at_start_ + std::chrono::duration_cast<Duration>(steady - steady_at_start_);
  }
  Steady::time_point to_steady(TimePoint time) const {
    return steady_at_start_ + (time - wall_at_start_);
  }

 private:
  TimePoint wall_at_start_;
  Steady::time_point steady_at_start_;
};

}  // namespace landlord::server
