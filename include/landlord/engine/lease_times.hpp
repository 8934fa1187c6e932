#pragma once
// Options 51, 58 and 59 of an OFFER or ACK (RFC 2132 §9.2, §9.11, §9.12): the lease time, T1
// and T2, each a 32-bit count of whole seconds from the grant, 0xffffffff an infinite lease
// (RFC 2131 §3.3). Encoded here only: by the engine's replies (engine/reply.cpp), and by the
// durability machine when it cuts an ACK to what remains of a durable lease.
#include <cstdint>
#include <optional>

#include "landlord/base/time.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

struct WireLeaseTimes {
  std::uint32_t lease_s = 0, renew_s = 0, rebind_s = 0;
};

// Whole seconds, rounded down; 0xffffffff s and longer is infinite.
WireLeaseTimes wire_lease_times(Duration lease, Duration renew, Duration rebind);

// A lease of `lease` with T1 `renew` and T2 `rebind` cut to `remaining`, rounded down to whole
// seconds and finite (at most 0xfffffffe): T1 and T2 keep their share of the lease. None when
// less than a second remains, or whole seconds no longer keep T1 < T2 < lease
// (RFC 2131 §4.4.5): such a client is left to its lease's end.
std::optional<WireLeaseTimes> cut_lease_times(Duration remaining, Duration lease, Duration renew,
                                              Duration rebind);

// Writes 51, 58 and 59 into `options`.
void set_lease_times(wire::Options& options, const WireLeaseTimes& times);

}  // namespace landlord::engine
