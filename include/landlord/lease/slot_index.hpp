#pragma once
// A compact hash index from a key to a slot number in a record array. The key itself is not
// stored: the caller passes its hash and a predicate that checks a candidate slot's record.
// Open addressing with linear probing: 8 bytes per bucket, no per-entry allocation, which keeps
// a million-lease table small (a node-based std::unordered_map costs ~40 bytes per entry).
#include <cstdint>
#include <optional>
#include <vector>

#include "landlord/lease/page_allocator.hpp"

namespace landlord::lease {

class SlotIndex {
 public:
  using Slot = std::uint32_t;

  template <typename Matches>
  std::optional<Slot> find(std::uint32_t hash, Matches&& matches) const {
    if (buckets_.empty()) return std::nullopt;
    const std::size_t mask = buckets_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Bucket& bucket = buckets_[i];
      if (bucket.slot == kEmpty) return std::nullopt;
      if (bucket.slot != kTombstone && bucket.hash == hash && matches(bucket.slot)) {
        return bucket.slot;
      }
    }
  }

  void insert(std::uint32_t hash, Slot slot);
  // Removes the entry for exactly this slot; false if it was not indexed.
  bool erase(std::uint32_t hash, Slot slot);

  std::size_t size() const { return size_; }
  std::size_t bucket_bytes() const { return buckets_.capacity() * sizeof(Bucket); }

 private:
  static constexpr Slot kEmpty = 0xffffffffu;
  static constexpr Slot kTombstone = 0xfffffffeu;
  struct Bucket {
    std::uint32_t hash = 0;
    Slot slot = kEmpty;
  };
  void rehash(std::size_t bucket_count);

  PagedVector<Bucket> buckets_;
  std::size_t size_ = 0;
  std::size_t tombstones_ = 0;
};

// Hashes for the two keys the lease table indexes.
std::uint32_t hash_address(std::uint32_t address);
std::uint32_t hash_bytes(const void* data, std::size_t size);

}  // namespace landlord::lease
