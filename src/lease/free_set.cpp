#include "landlord/lease/free_set.hpp"

#include <bit>

#include "landlord/base/assert.hpp"

namespace landlord::lease {

FreeSet::FreeSet(std::uint32_t size, bool full) : size_(size), count_(full ? size : 0) {
  std::uint64_t bits = size;
  do {
    const std::uint64_t words = (bits + 63) / 64;
    levels_.emplace_back(words, 0);
    bits = words;
  } while (bits > 1);
  if (!full || size == 0) return;
  // Every level gets its first `bits` bits set: members at level 0, non-empty words above.
  bits = size;
  for (auto& level : levels_) {
    for (std::uint64_t word = 0; word < level.size(); ++word) {
      const std::uint64_t first_bit = word * 64;
      const std::uint64_t in_word = bits - first_bit >= 64 ? 64 : bits - first_bit;
      level[word] = in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
    }
    bits = level.size();
  }
}

bool FreeSet::contains(std::uint32_t member) const {
  LANDLORD_ASSERT(member < size_);
  return (levels_[0][member / 64] >> (member % 64)) & 1u;
}

void FreeSet::insert(std::uint32_t member) {
  LANDLORD_ASSERT(member < size_);
  std::uint64_t index = member;
  for (auto& level : levels_) {
    std::uint64_t& word = level[index / 64];
    const std::uint64_t bit = std::uint64_t{1} << (index % 64);
    const bool was_empty = word == 0;
    if (&level == &levels_[0]) {
      if (word & bit) return;  // already a member
      ++count_;
    }
    word |= bit;
    if (!was_empty) return;  // the summary above already says "non-empty"
    index /= 64;
  }
}

void FreeSet::erase(std::uint32_t member) {
  LANDLORD_ASSERT(member < size_);
  std::uint64_t index = member;
  for (auto& level : levels_) {
    std::uint64_t& word = level[index / 64];
    const std::uint64_t bit = std::uint64_t{1} << (index % 64);
    if (&level == &levels_[0]) {
      if (!(word & bit)) return;  // not a member
      --count_;
    }
    word &= ~bit;
    if (word != 0) return;  // the word still has members: summaries stay set
    index /= 64;
  }
}

std::optional<std::uint32_t> FreeSet::lowest() const {
  if (count_ == 0) return std::nullopt;
  std::uint64_t index = 0;
  for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
    const std::uint64_t word = (*level)[index];
    LANDLORD_ASSERT(word != 0);
    index = index * 64 + static_cast<std::uint64_t>(std::countr_zero(word));
  }
  return static_cast<std::uint32_t>(index);
}

std::optional<std::uint32_t> FreeSet::lowest_from(std::uint32_t from) const {
  if (from >= size_ || count_ == 0) return std::nullopt;
  // Up: at each level, a set bit at or after `index` in its word; none, then the next word,
  // which is bit `word + 1` of the level above.
  std::uint64_t index = from;
  std::size_t level = 0;
  for (;; ++level) {
    if (level == levels_.size()) return std::nullopt;
    const std::vector<std::uint64_t>& bits = levels_[level];
    const std::uint64_t word = index / 64;
    if (word >= bits.size()) return std::nullopt;
    const std::uint64_t at_or_after = bits[word] & (~std::uint64_t{0} << (index % 64));
    if (at_or_after != 0) {
      index = word * 64 + static_cast<std::uint64_t>(std::countr_zero(at_or_after));
      break;
    }
    index = word + 1;
  }
  // Down: the lowest member under the set bit found.
  while (level > 0) {
    --level;
    const std::uint64_t word = levels_[level][index];
    LANDLORD_ASSERT(word != 0);
    index = index * 64 + static_cast<std::uint64_t>(std::countr_zero(word));
  }
  return static_cast<std::uint32_t>(index);
}

std::size_t FreeSet::memory_bytes() const {
  std::size_t bytes = 0;
  for (const auto& level : levels_) bytes += level.capacity() * sizeof(std::uint64_t);
  return bytes;
}

}  // namespace landlord::lease
