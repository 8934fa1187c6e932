#pragma once
// What `landlord import` does with another server's leases: each live lease becomes a bound
// lease of landlord's with the same client and the time it had left (within lease.min and
// lease.max, T1/T2 as migrate/imported_times.hpp sets them), through the engine's operator path
// (Engine::admin_grant: the address in a pool or reserved for that client, not held by another
// client, one lease per client per subnet). Everything not imported is counted by reason, with
// its first lines, for the report; nothing is dropped unseen.
//
// The planner reads the file as a stream (it is the reader's LeaseVisitor) and keeps one entry
// per address of landlord's pools and reservations: memory follows the configuration, not the
// file. Addresses outside them are remembered up to kOutsideAddressesTracked, then counted per
// line.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "landlord/config/config.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {

inline constexpr std::size_t kExamplesKept = 20;  // per reason
inline constexpr std::size_t kOutsideAddressesTracked = 65536;

// Entries left out (or changed) for one reason: how many, and the first few (line, text, detail).
struct Skipped {
  std::string reason;       // "expired", "outside every pool", ...
  std::size_t count = 0;
  std::vector<LineFailure> examples;  // the first kExamplesKept
  void add(LineFailure entry);
};

struct ImportPlan {
  std::vector<lease::Lease> records;  // to commit, one transaction
  std::size_t leases_read = 0;        // lease entries the reader understood
  std::size_t live = 0;               // of those, the addresses' current, live entries: the candidates
  std::size_t superseded = 0;         // journal entries replaced by a later one for the address
  std::size_t ignored = 0;            // the file's entries of no concern (IPv6, host blocks)
  Skipped failures{"lines not understood", 0, {}};
  Skipped expired{"expired", 0, {}};
  Skipped inactive{"not active (free, released, declined, abandoned)", 0, {}};
  Skipped outside{"outside every pool", 0, {}};
  Skipped duplicates{"duplicate (the client or address has a later lease in the file)", 0, {}};
  Skipped refused{"refused (conflicts with the store or the configuration)", 0, {}};
  // Imported, changed:
  Skipped cut_to_max{"lease time cut to lease.max", 0, {}};
  Skipped raised_to_min{"lease time raised to lease.min", 0, {}};
  Skipped infinite{"infinite, given lease.max (or lease.time)", 0, {}};
  Skipped hostname_dropped{"hostname left out (over 255 bytes or control characters)", 0, {}};
};

class ImportPlanner final : public LeaseVisitor {
 public:
  ImportPlanner(const config::Config& config, bool journal, TimePoint now);

  void lease(ForeignLease&& lease) override;
  void failure(LineFailure&& failure) override;
  void ignored() override;

  std::size_t leases_read() const { return plan_.leases_read; }
  std::size_t failures() const { return plan_.failures.count; }
  const Skipped& failure_list() const { return plan_.failures; }

  // Decides what is imported. `engine` holds the store's current leases (restored) and the
  // configuration; it is changed as the records are planned, so the plan is consistent with
  // what is already stored. Once.
  ImportPlan finish(engine::Engine& engine) &&;

 private:
  struct Entry {
    ForeignLease lease;
    bool in_pool = false;
    std::size_t dropped_hostname = 0;  // the bytes of a hostname left out, 0: none
  };
  bool in_some_pool(Ipv4 address) const;
  // Counts a lease that is not live (or outside) by its reason; true when it is live.
  bool live(const ForeignLease& lease);

  const config::Config& config_;
  bool journal_;
  TimePoint now_;
  ImportPlan plan_;
  std::vector<Entry> current_;                    // first appearance order
  std::unordered_map<Ipv4, std::size_t> by_address_;
  std::size_t outside_tracked_ = 0;
};

// The whole of a file read by read_lease_file (tests).
ImportPlan plan_import(const LeaseFile& file, const config::Config& config, engine::Engine& engine,
                       TimePoint now);

// For stdout: "leases to import: 12", then a count per reason with up to `examples` lines of
// the benign ones (expired, not active, duplicates, changed); the lines not used are counted
// here and listed by problems().
std::string describe(const ImportPlan& plan, std::size_t examples);

// For stderr: "FILE:LINE: why" for each line not understood, outside every pool or refused,
// in line order, at most `limit` of them, then how many more.
std::string problems(const ImportPlan& plan, std::string_view file_name, std::size_t limit);
std::string problems(const Skipped& failures, std::string_view file_name, std::size_t limit);

}  // namespace landlord::migrate
