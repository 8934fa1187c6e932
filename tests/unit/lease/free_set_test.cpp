#include "landlord/lease/free_set.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace landlord::lease {
namespace {

TEST(FreeSet, FullSetHandsOutLowestFirstAndEmptiesExactly) {
  FreeSet set(130, true);
  EXPECT_EQ(set.count(), 130u);
  for (std::uint32_t expected = 0; expected < 130; ++expected) {
    ASSERT_EQ(set.lowest(), expected);
    set.erase(expected);
  }
  EXPECT_EQ(set.count(), 0u);
  EXPECT_EQ(set.lowest(), std::nullopt);
}

TEST(FreeSet, EmptySetFindsTheOnlyMemberThroughEverySummaryLevel) {
  FreeSet set(1u << 24, false);  // a /8: four levels
  EXPECT_EQ(set.lowest(), std::nullopt);
  set.insert(16'000'123);
  EXPECT_EQ(set.lowest(), 16'000'123u);
  set.insert(70);
  EXPECT_EQ(set.lowest(), 70u);
  set.erase(70);
  EXPECT_EQ(set.lowest(), 16'000'123u);
  set.erase(16'000'123);
  EXPECT_EQ(set.lowest(), std::nullopt);
}

TEST(FreeSet, InsertAndEraseAreIdempotent) {
  FreeSet set(1000, false);
  set.insert(5);
  set.insert(5);
  EXPECT_EQ(set.count(), 1u);
  set.erase(5);
  set.erase(5);
  EXPECT_EQ(set.count(), 0u);
  EXPECT_FALSE(set.contains(5));
}

TEST(FreeSet, AgreesWithStdSetUnderRandomChurn) {
  std::mt19937 random(7);
  FreeSet set(300'000, false);
  std::set<std::uint32_t> model;
  for (int step = 0; step < 20'000; ++step) {
    const std::uint32_t member = random() % 300'000;
    if (random() % 2) {
      set.insert(member);
      model.insert(member);
    } else {
      set.erase(member);
      model.erase(member);
    }
    ASSERT_EQ(set.count(), model.size());
    ASSERT_EQ(set.lowest(), model.empty() ? std::nullopt : std::optional(*model.begin()));
  }
}

TEST(FreeSet, LowestFromFindsTheNextMemberAcrossWordsAndLevels) {
  FreeSet set(1u << 24, false);
  EXPECT_EQ(set.lowest_from(0), std::nullopt);
  set.insert(5);
  set.insert(16'000'123);
  EXPECT_EQ(set.lowest_from(0), 5u);
  EXPECT_EQ(set.lowest_from(5), 5u);
  EXPECT_EQ(set.lowest_from(6), 16'000'123u);  // past empty words on every level
  EXPECT_EQ(set.lowest_from(16'000'124), std::nullopt);
  EXPECT_EQ(set.lowest_from(1u << 24), std::nullopt);
}

TEST(FreeSet, LowestFromAgreesWithStdSetUnderRandomChurn) {
  std::mt19937 random(11);
  FreeSet set(70'000, false);
  std::set<std::uint32_t> model;
  for (int step = 0; step < 20'000; ++step) {
    const std::uint32_t member = random() % 70'000;
    if (random() % 3 != 0) {
      set.insert(member);
      model.insert(member);
    } else {
      set.erase(member);
      model.erase(member);
    }
    const std::uint32_t from = random() % 70'000;
    const auto expected = model.lower_bound(from);
    ASSERT_EQ(set.lowest_from(from),
              expected == model.end() ? std::nullopt : std::optional(*expected))
        << "from " << from;
  }
}

}  // namespace
}  // namespace landlord::lease
