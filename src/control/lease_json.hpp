#pragma once
// A lease as the control API shows it: Kea's keys (lease4-get), then landlord's own.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/base/time.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::control {

// Kea's "state": 0 default (leased or offered), 1 declined, 2 expired-reclaimed.
int kea_state(lease::LeaseState state);

nlohmann::json lease_to_json(const lease::Lease& lease, TimePoint now);

// A bound lease's phase as the API names it: bound, past-t1, past-t2, expired.
std::string_view phase_name(lease::Phase phase);

}  // namespace landlord::control
