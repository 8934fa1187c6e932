#include <gtest/gtest.h>

#include <vector>

#include "landlord/wire/options.hpp"

namespace landlord::wire {
namespace {

std::vector<std::uint8_t> bytes_of(std::span<const std::uint8_t> span) {
  return {span.begin(), span.end()};
}

TEST(Options, TypedValuesRoundTripBigEndian) {
  Options options;
  ASSERT_TRUE(options.set_u8(option::kMessageType, 5));
  ASSERT_TRUE(options.set_u16(option::kMaxMessageSize, 1472));
  ASSERT_TRUE(options.set_u32(option::kLeaseTime, 3600));
  ASSERT_TRUE(options.set_ipv4(option::kServerId, Ipv4(198, 18, 0, 1)));
  ASSERT_TRUE(options.set_text(option::kHostname, "vm"));

  EXPECT_EQ(options.get_u8(option::kMessageType), 5);
  EXPECT_EQ(options.get_u16(option::kMaxMessageSize), 1472);
  EXPECT_EQ(bytes_of(options.get(option::kMaxMessageSize)), (std::vector<std::uint8_t>{0x05, 0xc0}));
  EXPECT_EQ(options.get_u32(option::kLeaseTime), 3600u);
  EXPECT_EQ(bytes_of(options.get(option::kLeaseTime)), (std::vector<std::uint8_t>{0, 0, 0x0e, 0x10}));
  EXPECT_EQ(options.get_ipv4(option::kServerId), Ipv4(198, 18, 0, 1));
  EXPECT_EQ(options.get_text(option::kHostname), "vm");
  const std::vector<std::uint8_t> order{53, 57, 51, 54, 12};
  EXPECT_EQ(bytes_of(options.codes()), order);
  EXPECT_EQ(options.size(), 5u);
}

TEST(Options, TypedReadsRefuseWrongLengthAndAbsence) {
  Options options;
  ASSERT_TRUE(options.set_u16(option::kLeaseTime, 7));  // a 2-byte lease time is malformed
  EXPECT_FALSE(options.get_u32(option::kLeaseTime));
  EXPECT_FALSE(options.get_ipv4(option::kLeaseTime));
  EXPECT_FALSE(options.get_u8(option::kLeaseTime));
  EXPECT_EQ(options.get_u16(option::kLeaseTime), 7);
  EXPECT_FALSE(options.get_u8(option::kMessageType));
  EXPECT_FALSE(options.get_text(option::kHostname));
  EXPECT_TRUE(options.get(option::kHostname).empty());
}

TEST(Options, ZeroLengthValueIsPresent) {
  Options options;
  ASSERT_TRUE(options.set(80, {}));  // rapid commit carries no data
  EXPECT_TRUE(options.has(80));
  EXPECT_TRUE(options.get(80).empty());
  EXPECT_EQ(options.get_text(80), "");
}

TEST(Options, TextDropsTrailingNuls) {
  Options options;
  const std::vector<std::uint8_t> hostname{'p', 'c', 0, 0};
  ASSERT_TRUE(options.set(option::kHostname, hostname));
  EXPECT_EQ(options.get_text(option::kHostname), "pc");
  EXPECT_EQ(options.get(option::kHostname).size(), 4u);  // the raw value is kept for echoing
}

TEST(Options, RefusesPadAndEnd) {
  Options options;
  EXPECT_FALSE(options.set_u8(option::kPad, 1));
  EXPECT_FALSE(options.set_u8(option::kEnd, 1));
  EXPECT_EQ(options.size(), 0u);
}

TEST(Options, ReplaceKeepsPositionEraseRemoves) {
  Options options;
  ASSERT_TRUE(options.set_u8(option::kMessageType, 1));
  ASSERT_TRUE(options.set_text(option::kHostname, "a"));
  ASSERT_TRUE(options.set_u32(option::kLeaseTime, 1));
  ASSERT_TRUE(options.set_text(option::kHostname, "a-much-longer-name"));  // grows: moves storage
  ASSERT_TRUE(options.set_u8(option::kMessageType, 2));                   // same size: in place
  EXPECT_EQ(bytes_of(options.codes()), (std::vector<std::uint8_t>{53, 12, 51}));
  EXPECT_EQ(options.get_text(option::kHostname), "a-much-longer-name");
  EXPECT_EQ(options.get_u8(option::kMessageType), 2);

  options.erase(option::kHostname);
  EXPECT_FALSE(options.has(option::kHostname));
  EXPECT_EQ(bytes_of(options.codes()), (std::vector<std::uint8_t>{53, 51}));
  EXPECT_EQ(options.get_u32(option::kLeaseTime), 1u);
  options.erase(option::kHostname);  // erasing an absent code is harmless
  EXPECT_EQ(options.size(), 2u);

  options.clear();
  EXPECT_EQ(options.size(), 0u);
  EXPECT_FALSE(options.has(option::kMessageType));
}

TEST(Options, EqualityComparesCodesInOrderAndValues) {
  Options a, b;
  ASSERT_TRUE(a.set_u8(53, 1) && a.set_text(12, "x"));
  ASSERT_TRUE(b.set_text(12, "old-value") && b.set_u8(53, 1));
  EXPECT_NE(a, b);  // other order
  b.clear();
  ASSERT_TRUE(b.set_u8(53, 1) && b.set_text(12, "old-value") && b.set_text(12, "x"));
  EXPECT_EQ(a, b);  // same contents, different storage history
  ASSERT_TRUE(b.set_text(12, "y"));
  EXPECT_NE(a, b);
  ASSERT_TRUE(b.set_text(12, "x") && b.set(13, {}));
  EXPECT_NE(a, b);
}

TEST(Options, CopiesAreIndependentAndEqual) {
  Options original;
  ASSERT_TRUE(original.set_u8(53, 3) && original.set_text(12, "host"));
  Options copy = original;
  EXPECT_EQ(copy, original);
  ASSERT_TRUE(copy.set_text(12, "other"));
  EXPECT_EQ(original.get_text(12), "host");
  Options assigned;
  ASSERT_TRUE(assigned.set_u8(1, 1));
  assigned = original;
  EXPECT_EQ(assigned, original);
  EXPECT_FALSE(assigned.has(1));
}

TEST(Options, ReplacingManyTimesCompactsInsteadOfFilling) {
  Options options;
  const std::vector<std::uint8_t> big(1000, 0xab);
  ASSERT_TRUE(options.set(43, big));
  std::vector<std::uint8_t> value(100);
  for (int round = 0; round < 200; ++round) {  // 200 x 101..300 bytes of garbage
    value.assign(101 + round, static_cast<std::uint8_t>(round));
    ASSERT_TRUE(options.set(12, value)) << round;
  }
  EXPECT_EQ(bytes_of(options.get(12)), value);
  EXPECT_EQ(bytes_of(options.get(43)), big);
}

TEST(Options, FullStorageRefusesWithoutLosingTheOldValue) {
  Options options;
  const std::vector<std::uint8_t> three_k(3000, 1);
  const std::vector<std::uint8_t> two_k(2000, 2);
  ASSERT_TRUE(options.set(43, three_k));
  ASSERT_TRUE(options.set(12, std::vector<std::uint8_t>(10, 3)));
  EXPECT_FALSE(options.set(12, two_k));
  EXPECT_EQ(options.get(12).size(), 10u);
  EXPECT_FALSE(options.set(60, two_k));
  EXPECT_FALSE(options.has(60));
  const std::vector<std::uint8_t> too_big(Options::kCapacityBytes + 1, 0);
  EXPECT_FALSE(options.set(61, too_big));
  // Exactly the capacity fits once the rest is gone.
  options.clear();
  EXPECT_TRUE(options.set(61, std::vector<std::uint8_t>(Options::kCapacityBytes, 4)));
}

TEST(Options, SetFromItsOwnStorageSurvivesCompaction) {
  Options options;
  ASSERT_TRUE(options.set(12, std::vector<std::uint8_t>(1000, 8)));
  ASSERT_TRUE(options.set(43, std::vector<std::uint8_t>(1200, 7)));
  ASSERT_TRUE(options.set(12, std::vector<std::uint8_t>(1100, 9)));  // leaves 1000 bytes of garbage
  // Copying 43 into a new code needs compaction, which moves the source value down.
  ASSERT_TRUE(options.set(44, options.get(43)));
  EXPECT_EQ(bytes_of(options.get(44)), std::vector<std::uint8_t>(1200, 7));
  EXPECT_EQ(bytes_of(options.get(43)), std::vector<std::uint8_t>(1200, 7));
  EXPECT_EQ(bytes_of(options.get(12)), std::vector<std::uint8_t>(1100, 9));
}

}  // namespace
}  // namespace landlord::wire
