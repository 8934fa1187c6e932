// The rule for answering and ending leases by this server's clock on a shared store.
#include "landlord/server/clock_agreement.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Before the change feed's first reading a server on a shared store does not know whether its
// clock agrees: it ends no lease (nor answers) until a reading says so. It used to start as
// agreeing, so its expiry timer reclaimed at start whatever its own clock said had ended.
TEST(ClockAgreement, ASharedStoreEndsNoLeaseBeforeTheFirstReading) {
  ClockAgreement clock{true, seconds{1}};
  EXPECT_EQ(clock.state(), ClockAgreement::State::Unknown);
  EXPECT_FALSE(clock.agrees());
  const auto refused = clock.may_end_leases();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "this server has not compared its clock with the shared store's yet: this server ends no lease until "
            "the clocks agree");
  EXPECT_FALSE(clock.offset());

  EXPECT_EQ(clock.read(milliseconds{-300}), ClockAgreement::Change::FirstAgrees);
  EXPECT_TRUE(clock.agrees());
  EXPECT_TRUE(clock.may_end_leases());
  EXPECT_EQ(clock.offset(), milliseconds{-300});
  EXPECT_EQ(clock.read(milliseconds{200}), ClockAgreement::Change::None);
}

TEST(ClockAgreement, AFirstReadingBeyondTheSkewDisagrees) {
  ClockAgreement clock{true, seconds{1}};
  EXPECT_EQ(clock.read(seconds{-30}), ClockAgreement::Change::Disagrees);
  EXPECT_EQ(clock.state(), ClockAgreement::State::Disagrees);
  const auto refused = clock.may_end_leases();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "this server's clock is 30000 ms behind the shared store's, more than store.max-clock-skew 1s: this "
            "server ends no lease until the clocks agree");
  EXPECT_EQ(clock.read(seconds{-31}), ClockAgreement::Change::None);
  // The first agreement is the first (the server has answered nobody yet: its log says
  // "answering", not "answering again"), even after readings that disagreed.
  EXPECT_EQ(clock.read(milliseconds{1000}), ClockAgreement::Change::FirstAgrees);  // the limit itself agrees
  EXPECT_EQ(clock.read(milliseconds{1001}), ClockAgreement::Change::Disagrees);
  EXPECT_EQ(clock.read(milliseconds{0}), ClockAgreement::Change::AgreesAgain);
  EXPECT_EQ(clock.read(milliseconds{1001}), ClockAgreement::Change::Disagrees);
  EXPECT_EQ(clock.disagreement(),
            "this server's clock is 1001 ms ahead of the shared store's, more than store.max-clock-skew 1s");
}

// SQLite and memory stores have no other clock: nothing waits for a reading.
TEST(ClockAgreement, AStoreOfItsOwnAlwaysAgrees) {
  ClockAgreement clock{false, seconds{1}};
  EXPECT_TRUE(clock.agrees());
  EXPECT_TRUE(clock.may_end_leases());
}

}  // namespace
}  // namespace landlord::server
