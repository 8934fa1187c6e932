#include "landlord/lease/lease_table.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::lease {
namespace {

std::uint32_t hash_of(const ClientKey& client) {
  return hash_bytes(client.raw().data(), client.raw().size());
}

std::optional<TimePoint> deadline_of(const Lease& lease) {
  switch (lease.state) {
    case LeaseState::Bound:
    case LeaseState::Declined:
      return lease.expires_at();
    case LeaseState::Offered:  // holds carry their own deadline (hold())
    case LeaseState::Released:
    case LeaseState::Expired:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<LeaseTable::Slot> LeaseTable::slot_of(Ipv4 address) const {
  return by_address_.find(hash_address(address.to_uint()),
                          [&](Slot slot) { return records_[slot].address == address.to_uint(); });
}

std::optional<LeaseTable::Slot> LeaseTable::slot_of(const ClientKey& client) const {
  if (client.empty()) return std::nullopt;
  return by_client_.find(hash_of(client), [&](Slot slot) {
    return has_client_key(records_[slot], extra_of(slot), client);
  });
}

const LeaseExtra* LeaseTable::extra_of(Slot slot) const {
  const CompactLease& record = records_[slot];
  return record.has_extra() ? &extras_[record.extra] : nullptr;
}

std::optional<Lease> LeaseTable::find(Ipv4 address) const {
  const auto slot = slot_of(address);
  if (!slot) return std::nullopt;
  return lease_at(*slot);
}

LeaseTable::Facts LeaseTable::Facts::of(const Lease& lease, const ClientKey& client) {
  return {lease.address,       lease.state,           lease.subnet_id,
          lease.fencing_token, !lease.client.empty(), lease.client == client};
}

LeaseTable::Facts LeaseTable::facts_at(Slot slot, const ClientKey& client) const {
  const CompactLease& record = records_[slot];
  const LeaseExtra* extra = extra_of(slot);
  if (extra != nullptr && extra->whole != nullptr) return Facts::of(*extra->whole, client);
  return {Ipv4{record.address}, record.state, record.subnet_id,
          record.fencing_token, record.keyed, has_client_key(record, extra, client)};
}

std::optional<LeaseTable::Facts> LeaseTable::facts(Ipv4 address, const ClientKey& client) const {
  const auto slot = slot_of(address);
  if (!slot) return std::nullopt;
  return facts_at(*slot, client);
}

std::optional<LeaseTable::Facts> LeaseTable::facts(const ClientKey& client) const {
  const auto slot = slot_of(client);
  if (!slot) return std::nullopt;
  return facts_at(*slot, client);
}

Availability LeaseTable::availability(Ipv4 address) const {
  const auto slot = slot_of(address);
  if (!slot) return {};
  const CompactLease& record = records_[*slot];
  const LeaseExtra* extra = extra_of(*slot);
  return Availability::of(record.state, has_client(record, extra), expires_at_of(record, extra));
}

std::optional<Lease> LeaseTable::find(const ClientKey& client) const {
  const auto slot = slot_of(client);
  if (!slot) return std::nullopt;
  return lease_at(*slot);
}

std::optional<Lease> LeaseTable::covered(Ipv4 address) const {
  const auto slot = slot_of(address);
  if (!slot) return std::nullopt;
  const auto it = covered_.find(*slot);
  if (it == covered_.end()) return std::nullopt;
  return it->second;
}

void LeaseTable::put(Lease record) {
  LANDLORD_ASSERT(record.state != LeaseState::Offered && !record.address.is_zero());
  auto slot = slot_of(record.address);
  if (!slot) {
    slot = allocate_slot();
    by_address_.insert(hash_address(record.address.to_uint()), *slot);
  } else {
    // Fencing tokens never go down: the store would refuse the write that follows.
    LANDLORD_ASSERT(records_[*slot].fencing_token <= record.fencing_token);
  }
  covered_.erase(*slot);
  const auto deadline = deadline_of(record);
  replace(*slot, std::move(record), deadline);
}

void LeaseTable::hold(Lease offer, TimePoint hold_until) {
  LANDLORD_ASSERT(offer.state == LeaseState::Offered && !offer.address.is_zero());
  auto slot = slot_of(offer.address);
  if (!slot) {
    slot = allocate_slot();
    by_address_.insert(hash_address(offer.address.to_uint()), *slot);
  } else if (records_[*slot].state != LeaseState::Offered) {
    covered_.insert_or_assign(*slot, lease_at(*slot));
  }
  replace(*slot, std::move(offer), hold_until);
}

void LeaseTable::end_hold(Ipv4 address) {
  const auto slot = slot_of(address);
  LANDLORD_ASSERT(slot && records_[*slot].state == LeaseState::Offered);
  if (auto it = covered_.find(*slot); it != covered_.end()) {
    Lease previous = std::move(it->second);
    covered_.erase(it);
    const auto deadline = deadline_of(previous);
    replace(*slot, std::move(previous), deadline);
    return;
  }
  unindex_client(*slot);
  set_deadline(*slot, std::nullopt);
  by_address_.erase(hash_address(address.to_uint()), *slot);
  release_slot(*slot);
}

void LeaseTable::replace(Slot slot, Lease next, std::optional<TimePoint> deadline) {
  const ClientKey client = next.client;
  // An extension keeps its client: the slot's client index entry, if it has one, stays valid.
  const bool in_use = records_[slot].in_use();
  if (in_use && !has_client_key(records_[slot], extra_of(slot), client)) unindex_client(slot);
  LeaseExtra extra;
  const CompactLease record = encode(std::move(next), extra);
  store(slot, record, std::move(extra));
  index_client(slot, client);
  set_deadline(slot, deadline);
}

void LeaseTable::store(Slot slot, const CompactLease& record, LeaseExtra extra) {
  if (extra.empty()) {
    release_extra(slot);
    records_[slot] = record;
    return;
  }
  std::uint32_t index = records_[slot].extra;
  if (index == CompactLease::kNoExtra) {
    if (free_extras_.empty()) {
      LANDLORD_ASSERT(extras_.size() < CompactLease::kNoExtra);
      index = static_cast<std::uint32_t>(extras_.size());
      extras_.emplace_back();
    } else {
      index = free_extras_.back();
      free_extras_.pop_back();
    }
  }
  extras_[index] = std::move(extra);
  records_[slot] = record;
  records_[slot].extra = index;
}

void LeaseTable::release_extra(Slot slot) {
  CompactLease& record = records_[slot];
  if (!record.has_extra()) return;
  extras_[record.extra] = LeaseExtra{};
  free_extras_.push_back(record.extra);
  record.extra = CompactLease::kNoExtra;
}

void LeaseTable::index_client(Slot slot, const ClientKey& client) {
  if (client.empty()) return;
  const std::uint32_t hash = hash_of(client);
  const auto existing = by_client_.find(
      hash, [&](Slot other) { return has_client_key(records_[other], extra_of(other), client); });
  if (existing == slot) return;
  if (existing) {
    // Keep the most recent record of the client (restore() feeds records in any order).
    if (granted_at_of(records_[*existing], extra_of(*existing)) >
        granted_at_of(records_[slot], extra_of(slot))) {
      return;
    }
    by_client_.erase(hash, *existing);
  }
  by_client_.insert(hash, slot);
}

void LeaseTable::unindex_client(Slot slot) {
  const ClientKey client = client_at(slot);
  if (client.empty()) return;
  if (slot_of(client) == slot) by_client_.erase(hash_of(client), slot);
}

LeaseTable::Slot LeaseTable::allocate_slot() {
  if (!free_slots_.empty()) {
    const Slot slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  LANDLORD_ASSERT(records_.size() < 0xfffffff0u);
  records_.emplace_back();
  heap_positions_.push_back(kNotQueued);
  return static_cast<Slot>(records_.size() - 1);
}

void LeaseTable::release_slot(Slot slot) {
  release_extra(slot);
  records_[slot] = CompactLease{};
  free_slots_.push_back(slot);
}

std::optional<TimePoint> LeaseTable::next_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return time_from_unix_ms(deadlines_.front().at_unix_ms);
}

std::optional<Lease> LeaseTable::next_due(TimePoint now) const {
  if (deadlines_.empty() || deadlines_.front().at_unix_ms > unix_ms(now)) return std::nullopt;
  return lease_at(deadlines_.front().slot);
}

void LeaseTable::for_each(const std::function<void(const Lease&)>& visit) const {
  for (Slot slot = 0; slot < records_.size(); ++slot) {
    if (records_[slot].in_use()) visit(lease_at(slot));
  }
}

void LeaseTable::for_each_in(std::size_t from, std::size_t until,
                             const std::function<void(const Lease&)>& visit) const {
  until = std::min<std::size_t>(until, records_.size());
  for (std::size_t slot = from; slot < until; ++slot) {
    if (records_[slot].in_use()) visit(lease_at(static_cast<Slot>(slot)));
  }
}

std::size_t LeaseTable::memory_bytes() const {
  std::size_t out_of_line = 0;  // what extras hold on the heap beyond their own size
  for (const LeaseExtra& extra : extras_) {
    if (extra.text.capacity() > 15) out_of_line += extra.text.capacity() + 1;
    if (extra.whole != nullptr) out_of_line += sizeof(Lease);
  }
  return records_.capacity() * sizeof(CompactLease) + free_slots_.capacity() * sizeof(Slot) +
         extras_.capacity() * sizeof(LeaseExtra) + free_extras_.capacity() * sizeof(std::uint32_t) +
         out_of_line + by_address_.bucket_bytes() + by_client_.bucket_bytes() +
         deadlines_.capacity() * sizeof(Deadline) +
         heap_positions_.capacity() * sizeof(std::uint32_t);
}

// --- deadline heap: positions are kept in the records so one entry can be re-sorted in place.

void LeaseTable::set_deadline(Slot slot, std::optional<TimePoint> deadline) {
  const std::uint32_t position = heap_positions_[slot];
  if (!deadline) {
    if (position == kNotQueued) return;
    const std::size_t last = deadlines_.size() - 1;
    if (position != last) heap_swap(position, last);
    deadlines_.pop_back();
    heap_positions_[slot] = kNotQueued;
    if (position < deadlines_.size()) {
      const Slot moved = deadlines_[position].slot;
      sift_up(position);
      sift_down(heap_positions_[moved]);
    }
    return;
  }
  const std::int64_t at = unix_ms(*deadline);
  if (position == kNotQueued) {
    deadlines_.push_back({at, slot});
    heap_positions_[slot] = static_cast<std::uint32_t>(deadlines_.size() - 1);
    sift_up(deadlines_.size() - 1);
    return;
  }
  deadlines_[position].at_unix_ms = at;
  sift_up(position);
  sift_down(heap_positions_[slot]);
}

void LeaseTable::heap_swap(std::size_t a, std::size_t b) {
  std::swap(deadlines_[a], deadlines_[b]);
  heap_positions_[deadlines_[a].slot] = static_cast<std::uint32_t>(a);
  heap_positions_[deadlines_[b].slot] = static_cast<std::uint32_t>(b);
}

void LeaseTable::sift_up(std::size_t position) {
  while (position > 0) {
    const std::size_t parent = (position - 1) / 2;
    if (deadlines_[parent].at_unix_ms <= deadlines_[position].at_unix_ms) return;
    heap_swap(parent, position);
    position = parent;
  }
}

void LeaseTable::sift_down(std::size_t position) {
  const std::size_t count = deadlines_.size();
  for (;;) {
    const std::size_t left = 2 * position + 1;
    if (left >= count) return;
    std::size_t smallest = left;
    if (left + 1 < count && deadlines_[left + 1].at_unix_ms < deadlines_[left].at_unix_ms) {
      smallest = left + 1;
    }
    if (deadlines_[position].at_unix_ms <= deadlines_[smallest].at_unix_ms) return;
    heap_swap(position, smallest);
    position = smallest;
  }
}

}  // namespace landlord::lease
