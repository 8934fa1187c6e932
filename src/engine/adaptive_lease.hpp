#pragma once
// Adaptive lease time (config::AdaptivePool): while a pool is nearly full, new leases in it get
// a shorter time, so the addresses of clients that went away come back sooner. Renewals and
// rebinds of a client's own lease keep the normal time: a client still there is not the
// problem, and churning its lease would only add traffic.
#include <optional>

#include "landlord/config/config.hpp"
#include "landlord/lease/allocator.hpp"
#include "reply.hpp"

namespace landlord::engine {

// The adaptive pool of `subnet` holding `address`, if any.
const config::AdaptivePool* adaptive_pool_at(const config::Subnet& subnet, Ipv4 address);

// Whether the pool's use is above its threshold: addresses not free (offered, bound, declined,
// reserved) over all, counting one more when `counting_one_more` (the address about to be
// granted is still free in `usage`).
bool above_threshold(const config::AdaptivePool& pool, const lease::Allocator::Usage& usage,
                     bool counting_one_more);

// `normal` cut to the pool's shorter time, T1 and T2 following it as the subnet's renew and
// rebind say; unchanged when the client was granted less already (option 51).
LeaseDurations shortened(const config::AdaptivePool& pool, const config::LeaseTimes& times,
                         const LeaseDurations& normal);

}  // namespace landlord::engine
