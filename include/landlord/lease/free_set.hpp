#pragma once
// A set of integers in [0, size) as a bitmap with summary levels: bit j of level k+1 says "word j
// of level k has a set bit". Finding the lowest member reads one word per level (4 levels for
// 2^24 members), so it costs the same in an empty pool as in a 99.9 % full one. Insert and erase
// touch one word per level at most. 2^24 members take 2 MiB + 1.6 %.
#include <cstdint>
#include <optional>
#include <vector>

namespace landlord::lease {

class FreeSet {
 public:
  FreeSet() = default;
  // A set over [0, size), every member present when `full`, else empty.
  FreeSet(std::uint32_t size, bool full);

  std::uint32_t capacity() const { return size_; }
  std::uint32_t count() const { return count_; }
  bool contains(std::uint32_t member) const;
  void insert(std::uint32_t member);
  void erase(std::uint32_t member);
  std::optional<std::uint32_t> lowest() const;
  // The lowest member >= `from`: one word per level up to where the next member is, and down.
  std::optional<std::uint32_t> lowest_from(std::uint32_t from) const;
  std::size_t memory_bytes() const;

 private:
  std::vector<std::vector<std::uint64_t>> levels_;  // levels_[0]: one bit per member
  std::uint32_t size_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace landlord::lease
