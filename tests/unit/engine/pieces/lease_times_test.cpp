// Options 51/58/59 (include/landlord/engine/lease_times.hpp), the one place they are encoded.
#include "landlord/engine/lease_times.hpp"

#include <gtest/gtest.h>

namespace landlord::engine {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(LeaseTimes, WholeSecondsRoundedDownAndLongLeasesInfinite) {
  const WireLeaseTimes times = wire_lease_times(hours{1}, milliseconds{1'800'999}, minutes{52} + seconds{30});
  EXPECT_EQ(times.lease_s, 3600u);
  EXPECT_EQ(times.renew_s, 1800u);
  EXPECT_EQ(times.rebind_s, 3150u);
  EXPECT_EQ(wire_lease_times(hours{24 * 365 * 200}, hours{1}, hours{2}).lease_s, 0xffffffffu);
  EXPECT_EQ(wire_lease_times(milliseconds{-5}, Duration{0}, Duration{0}).lease_s, 0u);
}

TEST(LeaseTimes, ACutLeaseKeepsTheSharesOfT1AndT2) {
  const auto cut = cut_lease_times(minutes{10} + milliseconds{900}, hours{1}, minutes{30}, minutes{52} + seconds{30});
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->lease_s, 600u);
  EXPECT_EQ(cut->renew_s, 300u);
  EXPECT_EQ(cut->rebind_s, 525u);
  // Finite, however long the durable lease: never 0xffffffff.
  EXPECT_EQ(cut_lease_times(hours{24 * 365 * 200}, hours{24 * 365 * 300}, hours{1}, hours{2})->lease_s,
            0xfffffffeu);
}

TEST(LeaseTimes, NoCutWhenWholeSecondsCannotKeepT1BeforeT2BeforeTheEnd) {
  EXPECT_FALSE(cut_lease_times(milliseconds{999}, hours{1}, minutes{30}, minutes{52}));
  EXPECT_FALSE(cut_lease_times(seconds{2}, hours{1}, minutes{30}, minutes{52}));  // 1 s and 1 s
  EXPECT_TRUE(cut_lease_times(seconds{8}, hours{1}, minutes{30}, minutes{52}));   // 4 s, 6 s
  EXPECT_FALSE(cut_lease_times(seconds{8}, Duration{0}, Duration{0}, Duration{0}));
}

TEST(LeaseTimes, WrittenAsTheThreeOptions) {
  wire::Options options;
  set_lease_times(options, {600, 300, 525});
  EXPECT_EQ(options.get_u32(wire::option::kLeaseTime), 600u);
  EXPECT_EQ(options.get_u32(wire::option::kRenewalTime), 300u);
  EXPECT_EQ(options.get_u32(wire::option::kRebindingTime), 525u);
}

}  // namespace
}  // namespace landlord::engine
