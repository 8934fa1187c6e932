#pragma once
// The in-memory lease table: the one owner of every lease index.
//
//   by address   one record per address: the lease, or the last lease, of that address. A record
//                is replaced, never removed (except an offer hold on a never-used address), so the
//                address's fencing token lives on in it after the lease ends.
//   by client    the client's most recent record (latest granted_at), for affinity.
//   by deadline  a binary min-heap of the records that have one: expiry for Bound, hold end for
//                Offered and Declined. Each record knows its heap position, so a change re-sorts
//                that one entry in O(log n) (etcd's heap.Fix); expiry never scans the table.
//
// Every change goes through put()/hold()/end_hold(), which re-index in one place.
//
// Records are kept compact (compact_lease.hpp) and handed out as Lease values, built on each
// read: a reader holds a copy, never a pointer into the table.
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "landlord/lease/allocator.hpp"
#include "landlord/lease/compact_lease.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/lease/page_allocator.hpp"
#include "landlord/lease/slot_index.hpp"

namespace landlord::lease {

class LeaseTable {
 public:
  // The facts of a record that decisions turn on, read in place: find() builds a whole Lease
  // (strings included), which the engine's hot paths do not need.
  struct Facts {
    Ipv4 address;
    LeaseState state = LeaseState::Offered;
    std::uint32_t subnet_id = 0;
    FencingToken fencing_token = 0;
    bool has_client = false;  // the record names a client (a non-empty key)
    bool of_client = false;   // ... and it is the client the facts were asked for
    static Facts of(const Lease& lease, const ClientKey& client);
  };
  // The facts of `address`'s record, or of `client`'s most recent record (of_client is true).
  std::optional<Facts> facts(Ipv4 address, const ClientKey& client) const;
  std::optional<Facts> facts(const ClientKey& client) const;

  std::optional<Lease> find(Ipv4 address) const;
  // The client's most recent record (any state), if any.
  std::optional<Lease> find(const ClientKey& client) const;
  // The allocator's class for `address` (allocator.hpp), without building its record.
  Availability availability(Ipv4 address) const;

  // Inserts or replaces the record for record.address (never 0.0.0.0), never with a lower
  // fencing token than the address's record has (asserted). Any state but Offered;
  // a hold on the address is dropped together with the record it covered. Deadline:
  // expires_at() for Bound and Declined, none for Expired and Released.
  void put(Lease record);

  // Makes `offer` (state Offered) the address's record until `hold_until`. The record it
  // replaces, if any, is kept aside and comes back when the hold ends without a grant.
  void hold(Lease offer, TimePoint hold_until);
  // Ends the hold on `address`: back to the covered record, or no record at all.
  void end_hold(Ipv4 address);
  // The record a hold on `address` covers (its last real lease), if any.
  std::optional<Lease> covered(Ipv4 address) const;

  // Earliest pending deadline, O(1).
  std::optional<TimePoint> next_deadline() const;
  // The record with the earliest deadline if that deadline is at or before `now`.
  std::optional<Lease> next_due(TimePoint now) const;

  std::size_t size() const { return records_.size() - free_slots_.size(); }
  std::size_t holds() const { return covered_.size(); }
  void for_each(const std::function<void(const Lease&)>& visit) const;
  // for_each over table positions [from, until) only (clamped to positions()): a piece of a
  // scan that yields between pieces. A position is a slot; records never leave theirs while
  // they exist, and positions() never shrinks.
  void for_each_in(std::size_t from, std::size_t until, const std::function<void(const Lease&)>& visit) const;
  std::size_t positions() const { return records_.size(); }

  // Memory held by the table and its indexes (capacity, not use), for the issue #6 budget.
  std::size_t memory_bytes() const;
  static constexpr std::size_t record_bytes() { return sizeof(CompactLease); }

 private:
  using Slot = SlotIndex::Slot;
  static constexpr std::uint32_t kNotQueued = 0xffffffffu;
  struct Deadline {
    std::int64_t at_unix_ms;
    Slot slot;
  };

  std::optional<Slot> slot_of(Ipv4 address) const;
  std::optional<Slot> slot_of(const ClientKey& client) const;
  const LeaseExtra* extra_of(Slot slot) const;
  Lease lease_at(Slot slot) const { return decode(records_[slot], extra_of(slot)); }
  Facts facts_at(Slot slot, const ClientKey& client) const;
  ClientKey client_at(Slot slot) const { return client_key_of(records_[slot], extra_of(slot)); }
  Slot allocate_slot();
  void release_slot(Slot slot);
  // The one re-indexing path: `slot` changes from its current content to `next`.
  void replace(Slot slot, Lease next, std::optional<TimePoint> deadline);
  // Stores `record` in `slot`, with `extra` when it has one.
  void store(Slot slot, const CompactLease& record, LeaseExtra extra);
  void release_extra(Slot slot);
  void index_client(Slot slot, const ClientKey& client);  // `client`: the slot's key
  void unindex_client(Slot slot);
  void set_deadline(Slot slot, std::optional<TimePoint> deadline);
  void heap_swap(std::size_t a, std::size_t b);
  void sift_up(std::size_t position);
  void sift_down(std::size_t position);

  PagedVector<CompactLease> records_;
  PagedVector<Slot> free_slots_;
  PagedVector<LeaseExtra> extras_;  // hostnames, uncommon client ids, uncommon leases
  PagedVector<std::uint32_t> free_extras_;
  SlotIndex by_address_;
  SlotIndex by_client_;
  PagedVector<Deadline> deadlines_;
  // Each slot's position in deadlines_ (kNotQueued if none), apart from the records so that a
  // sift touches 4-byte entries, not 56-byte records.
  PagedVector<std::uint32_t> heap_positions_;
  std::unordered_map<Slot, Lease> covered_;  // only while an offer hold covers a record
};

}  // namespace landlord::lease
