#pragma once
// The name a lease gets in DNS and the option 81 its reply carries (RFC 4702), when the
// subnet's names go to DNS (`ddns:`). The decision is ddns::decide_name's; this piece gives it
// the request's options 81 and 12 and the reservation's hostname, and writes the outcome into
// the lease record (fqdn, sides, state Pending), where the daemon's DNS updater picks it up
// once the record is durable.
#include <optional>
#include <string_view>

#include "landlord/config/config.hpp"
#include "landlord/ddns/fqdn.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"
#include "ledger.hpp"

namespace landlord::engine {

// None when DNS updates are off for the subnet.
std::optional<ddns::NameDecision> dns_name_for(const config::Config& config, const config::Subnet& subnet,
                                               const wire::Message& request,
                                               const config::Reservation* reservation);

// The decision into the record. A request that names nothing keeps the name the lease already
// has (`held`: the record it extends), so a renewal without option 12 or 81 keeps its records.
// A renewal of the held name keeps its settled state (done, conflict) in the record.
void apply_dns_name(const std::optional<ddns::NameDecision>& decision, const lease::Lease* held, lease::Lease& lease);

// The daemon's updater finished the records of `fqdn` for `address`: an add (`added`) or a
// removal, settled as `result` (Done, Conflict, Failed). The record takes that state if the
// work is still its own: the same name, bound for an add and ended for a removal, and a state
// that differs. Otherwise newer work stands (a rename, a release, a new grant), or nothing
// changed (a renewal's add done again), and nothing is written.
Outcome dns_settled(Ledger& ledger, Ipv4 address, std::string_view fqdn, bool added, lease::DnsState result);

}  // namespace landlord::engine
