#pragma once
// Pools and the free-address allocator.
//
// Each pool address is in exactly one of three classes, decided by its lease record:
//   clean     no record, or a record no client can claim (a decline hold that ended);
//   affinity  the record of an Expired or Released lease: still free, but remembered as that
//             client's, so the client gets the same address back when it returns;
//   taken     Offered, Bound or Declined, or reserved in the config (never handed out here).
// Clean addresses live in one FreeSet per pool (lowest first, O(1) in a full /8); affinity
// addresses in one ordered set per subnet, oldest end of lease first. pick() prefers a clean
// address and falls back to the oldest affinity address, so a client's old address goes to
// someone else only when the subnet has nothing cleaner to give.
//
// The allocator knows nothing about leases: whoever changes a record reports the address's
// class before and after (move()), so both views change in one step.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/lease/free_set.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::lease {

struct Availability {
  enum class Kind : std::uint8_t { Taken, Clean, Affinity };
  Kind kind = Kind::Clean;
  TimePoint ended_at{};  // Affinity only: when the lease ended (oldest goes first)

  // The class a record puts its address in (none: no record).
  static Availability of(LeaseState state, bool has_client, TimePoint expires_at);
  static Availability of(const Lease* record) {
    return record == nullptr ? Availability{}
                             : of(record->state, !record->client.empty(), record->expires_at());
  }
  bool operator==(const Availability&) const = default;
};

class Allocator {
 public:
  // Adds [first, last] to `subnet_id`'s pools with every address clean. Pools must not overlap.
  void add_pool(std::uint32_t subnet_id, Ipv4 first, Ipv4 last);
  // Never handed out by pick(): reservations, the subnet's network and broadcast addresses.
  void exclude(Ipv4 address);
  bool excluded(Ipv4 address) const;

  // The subnet whose pool holds `address`, if any.
  std::optional<std::uint32_t> pool_subnet(Ipv4 address) const;
  bool in_pool(std::uint32_t subnet_id, Ipv4 address) const {
    return pool_subnet(address) == subnet_id;
  }

  // The address changed class (its record changed). Addresses outside pools are ignored.
  void move(Ipv4 address, const Availability& before, const Availability& after);

  // Whether `address` is filed as `expected` (addresses outside pools, and excluded ones,
  // are filed nowhere: true). A check that the free set follows the lease table.
  bool files_as(Ipv4 address, const Availability& expected) const;

  // A free address of the subnet: the lowest clean one, else the oldest affinity one.
  std::optional<Ipv4> pick(std::uint32_t subnet_id) const;
  // The same among the pools `allowed` accepts (by their first address): pools kept for some
  // client classes. The affinity fallback walks past other pools' entries.
  std::optional<Ipv4> pick_where(std::uint32_t subnet_id,
                                 const std::function<bool(Ipv4 pool_first)>& allowed) const;

  // One server's part of every pool when peers share a store (engine/load_balance.hpp): segment
  // `index` of `count` equal segments of each pool.
  struct Share {
    std::uint32_t index = 0, count = 1;
  };
  // Like pick(), but from the share's segments first: the lowest clean address of the segment of
  // each pool, then the oldest affinity address in a segment (among the kShareAffinityScan
  // oldest), then whatever pick() gives. So peers allocating from one store do not offer the
  // same address at the same moment while their segments last.
  std::optional<Ipv4> pick_share(std::uint32_t subnet_id, Share share) const;
  // The same among the pools `allowed` accepts (pools kept for some client classes): each
  // peer takes from its own segment of every pool a class may use, then pick_where().
  std::optional<Ipv4> pick_share_where(std::uint32_t subnet_id, Share share,
                                       const std::function<bool(Ipv4 pool_first)>& allowed) const;
  static constexpr std::size_t kShareAffinityScan = 64;

  struct Usage {
    std::uint64_t total = 0, clean = 0, affinity = 0;
  };
  Usage usage(std::uint32_t subnet_id) const;
  // The same for each pool of the subnet, in the order add_pool() was given them.
  struct PoolUsage {
    Ipv4 first, last;
    Usage usage;
  };
  std::vector<PoolUsage> pool_usage(std::uint32_t subnet_id) const;
  // The usage of the pool holding `address` (none outside every pool): O(log pools).
  std::optional<Usage> usage_of_pool_at(Ipv4 address) const;
  std::size_t memory_bytes() const;

 private:
  struct Pool {
    std::uint32_t subnet_id;
    Ipv4 first, last;
    FreeSet clean;
    std::vector<std::uint32_t> excluded;  // sorted; a handful (reservations), so no hash set
    std::uint64_t affinity = 0;           // of the subnet's affinity set, the addresses in here
  };
  struct SubnetPools {
    std::vector<std::size_t> pools;  // indexes into pools_, in config order
    std::set<std::pair<std::int64_t, std::uint32_t>> affinity;  // (ended_at ms, address)
  };
  Pool* pool_of(Ipv4 address);
  const Pool* pool_of(Ipv4 address) const;
  void remove(Pool& pool, Ipv4 address, const Availability& availability);
  void add(Pool& pool, Ipv4 address, const Availability& availability);

  std::vector<Pool> pools_;  // sorted by first address
  std::unordered_map<std::uint32_t, SubnetPools> subnets_;
  std::vector<std::uint32_t> excluded_;  // sorted: exclusions made before their pool exists
};

}  // namespace landlord::lease
