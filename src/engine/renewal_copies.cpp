#include "renewal_copies.hpp"

#include <functional>

namespace landlord::engine {

void RenewalCopies::remember(const wire::Message& renewal, const ClientKey& client, TimePoint now) {
  const std::uint64_t hash = std::hash<ClientKey>{}(client);
  seen_[hash % kSlots] = Seen{hash, renewal.xid, renewal.ciaddr, now};
}

bool RenewalCopies::is_copy(const wire::Message& request, const ClientKey& client, TimePoint now) const {
  if (request.giaddr.is_zero() || request.ciaddr.is_zero()) return false;
  const std::uint64_t hash = std::hash<ClientKey>{}(client);
  const Seen& seen = seen_[hash % kSlots];
  return seen.client_hash == hash && seen.xid == request.xid && seen.ciaddr == request.ciaddr &&
         now >= seen.at && now - seen.at < kWindow;
}

}  // namespace landlord::engine
