#pragma once
// Addresses taken back: leases past their end (reclaim), and grants whose records the store
// refused or that were never acknowledged (the durability machine's answers). The records
// change through the Ledger.
#include <cstddef>
#include <vector>

#include "landlord/engine/engine.hpp"
#include "ledger.hpp"
#include "topology.hpp"

namespace landlord::engine {

// Engine::reclaim: at most `max_records` records due by `now`; returns those to persist.
std::vector<lease::Lease> reclaim(Ledger& ledger, Counters& counters, TimePoint now, std::size_t max_records);
// Engine::refused.
bool refused(Ledger& ledger, const Topology& topology, Counters& counters, const lease::Lease& written,
             TimePoint now);
// Engine::unacknowledged.
bool unacknowledged(Ledger& ledger, const lease::Lease& granted, lease::Lease shortened);

}  // namespace landlord::engine
