#pragma once
// Operators' changes through the control API (Engine::admin_grant, admin_revoke), held to the
// invariants a DHCP request is; the records change through the Ledger like a grant's.
#include "landlord/engine/engine.hpp"
#include "ledger.hpp"
#include "topology.hpp"

namespace landlord::engine {

AdminResult admin_grant(Ledger& ledger, const Topology& topology, const AdminLease& request, bool update,
                        TimePoint now);
AdminResult admin_revoke(Ledger& ledger, Ipv4 address, TimePoint now);

}  // namespace landlord::engine
