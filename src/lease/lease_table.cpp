#include "landlord/lease/lease_table.hpp"

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
                          [&](Slot slot) { return records_[slot].lease.address == address; });
}

std::optional<LeaseTable::Slot> LeaseTable::slot_of(const ClientKey& client) const {
  if (client.empty()) return std::nullopt;
  return by_client_.find(hash_of(client),
                         [&](Slot slot) { return records_[slot].lease.client == client; });
}

const Lease* LeaseTable::find(Ipv4 address) const {
  const auto slot = slot_of(address);
  return slot ? &records_[*slot].lease : nullptr;
}

const Lease* LeaseTable::find(const ClientKey& client) const {
  const auto slot = slot_of(client);
  return slot ? &records_[*slot].lease : nullptr;
}

const Lease* LeaseTable::covered(Ipv4 address) const {
  const auto slot = slot_of(address);
  if (!slot) return nullptr;
  const auto it = covered_.find(*slot);
  return it == covered_.end() ? nullptr : &it->second;
}

void LeaseTable::put(Lease record) {
  LANDLORD_ASSERT(record.state != LeaseState::Offered && !record.address.is_zero());
  auto slot = slot_of(record.address);
  if (!slot) {
    slot = allocate_slot();
    by_address_.insert(hash_address(record.address.to_uint()), *slot);
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
  } else if (records_[*slot].lease.state != LeaseState::Offered) {
    covered_.insert_or_assign(*slot, records_[*slot].lease);
  }
  replace(*slot, std::move(offer), hold_until);
}

void LeaseTable::end_hold(Ipv4 address) {
  const auto slot = slot_of(address);
  LANDLORD_ASSERT(slot && records_[*slot].lease.state == LeaseState::Offered);
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
  Record& record = records_[slot];
  if (record.in_use()) unindex_client(slot);
  record.lease = std::move(next);
  index_client(slot);
  set_deadline(slot, deadline);
}

void LeaseTable::index_client(Slot slot) {
  const Lease& lease = records_[slot].lease;
  if (lease.client.empty()) return;
  const auto existing = slot_of(lease.client);
  if (existing == slot) return;
  if (existing) {
    // Keep the most recent record of the client (restore() feeds records in any order).
    if (records_[*existing].lease.granted_at > lease.granted_at) return;
    by_client_.erase(hash_of(lease.client), *existing);
  }
  by_client_.insert(hash_of(lease.client), slot);
}

void LeaseTable::unindex_client(Slot slot) {
  const Lease& lease = records_[slot].lease;
  if (lease.client.empty()) return;
  if (slot_of(lease.client) == slot) by_client_.erase(hash_of(lease.client), slot);
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
  records_[slot] = Record{};
  free_slots_.push_back(slot);
}

std::optional<TimePoint> LeaseTable::next_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return time_from_unix_ms(deadlines_.front().at_unix_ms);
}

const Lease* LeaseTable::next_due(TimePoint now) const {
  if (deadlines_.empty() || deadlines_.front().at_unix_ms > unix_ms(now)) return nullptr;
  return &records_[deadlines_.front().slot].lease;
}

void LeaseTable::for_each(const std::function<void(const Lease&)>& visit) const {
  for (const Record& record : records_) {
    if (record.in_use()) visit(record.lease);
  }
}

std::size_t LeaseTable::memory_bytes() const {
  return records_.capacity() * sizeof(Record) + free_slots_.capacity() * sizeof(Slot) +
         by_address_.bucket_bytes() + by_client_.bucket_bytes() +
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
