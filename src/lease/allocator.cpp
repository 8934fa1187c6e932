#include "landlord/lease/allocator.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::lease {

Availability Availability::of(LeaseState state, bool has_client, TimePoint expires_at) {
  switch (state) {
    case LeaseState::Offered:
    case LeaseState::Bound:
    case LeaseState::Declined:
      return {Kind::Taken, {}};
    case LeaseState::Expired:
    case LeaseState::Released:
      if (!has_client) return {};
      return {Kind::Affinity, expires_at};
  }
  return {};
}

void Allocator::add_pool(std::uint32_t subnet_id, Ipv4 first, Ipv4 last) {
  LANDLORD_ASSERT(first <= last);
  const std::uint64_t size = std::uint64_t{last.to_uint()} - first.to_uint() + 1;
  LANDLORD_ASSERT(size <= 0xffffffffu);
  auto at = std::lower_bound(pools_.begin(), pools_.end(), first,
                             [](const Pool& pool, Ipv4 address) { return pool.first < address; });
  LANDLORD_ASSERT(at == pools_.end() || last < at->first);
  LANDLORD_ASSERT(at == pools_.begin() || std::prev(at)->last < first);
  const auto index = static_cast<std::size_t>(at - pools_.begin());
  pools_.insert(at,
                Pool{subnet_id, first, last, FreeSet(static_cast<std::uint32_t>(size), true), {}});
  // Pool indexes after the insertion point moved up by one.
  for (auto& [id, subnet] : subnets_) {
    for (auto& pool_index : subnet.pools) {
      if (pool_index >= index) ++pool_index;
    }
  }
  subnets_[subnet_id].pools.push_back(index);
  Pool& pool = pools_[index];
  for (auto it = std::lower_bound(excluded_.begin(), excluded_.end(), first.to_uint());
       it != excluded_.end() && *it <= last.to_uint(); ++it) {
    pool.clean.erase(*it - first.to_uint());
    pool.excluded.push_back(*it);
  }
}

void Allocator::exclude(Ipv4 address) {
  const auto insert_sorted = [](std::vector<std::uint32_t>& values, std::uint32_t value) {
    const auto at = std::lower_bound(values.begin(), values.end(), value);
    if (at == values.end() || *at != value) values.insert(at, value);
  };
  if (Pool* pool = pool_of(address)) {
    pool->clean.erase(address.to_uint() - pool->first.to_uint());
    auto& affinity = subnets_[pool->subnet_id].affinity;
    pool->affinity -= std::erase_if(
        affinity, [&](const auto& entry) { return entry.second == address.to_uint(); });
    insert_sorted(pool->excluded, address.to_uint());
  }
  insert_sorted(excluded_, address.to_uint());
}

bool Allocator::excluded(Ipv4 address) const {
  return std::binary_search(excluded_.begin(), excluded_.end(), address.to_uint());
}

const Allocator::Pool* Allocator::pool_of(Ipv4 address) const {
  auto after = std::upper_bound(pools_.begin(), pools_.end(), address,
                                [](Ipv4 value, const Pool& pool) { return value < pool.first; });
  if (after == pools_.begin()) return nullptr;
  const Pool& pool = *std::prev(after);
  return address <= pool.last ? &pool : nullptr;
}

Allocator::Pool* Allocator::pool_of(Ipv4 address) {
  return const_cast<Pool*>(std::as_const(*this).pool_of(address));
}

std::optional<std::uint32_t> Allocator::pool_subnet(Ipv4 address) const {
  const Pool* pool = pool_of(address);
  if (pool == nullptr) return std::nullopt;
  return pool->subnet_id;
}

void Allocator::move(Ipv4 address, const Availability& before, const Availability& after) {
  if (before == after) return;
  Pool* pool = pool_of(address);
  if (pool == nullptr ||
      std::binary_search(pool->excluded.begin(), pool->excluded.end(), address.to_uint())) {
    return;
  }
  remove(*pool, address, before);
  add(*pool, address, after);
}

bool Allocator::files_as(Ipv4 address, const Availability& expected) const {
  const Pool* pool = pool_of(address);
  if (pool == nullptr ||
      std::binary_search(pool->excluded.begin(), pool->excluded.end(), address.to_uint())) {
    return true;
  }
  const bool clean = pool->clean.contains(address.to_uint() - pool->first.to_uint());
  const auto subnet = subnets_.find(pool->subnet_id);
  const bool affinity =
      subnet != subnets_.end() &&
      subnet->second.affinity.contains({unix_ms(expected.ended_at), address.to_uint()});
  switch (expected.kind) {
    case Availability::Kind::Taken: return !clean && !affinity;
    case Availability::Kind::Clean: return clean && !affinity;
    case Availability::Kind::Affinity: return !clean && affinity;
  }
  return false;
}

void Allocator::remove(Pool& pool, Ipv4 address, const Availability& availability) {
  switch (availability.kind) {
    case Availability::Kind::Taken:
      return;
    case Availability::Kind::Clean:
      pool.clean.erase(address.to_uint() - pool.first.to_uint());
      return;
    case Availability::Kind::Affinity:
      pool.affinity -=
          subnets_[pool.subnet_id].affinity.erase({unix_ms(availability.ended_at), address.to_uint()});
      return;
  }
}

void Allocator::add(Pool& pool, Ipv4 address, const Availability& availability) {
  switch (availability.kind) {
    case Availability::Kind::Taken:
      return;
    case Availability::Kind::Clean:
      pool.clean.insert(address.to_uint() - pool.first.to_uint());
      return;
    case Availability::Kind::Affinity:
      if (subnets_[pool.subnet_id].affinity.insert({unix_ms(availability.ended_at), address.to_uint()}).second) {
        ++pool.affinity;
      }
      return;
  }
}

std::optional<Ipv4> Allocator::pick(std::uint32_t subnet_id) const {
  const auto subnet = subnets_.find(subnet_id);
  if (subnet == subnets_.end()) return std::nullopt;
  for (const std::size_t index : subnet->second.pools) {
    const Pool& pool = pools_[index];
    if (const auto offset = pool.clean.lowest()) return Ipv4{pool.first.to_uint() + *offset};
  }
  if (!subnet->second.affinity.empty()) return Ipv4{subnet->second.affinity.begin()->second};
  return std::nullopt;
}

std::optional<Ipv4> Allocator::pick_where(std::uint32_t subnet_id,
                                          const std::function<bool(Ipv4 pool_first)>& allowed) const {
  const auto subnet = subnets_.find(subnet_id);
  if (subnet == subnets_.end()) return std::nullopt;
  for (const std::size_t index : subnet->second.pools) {
    const Pool& pool = pools_[index];
    if (!allowed(pool.first)) continue;
    if (const auto offset = pool.clean.lowest()) return Ipv4{pool.first.to_uint() + *offset};
  }
  // Oldest first among the allowed pools' addresses: a walk past the others' affinity entries.
  for (const auto& [ended_at, address] : subnet->second.affinity) {
    const Pool* pool = pool_of(Ipv4{address});
    if (pool != nullptr && allowed(pool->first)) return Ipv4{address};
  }
  return std::nullopt;
}

std::optional<Ipv4> Allocator::pick_share(std::uint32_t subnet_id, Share share) const {
  return pick_share_where(subnet_id, share, nullptr);
}

std::optional<Ipv4> Allocator::pick_share_where(
    std::uint32_t subnet_id, Share share, const std::function<bool(Ipv4 pool_first)>& allowed) const {
  LANDLORD_ASSERT(share.count > 0 && share.index < share.count);
  const auto subnet = subnets_.find(subnet_id);
  if (subnet == subnets_.end()) return std::nullopt;
  // Segment bounds of a pool of `size` addresses: [size * index / count, size * (index+1) / count).
  const auto segment_start = [&](std::uint64_t size, std::uint64_t index) {
    return static_cast<std::uint32_t>(size * index / share.count);
  };
  for (const std::size_t index : subnet->second.pools) {
    const Pool& pool = pools_[index];
    if (allowed && !allowed(pool.first)) continue;
    const std::uint64_t size = pool.clean.capacity();
    const auto found = pool.clean.lowest_from(segment_start(size, share.index));
    if (found && *found < segment_start(size, share.index + 1)) return Ipv4{pool.first.to_uint() + *found};
  }
  std::size_t scanned = 0;
  for (const auto& [ended_at, address] : subnet->second.affinity) {
    if (++scanned > kShareAffinityScan) break;
    const Pool* pool = pool_of(Ipv4{address});
    if (pool == nullptr || (allowed && !allowed(pool->first))) continue;
    const std::uint64_t offset = address - pool->first.to_uint();
    const std::uint64_t size = pool->clean.capacity();
    if (offset >= segment_start(size, share.index) && offset < segment_start(size, share.index + 1)) {
      return Ipv4{address};
    }
  }
  return allowed ? pick_where(subnet_id, allowed) : pick(subnet_id);
}

Allocator::Usage Allocator::usage(std::uint32_t subnet_id) const {
  Usage usage;
  const auto subnet = subnets_.find(subnet_id);
  if (subnet == subnets_.end()) return usage;
  for (const std::size_t index : subnet->second.pools) {
    usage.total += pools_[index].clean.capacity();
    usage.clean += pools_[index].clean.count();
  }
  usage.affinity = subnet->second.affinity.size();
  return usage;
}

namespace {

Allocator::Usage usage_of(const FreeSet& clean, std::uint64_t affinity) {
  return {clean.capacity(), clean.count(), affinity};
}

}  // namespace

std::vector<Allocator::PoolUsage> Allocator::pool_usage(std::uint32_t subnet_id) const {
  std::vector<PoolUsage> result;
  const auto subnet = subnets_.find(subnet_id);
  if (subnet == subnets_.end()) return result;
  for (const std::size_t index : subnet->second.pools) {
    const Pool& pool = pools_[index];
    result.push_back({pool.first, pool.last, usage_of(pool.clean, pool.affinity)});
  }
  return result;
}

std::optional<Allocator::Usage> Allocator::usage_of_pool_at(Ipv4 address) const {
  const Pool* pool = pool_of(address);
  if (pool == nullptr) return std::nullopt;
  return usage_of(pool->clean, pool->affinity);
}

std::size_t Allocator::memory_bytes() const {
  std::size_t bytes = pools_.capacity() * sizeof(Pool);
  for (const Pool& pool : pools_) bytes += pool.clean.memory_bytes();
  for (const auto& [id, subnet] : subnets_) bytes += subnet.affinity.size() * 48;  // rb-tree node
  return bytes;
}

}  // namespace landlord::lease
