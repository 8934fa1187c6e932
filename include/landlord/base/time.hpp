#pragma once
// Time is a parameter. Everything below server/ receives `now` as an argument and never reads
// a clock. One time type: milliseconds since the Unix epoch, so a lease's absolute expiry can be
// persisted and survives a restart. The server derives `now` as wall-clock-at-start plus steady
// time elapsed, so within one run time never jumps, whatever the wall clock does.
#include <chrono>
#include <cstdint>

namespace landlord {

using Duration = std::chrono::milliseconds;

// A clock tag with no now(): code that needs the time is handed it.
struct LeaseClock {
  using rep = std::int64_t;
  using period = std::milli;
  using duration = Duration;
  using time_point = std::chrono::time_point<LeaseClock, Duration>;
  static constexpr bool is_steady = false;
};

using TimePoint = LeaseClock::time_point;

constexpr TimePoint time_from_unix_ms(std::int64_t unix_ms) { return TimePoint{Duration{unix_ms}}; }
constexpr std::int64_t unix_ms(TimePoint time) { return time.time_since_epoch().count(); }
constexpr std::int64_t unix_seconds(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

// Whole seconds of `duration`, rounded toward zero: how a duration is shown as a number (logs,
// the control API's JSON, events.exec's environment).
constexpr std::int64_t to_seconds(Duration duration) {
  return std::chrono::duration_cast<std::chrono::seconds>(duration).count();
}

}  // namespace landlord
