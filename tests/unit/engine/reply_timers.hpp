#pragma once
// Test support for the engine's lease-time tests: the lease time, T1 and T2 a reply carries
// (options 51, 58, 59), in seconds, comparable and printable in a failure.
#include <cstdint>
#include <optional>
#include <ostream>

#include "engine_harness.hpp"

namespace landlord::engine::testing {

struct Timers {
  std::optional<std::uint32_t> lease_s, renew_s, rebind_s;
  bool operator==(const Timers&) const = default;
};

inline Timers timers_of(const Outcome& outcome) {
  const wire::Options& options = outcome.reply->message.options;
  return {options.get_u32(option::kLeaseTime), options.get_u32(option::kRenewalTime),
          options.get_u32(option::kRebindingTime)};
}

inline void PrintTo(const Timers& timers, std::ostream* out) {
  *out << "lease " << timers.lease_s.value_or(0) << "s T1 " << timers.renew_s.value_or(0)
       << "s T2 " << timers.rebind_s.value_or(0) << "s";
}

}  // namespace landlord::engine::testing
