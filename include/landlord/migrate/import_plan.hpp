#pragma once
// What `landlord import` does with another server's leases: each live lease becomes a bound
// lease of landlord's with the same client and the time it had left, through the engine's
// operator path (Engine::admin_grant: the address in a pool or reserved for that client, not
// held by another client, one lease per client per subnet). Everything not imported is
// counted by reason, with its lines, for the report; nothing is dropped unseen.
#include <cstddef>
#include <string>
#include <vector>

#include "landlord/config/config.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {

// Leases left out for one reason, with the entries (line, text, detail) to show.
struct Skipped {
  std::string reason;       // "expired", "outside every pool", ...
  std::vector<LineFailure> entries;
};

struct ImportPlan {
  std::vector<lease::Lease> records;  // to commit, one transaction
  std::size_t superseded = 0;         // journal entries replaced by a later one for the address
  std::size_t ignored = 0;            // the file's entries of no concern (IPv6, host blocks)
  std::vector<LineFailure> failures;  // lines not understood: the import must not proceed
  Skipped expired{"expired", {}};
  Skipped inactive{"not active (free, released, declined, abandoned)", {}};
  Skipped outside{"outside every pool", {}};
  Skipped duplicates{"duplicate (the client or address has a later lease in the file)", {}};
  Skipped refused{"refused (conflicts with the store or the configuration)", {}};
};

// `engine` holds the store's current leases (restored) and the configuration; it is changed
// as the records are planned, so the plan is consistent with what is already stored.
ImportPlan plan_import(const LeaseFile& file, const config::Config& config, engine::Engine& engine,
                       TimePoint now);

// "imported 12; expired 3; outside every pool 1 ..." and up to `examples` lines per reason.
std::string describe(const ImportPlan& plan, std::size_t examples);

}  // namespace landlord::migrate
