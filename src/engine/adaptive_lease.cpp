#include "adaptive_lease.hpp"

namespace landlord::engine {

const config::AdaptivePool* adaptive_pool_at(const config::Subnet& subnet, Ipv4 address) {
  for (const config::AdaptivePool& pool : subnet.adaptive_pools) {
    if (pool.range.contains(address)) return &pool;
  }
  return nullptr;
}

bool above_threshold(const config::AdaptivePool& pool, const lease::Allocator::Usage& usage,
                     bool counting_one_more) {
  if (usage.total == 0) return false;
  const std::uint64_t free = usage.clean + usage.affinity;
  const std::uint64_t used = usage.total - free + (counting_one_more && free > 0 ? 1 : 0);
  return static_cast<double>(used) > pool.shrink_above * static_cast<double>(usage.total);
}

LeaseDurations shortened(const config::AdaptivePool& pool, const config::LeaseTimes& times,
                         const LeaseDurations& normal) {
  if (normal.lease_time <= pool.shortened_to) return normal;
  return {pool.shortened_to, times.renew_duration(pool.shortened_to),
          times.rebind_duration(pool.shortened_to)};
}

}  // namespace landlord::engine
