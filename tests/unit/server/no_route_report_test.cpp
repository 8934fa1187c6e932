#include "landlord/server/no_route_report.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

TEST(NoRouteReport, EachDestinationIsReportedOnceAndEveryDropCounted) {
  NoRouteReport report;
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 10}));
  EXPECT_FALSE(report.first_drop_to(Ipv4{198, 18, 7, 10}));
  EXPECT_FALSE(report.first_drop_to(Ipv4{198, 18, 7, 10}));
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 11}));
  EXPECT_EQ(report.drops(), 4u);
}

TEST(NoRouteReport, MemoryIsBoundedAndStartsOverWhenFull) {
  NoRouteReport report{2};
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 1}));
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 2}));
  EXPECT_FALSE(report.first_drop_to(Ipv4{198, 18, 7, 1}));  // still remembered
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 3}));   // full: memory starts over
  EXPECT_TRUE(report.first_drop_to(Ipv4{198, 18, 7, 1}));   // so 1 is reported once more
  EXPECT_EQ(report.drops(), 5u);
}

}  // namespace
}  // namespace landlord::server
