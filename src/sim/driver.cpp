// The real-time loop: the fleet's clock is the run's clock, the transport's poll timeout is the
// time to the fleet's next deadline.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "landlord/sim/transport.hpp"

namespace landlord::sim {

namespace {

constexpr Duration kMaxPollWait{100};  // so `stop` and the progress line stay responsive

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RunClock::RunClock()
    : wall_start_(
          std::chrono::time_point_cast<Duration>(TimePoint{std::chrono::duration_cast<Duration>(
              std::chrono::system_clock::now().time_since_epoch())})),
      steady_start_ns_(steady_ns()) {}

TimePoint RunClock::now() const { return at(steady_ns()); }

TimePoint RunClock::at(std::int64_t precise_ns) const {
  return wall_start_ + Duration{(precise_ns - steady_start_ns_) / 1'000'000};
}

std::int64_t RunClock::precise_ns() const { return steady_ns(); }

namespace {

// `Run` is a Fleet or a ClosedLoop driving one: both advance, receive and name a next deadline.
template <class Run>
RealtimeResult run_loop(Run& fleet, Transport& transport, const volatile bool& stop,
                        const std::function<void(double elapsed_s)>& progress, Duration period) {
  const std::int64_t period_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period).count();
  const RunClock clock;
  const double cpu_start = cpu_seconds();
  const std::int64_t start_ns = clock.precise_ns();
  std::int64_t next_progress_ns = start_ns + period_ns;
  const auto elapsed_s = [&] { return static_cast<double>(clock.precise_ns() - start_ns) / 1e9; };
  // Built once: a std::function made from this lambda at each poll would allocate each time.
  const Transport::Receiver on_packet = [&](std::span<const std::uint8_t> payload) {
    const std::int64_t precise_ns = clock.precise_ns();
    fleet.receive(payload, clock.at(precise_ns), precise_ns, transport);
  };
  while (!stop) {
    const std::int64_t now_ns = clock.precise_ns();
    const TimePoint now = clock.at(now_ns);
    if (fleet.finished(now)) break;
    fleet.advance(now, now_ns, transport);
    transport.flush();
    Duration wait = kMaxPollWait;
    if (const auto next = fleet.next_deadline()) {
      wait = std::clamp(*next - clock.now(), Duration{0}, kMaxPollWait);
    }
    transport.poll(wait, on_packet);
    transport.flush();
    if (progress && clock.precise_ns() >= next_progress_ns) {
      progress(elapsed_s());
      next_progress_ns += period_ns;
    }
  }
  return {elapsed_s(), cpu_seconds() - cpu_start};
}

}  // namespace

RealtimeResult run_realtime(Fleet& fleet, Transport& transport, const volatile bool& stop,
                            const std::function<void(double elapsed_s)>& progress,
                            Duration period) {
  return run_loop(fleet, transport, stop, progress, period);
}

RealtimeResult run_realtime(ClosedLoop& loop, Transport& transport, const volatile bool& stop,
                            const std::function<void(double elapsed_s)>& progress,
                            Duration period) {
  return run_loop(loop, transport, stop, progress, period);
}

}  // namespace landlord::sim
