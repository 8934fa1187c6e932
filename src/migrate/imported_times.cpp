#include "landlord/migrate/imported_times.hpp"

#include <algorithm>

#include "landlord/base/duration.hpp"

namespace landlord::migrate {
namespace {

using std::chrono::seconds;

// The shortest lease whose whole-second T1 < T2 < lease all differ (1s, 2s, 3s).
constexpr Duration kShortestLease = seconds{3};

Duration whole_seconds_of(Duration time, std::int64_t numerator, std::int64_t denominator) {
  return std::chrono::duration_cast<seconds>(Duration{time.count() / denominator * numerator +
                                                      time.count() % denominator * numerator / denominator});
}

}  // namespace

Expected<ImportedTimes, std::string> imported_times(const config::LeaseTimes& times,
                                                    std::optional<TimePoint> expires, TimePoint now) {
  ImportedTimes result;
  if (!expires) {
    result.lease_time = times.longest();
    result.change = ImportedTimes::Change::Infinite;
  } else {
    // Rounded up: the server may hold the address a little longer than the client, never less.
    result.lease_time = std::chrono::ceil<seconds>(*expires - now);
    if (result.lease_time > kLongestLease) {
      return unexpected("ends in " + format_duration(result.lease_time) +
                        ": longer than any DHCP lease (2^32-2 s), the file is damaged");
    }
    if (times.max && result.lease_time > *times.max) {
      result.lease_time = *times.max;
      result.change = ImportedTimes::Change::CutToMax;
    } else if (times.min && result.lease_time < *times.min) {
      result.lease_time = *times.min;
      result.change = ImportedTimes::Change::RaisedToMin;
    }
  }
  result.lease_time = std::max<Duration>(std::chrono::ceil<seconds>(result.lease_time), kShortestLease);
  const Duration lease = result.lease_time;
  result.rebind = times.rebind_duration(lease);
  if (result.rebind >= lease || result.rebind <= Duration{0}) result.rebind = whole_seconds_of(lease, 7, 8);
  result.renew = times.renew_duration(lease);
  if (result.renew >= result.rebind || result.renew < seconds{1}) result.renew = whole_seconds_of(lease, 1, 2);
  if (result.renew >= result.rebind) {  // percentages too close for this short a lease
    result.rebind = whole_seconds_of(lease, 7, 8);
    result.renew = whole_seconds_of(lease, 1, 2);
  }
  return result;
}

}  // namespace landlord::migrate
