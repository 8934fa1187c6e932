#pragma once
// `landlord export --format kea-csv`: landlord's live leases as a Kea memfile lease4 CSV
// (Kea 2.2's columns), which kea-dhcp4 loads as its lease file.
#include <span>
#include <string>

#include "landlord/lease/lease.hpp"

namespace landlord::migrate {

// The header and one row per bound lease not yet ended at `now` (others are left out):
// expire = granted_at + lease_time in Unix seconds, subnet_id landlord's (1-based position
// in landlord.yaml: Kea's subnet4 ids must match), state 0.
std::string export_kea_csv(std::span<const lease::Lease> records, TimePoint now);

}  // namespace landlord::migrate
