#pragma once
// A lease as the control API shows it: Kea's keys (lease4-get), then landlord's own.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "landlord/base/time.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::control {

// Kea's "state": 0 default (leased or offered), 1 declined, 2 expired-reclaimed.
int kea_state(lease::LeaseState state);

nlohmann::json lease_to_json(const lease::Lease& lease, TimePoint now);

// Records in address order, one per address: of two copies of an address (a scan can read an
// address twice, table_scan.hpp) the one read later, that is later in `leases`, is kept.
void order_by_address(std::vector<lease::Lease>& leases);

// The answer to lease4-get-all / lease4-get-page as JSON text, as answer() would dump it (keys
// in order: arguments {count, leases}, result, text); `count` only when with_count. Made on the
// worker thread, one lease's JSON at a time, so no tree of the whole answer is ever built.
std::string lease_list_text(int result, const std::string& text, const std::vector<lease::Lease>& leases,
                            TimePoint now, bool with_count);

}  // namespace landlord::control
