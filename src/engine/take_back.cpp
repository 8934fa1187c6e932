// Addresses taken back (take_back.hpp).
#include "take_back.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::engine {

using lease::Lease;
using lease::LeaseState;

std::vector<Lease> reclaim(Ledger& ledger, Counters& counters, TimePoint now, std::size_t max_records) {
  std::vector<Lease> mutations;
  for (std::size_t done = 0; done < max_records; ++done) {
    const std::optional<Lease> due = ledger.table().next_due(now);
    if (due == std::nullopt) break;
    switch (due->state) {
      case LeaseState::Offered:
        ledger.end_hold(due->address);  // an offer is memory only: nothing to persist
        break;
      case LeaseState::Bound: {
        Lease expired = *due;
        expired.state = LeaseState::Expired;
        name_to_remove(expired);
        ledger.write(expired, Token::Kept);
        ++counters.expirations;
        mutations.push_back(std::move(expired));
        break;
      }
      case LeaseState::Declined: {
        // The hold is over: the address is free for anyone, the decliner keeps no claim.
        Lease freed = to_nobody(*due);
        ledger.write(freed, Token::Follows);  // a change, to nobody
        mutations.push_back(std::move(freed));
        break;
      }
      case LeaseState::Expired:
      case LeaseState::Released:
        LANDLORD_ASSERT(false && "records without a deadline are never due");
    }
  }
  return mutations;
}

bool refused(Ledger& ledger, const Topology& topology, Counters& counters, const Lease& written,
             TimePoint now) {
  // Superseded (a later grant, extension, expiry or hold of the address): that one is what
  // stands, and the store answers for it on its own.
  if (!ledger.stands(written)) return false;
  ++counters.fenced;
  Lease nobody = to_nobody(written);
  nobody.granted_at = std::min(written.granted_at, now);
  nobody.lease_time = Duration{0};
  ledger.write(nobody, Token::Kept);  // the address's token stays: never lower than what this engine wrote
  Duration hold_for = written.lease_time;
  for (const SubnetView& view : topology.subnets()) {
    if (view.id() == written.subnet_id) hold_for = std::max(hold_for, view.lease_time);
  }
  Lease quarantine = nobody;
  quarantine.state = LeaseState::Offered;
  ledger.hold(std::move(quarantine), std::max(written.expires_at(), now + hold_for));
  return true;
}

bool unacknowledged(Ledger& ledger, const Lease& granted, Lease shortened) {
  LANDLORD_ASSERT(granted.address == shortened.address && granted.client == shortened.client);
  if (!ledger.stands(granted)) return false;  // superseded: a later change of the address stands
  ledger.write(shortened, Token::Kept);
  return true;
}

}  // namespace landlord::engine
