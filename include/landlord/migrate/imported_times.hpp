#pragma once
// The lease time, T1 and T2 an imported lease gets: the time it had left, within the subnet's
// lease.min and lease.max when those are set (an infinite lease gets lease.max, or lease.time),
// and T1/T2 as Kea applies fixed timers to a lease they do not fit: a fixed rebind that is not
// shorter than the lease is left to the client's default (RFC 2131 §4.4.5: 87.5% of the lease),
// and so is a fixed renew not shorter than T2 (50%); percentages follow the lease time.
#include <optional>
#include <string>

#include "landlord/base/expected.hpp"
#include "landlord/base/time.hpp"
#include "landlord/config/config.hpp"

namespace landlord::migrate {

struct ImportedTimes {
  Duration lease_time{}, renew{}, rebind{};  // whole seconds, 1s <= renew < rebind < lease_time
  enum class Change : std::uint8_t { None, CutToMax, RaisedToMin, Infinite } change = Change::None;
};

// The longest lease time a DHCP lease can carry (option 51; 0xffffffff means infinite).
inline constexpr Duration kLongestLease = std::chrono::seconds{0xfffffffeLL};

// `expires` after `now` (nullopt: infinite). An error (the reason) for a time left longer than
// any DHCP lease: no server granted that, the file is damaged.
Expected<ImportedTimes, std::string> imported_times(const config::LeaseTimes& times,
                                                    std::optional<TimePoint> expires, TimePoint now);

}  // namespace landlord::migrate
