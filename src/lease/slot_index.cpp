#include "landlord/lease/slot_index.hpp"

#include "landlord/base/assert.hpp"

namespace landlord::lease {

void SlotIndex::insert(std::uint32_t hash, Slot slot) {
  LANDLORD_ASSERT(slot < kTombstone);
  // Keep occupied + tombstone buckets under 3/4 so probes stay short.
  if ((size_ + tombstones_ + 1) * 4 > buckets_.size() * 3) {
    std::size_t count = buckets_.empty() ? 16 : buckets_.size();
    while ((size_ + 1) * 2 > count) count *= 2;
    rehash(count);
  }
  const std::size_t mask = buckets_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    Bucket& bucket = buckets_[i];
    if (bucket.slot == kEmpty || bucket.slot == kTombstone) {
      if (bucket.slot == kTombstone) --tombstones_;
      bucket = {hash, slot};
      ++size_;
      return;
    }
  }
}

bool SlotIndex::erase(std::uint32_t hash, Slot slot) {
  if (buckets_.empty()) return false;
  const std::size_t mask = buckets_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    Bucket& bucket = buckets_[i];
    if (bucket.slot == kEmpty) return false;
    if (bucket.slot == slot && bucket.hash == hash) {
      bucket.slot = kTombstone;
      --size_;
      ++tombstones_;
      return true;
    }
  }
}

void SlotIndex::rehash(std::size_t bucket_count) {
  PagedVector<Bucket> old;
  old.swap(buckets_);
  buckets_.assign(bucket_count, Bucket{});
  tombstones_ = 0;
  const std::size_t mask = bucket_count - 1;
  for (const Bucket& bucket : old) {
    if (bucket.slot == kEmpty || bucket.slot == kTombstone) continue;
    std::size_t i = bucket.hash & mask;
    while (buckets_[i].slot != kEmpty) i = (i + 1) & mask;
    buckets_[i] = bucket;
  }
}

std::uint32_t hash_address(std::uint32_t address) {
  // Murmur3's finaliser: consecutive addresses spread over the whole table.
  std::uint32_t h = address;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

std::uint32_t hash_bytes(const void* data, std::size_t size) {
  // FNV-1a, then the finaliser above: client keys are short (≤ 20 bytes as a rule).
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 16777619u;
  }
  return hash_address(h);
}

}  // namespace landlord::lease
