#include "discover_waits.hpp"

#include "landlord/base/assert.hpp"

namespace landlord::engine {

Duration DiscoverWaits::trying_for(const ClientKey& client, TimePoint now) {
  if (const auto known = seen_.find(client); known != seen_.end()) {
    Seen& seen = known->second;
    if (now - seen.last > kForgetAfter || now < seen.first) seen.first = now;  // starts over
    seen.last = now;
    return now - seen.first;
  }
  if (seen_.size() >= kCapacity) drop_silent(now);
  if (seen_.size() >= kCapacity) return Duration::zero();
  seen_.emplace(client, Seen{now, now});
  LANDLORD_ASSERT(seen_.size() <= kCapacity);
  return Duration::zero();
}

void DiscoverWaits::drop_silent(TimePoint now) {
  if (swept_at_ != TimePoint{} && now - swept_at_ < std::chrono::seconds{1}) return;
  swept_at_ = now;
  std::erase_if(seen_, [now](const auto& entry) { return now - entry.second.last > kForgetAfter; });
}

}  // namespace landlord::engine
