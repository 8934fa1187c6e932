#include "landlord/config/config.hpp"

#include <algorithm>
#include <cmath>

namespace landlord::config {
namespace {

// Options 51/58/59 carry whole seconds, so T1 and T2 are whole seconds too: what the config
// validates (T1 < T2 < lease time) is exactly what clients receive. A fraction is applied in
// integer parts-per-million, so "87.5%" of 1h is exactly 3150s, free of floating-point drift.
Duration renewal_for(const RenewalTime& renewal, Duration lease_time) {
  using std::chrono::seconds;
  if (const auto* fixed = std::get_if<Duration>(&renewal)) {
    return std::chrono::duration_cast<seconds>(*fixed);
  }
  const auto parts_per_million = std::llround(std::get<Fraction>(renewal).value * 1'000'000.0);
  const auto lease_ms = lease_time.count();
  const auto renewal_ms = lease_ms / 1'000'000 * parts_per_million +
                          lease_ms % 1'000'000 * parts_per_million / 1'000'000;
  return std::chrono::duration_cast<seconds>(Duration{renewal_ms});
}

}  // namespace

Duration LeaseTimes::renew_duration() const { return renewal_for(renew, time); }
Duration LeaseTimes::rebind_duration() const { return renewal_for(rebind, time); }
Duration LeaseTimes::renew_duration(Duration lease_time) const {
  return renewal_for(renew, lease_time);
}
Duration LeaseTimes::rebind_duration(Duration lease_time) const {
  return renewal_for(rebind, lease_time);
}

Duration LeaseTimes::granted(std::optional<Duration> requested) const {
  if (!requested) return time;
  // Whole seconds, like every lease time on the wire.
  const auto asked = std::chrono::duration_cast<std::chrono::seconds>(*requested);
  return std::clamp<Duration>(asked, shortest(), longest());
}

}  // namespace landlord::config
