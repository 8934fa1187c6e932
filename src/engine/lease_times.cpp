// Options 51/58/59 (lease_times.hpp).
#include "landlord/engine/lease_times.hpp"

#include <algorithm>
#include <limits>

namespace landlord::engine {
namespace {

constexpr std::int64_t kInfinite = std::numeric_limits<std::uint32_t>::max();

std::uint32_t whole_seconds(Duration duration) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(to_seconds(duration), 0, kInfinite));
}

}  // namespace

WireLeaseTimes wire_lease_times(Duration lease, Duration renew, Duration rebind) {
  return {whole_seconds(lease), whole_seconds(renew), whole_seconds(rebind)};
}

std::optional<WireLeaseTimes> cut_lease_times(Duration remaining, Duration lease, Duration renew,
                                              Duration rebind) {
  if (lease <= Duration{0} || to_seconds(remaining) < 1) return std::nullopt;
  const auto lease_s = static_cast<std::uint32_t>(std::min(to_seconds(remaining), kInfinite - 1));
  const auto scaled_s = [&](Duration part) {  // T1 and T2 keep their share of the lease
    const double share = static_cast<double>(part.count()) / static_cast<double>(lease.count());
    return static_cast<std::uint32_t>(static_cast<double>(lease_s) * std::min(share, 1.0));
  };
  const WireLeaseTimes cut{lease_s, scaled_s(renew), scaled_s(rebind)};
  if (!(cut.renew_s < cut.rebind_s && cut.rebind_s < cut.lease_s)) return std::nullopt;
  return cut;
}

void set_lease_times(wire::Options& options, const WireLeaseTimes& times) {
  options.set_u32(wire::option::kLeaseTime, times.lease_s);
  options.set_u32(wire::option::kRenewalTime, times.renew_s);
  options.set_u32(wire::option::kRebindingTime, times.rebind_s);
}

}  // namespace landlord::engine
