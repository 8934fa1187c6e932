#include "landlord/lease/allocator.hpp"

#include <gtest/gtest.h>

namespace landlord::lease {
namespace {

Ipv4 address(std::uint8_t last) { return Ipv4{198, 18, 0, last}; }
TimePoint at_s(std::int64_t seconds) { return time_from_unix_ms(seconds * 1000); }
const Availability kTaken{Availability::Kind::Taken, {}};
const Availability kClean{};
Availability affinity(std::int64_t ended_s) {
  return {Availability::Kind::Affinity, at_s(ended_s)};
}

TEST(Allocator, PicksLowestCleanAddressOfTheSubnetsPools) {
  Allocator allocator;
  allocator.add_pool(1, address(100), address(102));
  allocator.add_pool(2, address(10), address(20));
  EXPECT_EQ(allocator.pick(1), address(100));
  EXPECT_EQ(allocator.pick(2), address(10));
  EXPECT_EQ(allocator.pick(3), std::nullopt);
  EXPECT_EQ(allocator.pool_subnet(address(101)), 1u);
  EXPECT_EQ(allocator.pool_subnet(address(21)), std::nullopt);
}

TEST(Allocator, TakenAddressesAreSkippedAndComeBackWhenCleanAgain) {
  Allocator allocator;
  allocator.add_pool(1, address(100), address(101));
  allocator.move(address(100), kClean, kTaken);
  EXPECT_EQ(allocator.pick(1), address(101));
  allocator.move(address(101), kClean, kTaken);
  EXPECT_EQ(allocator.pick(1), std::nullopt);
  allocator.move(address(100), kTaken, kClean);
  EXPECT_EQ(allocator.pick(1), address(100));
}

TEST(Allocator, AffinityAddressesGoOnlyWhenNoCleanOneIsLeftOldestFirst) {
  Allocator allocator;
  allocator.add_pool(1, address(100), address(103));
  for (std::uint8_t last = 100; last <= 103; ++last) allocator.move(address(last), kClean, kTaken);
  allocator.move(address(101), kTaken, affinity(500));  // ended later
  allocator.move(address(103), kTaken, affinity(300));  // ended first
  EXPECT_EQ(allocator.pick(1), address(103));
  allocator.move(address(102), kTaken, kClean);
  EXPECT_EQ(allocator.pick(1), address(102)) << "a clean address beats any affinity address";
  allocator.move(address(102), kClean, kTaken);
  allocator.move(address(103), affinity(300), kTaken);
  EXPECT_EQ(allocator.pick(1), address(101));
  const auto usage = allocator.usage(1);
  EXPECT_EQ(usage.total, 4u);
  EXPECT_EQ(usage.clean, 0u);
  EXPECT_EQ(usage.affinity, 1u);
}

TEST(Allocator, PeersPickFromTheirOwnSegmentOfEachPoolFirst) {
  Allocator allocator;
  allocator.add_pool(1, address(100), address(109));  // segments of 2: 100-104 and 105-109
  EXPECT_EQ(allocator.pick_share(1, {0, 2}), address(100));
  EXPECT_EQ(allocator.pick_share(1, {1, 2}), address(105));
  EXPECT_EQ(allocator.pick_share(1, {2, 3}), address(106)) << "segment 2 of 3: 106-109";
  for (std::uint8_t last = 105; last <= 109; ++last) allocator.move(address(last), kClean, kTaken);
  EXPECT_EQ(allocator.pick_share(1, {1, 2}), address(100)) << "own segment used up: any clean address";
  // Affinity: the oldest in the own segment before an older one of the peer's.
  for (std::uint8_t last = 100; last <= 104; ++last) allocator.move(address(last), kClean, kTaken);
  allocator.move(address(101), kTaken, affinity(100));
  allocator.move(address(107), kTaken, affinity(200));
  EXPECT_EQ(allocator.pick_share(1, {1, 2}), address(107));
  EXPECT_EQ(allocator.pick_share(1, {0, 2}), address(101));
  allocator.move(address(101), affinity(100), kTaken);
  EXPECT_EQ(allocator.pick_share(1, {0, 2}), address(107)) << "own segment full: the oldest of all";
  EXPECT_EQ(allocator.pick_share(9, {0, 2}), std::nullopt);
}

TEST(Allocator, UsageIsCountedPerPoolInConfigOrder) {
  Allocator allocator;
  allocator.add_pool(1, address(200), address(203));  // given first, higher addresses
  allocator.add_pool(1, address(100), address(101));
  allocator.exclude(address(201));                      // a reservation
  allocator.move(address(200), kClean, kTaken);
  allocator.move(address(100), kClean, affinity(5));
  allocator.move(address(202), kClean, affinity(6));
  allocator.move(address(202), affinity(6), affinity(7));  // the same address, a later end
  const auto pools = allocator.pool_usage(1);
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].first, address(200));
  EXPECT_EQ(pools[0].usage.total, 4u);
  EXPECT_EQ(pools[0].usage.clean, 1u);     // .203
  EXPECT_EQ(pools[0].usage.affinity, 1u);  // .202
  EXPECT_EQ(pools[1].usage.total, 2u);
  EXPECT_EQ(pools[1].usage.clean, 1u);     // .101
  EXPECT_EQ(pools[1].usage.affinity, 1u);  // .100
  allocator.exclude(address(100));          // a reservation made over an affinity address
  EXPECT_EQ(allocator.pool_usage(1)[1].usage.affinity, 0u);
  EXPECT_EQ(allocator.usage_of_pool_at(address(203))->clean, 1u);
  EXPECT_EQ(allocator.usage_of_pool_at(address(150)), std::nullopt);
  allocator.move(address(202), affinity(7), kTaken);
  EXPECT_EQ(allocator.usage_of_pool_at(address(203))->affinity, 0u);
  EXPECT_EQ(allocator.usage(1).affinity, 0u);
}

TEST(Allocator, ExcludedAddressesAreNeverPicked) {
  Allocator allocator;
  allocator.exclude(address(100));
  allocator.add_pool(1, address(100), address(102));
  allocator.exclude(address(101));
  EXPECT_EQ(allocator.pick(1), address(102));
  allocator.move(address(101), kTaken, kClean);  // a record change cannot free a reservation
  allocator.move(address(102), kClean, kTaken);
  EXPECT_EQ(allocator.pick(1), std::nullopt);
}

TEST(Allocator, AvailabilityFollowsTheRecordState) {
  Lease lease;
  lease.address = address(5);
  lease.client = ClientKey::from(ClientId{}, *HardwareAddress::parse("02:00:00:00:00:01"));
  lease.granted_at = at_s(100);
  lease.lease_time = std::chrono::seconds{60};
  EXPECT_EQ(Availability::of(nullptr), kClean);
  for (auto state : {LeaseState::Offered, LeaseState::Bound, LeaseState::Declined}) {
    lease.state = state;
    EXPECT_EQ(Availability::of(&lease), kTaken) << to_string(state);
  }
  for (auto state : {LeaseState::Expired, LeaseState::Released}) {
    lease.state = state;
    EXPECT_EQ(Availability::of(&lease), affinity(160)) << to_string(state);
  }
  lease.client = ClientKey{};  // a record nobody can claim (a decline hold that ended)
  EXPECT_EQ(Availability::of(&lease), kClean);
}

}  // namespace
}  // namespace landlord::lease
