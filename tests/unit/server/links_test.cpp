#include "landlord/server/links.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

TEST(Links, ProcNetRouteAddressesAreReadInNetworkOrder) {
  auto routes = RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "ll-srv1\t000212C6\t020112C6\t0003\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");
  EXPECT_TRUE(routes.has_specific_route(Ipv4{198, 18, 2, 77}));
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 3, 1}));
}

TEST(Links, ADefaultRouteIsNeverSpecific) {
  auto routes = RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
      "eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\n"
      "garbage line\n");
  EXPECT_FALSE(routes.has_specific_route(Ipv4{192, 0, 2, 1}));
}

// ip route add unreachable|blackhole|prohibit: /proc/net/route shows flag 0201 (RTF_REJECT)
// or no device ("*"). Such a route says "do not go there": it is no route.
TEST(Links, UnreachableBlackholeAndProhibitRoutesAreNoRoute) {
  auto routes = RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
      "*\t000912C6\t00000000\t0201\t0\t0\t0\t00FFFFFF\n"
      "*\t000A12C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
      "ll-srv1\t000B12C6\t00000000\t0201\t0\t0\t0\t00FFFFFF\n");
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 9, 1}));
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 10, 1}));
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 11, 1}));
}

// The most specific route decides, as in the kernel: a /32 unreachable inside a routed /24
// cuts that one address off, and a /24 route inside an unreachable /16 reopens its /24.
TEST(Links, TheLongestPrefixDecides) {
  auto routes = RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
      "ll-srv1\t000212C6\t020112C6\t0003\t0\t0\t0\t00FFFFFF\n"
      "*\t070212C6\t00000000\t0201\t0\t0\t0\tFFFFFFFF\n"
      "*\t000012C6\t00000000\t0201\t0\t0\t0\t0000FFFF\n");
  EXPECT_TRUE(routes.has_specific_route(Ipv4{198, 18, 2, 8}));
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 2, 7}));
  EXPECT_FALSE(routes.has_specific_route(Ipv4{198, 18, 5, 1}));
}

TEST(Links, BroadcastAddressesOfALink) {
  Link link{2, "ll-srv0", false, {{Ipv4{198, 18, 0, 1}, Cidr{Ipv4{198, 18, 0, 0}, 24}}}, true};
  EXPECT_TRUE(link.is_broadcast_of(kBroadcast));
  EXPECT_TRUE(link.is_broadcast_of(Ipv4{198, 18, 0, 255}));
  EXPECT_FALSE(link.is_broadcast_of(Ipv4{198, 18, 0, 1}));
  EXPECT_TRUE(link.attaches(Ipv4{198, 18, 0, 200}));
  EXPECT_FALSE(link.attaches(Ipv4{198, 18, 1, 200}));
}

TEST(Links, ScanFindsLoopback) {
  LinkTable links = LinkTable::scan();
  const Link* loopback = links.find(std::string_view{"lo"});
  ASSERT_NE(loopback, nullptr);
  EXPECT_TRUE(loopback->loopback);
  EXPECT_TRUE(loopback->attaches(Ipv4{127, 0, 0, 1}));
  EXPECT_EQ(links.find(loopback->index), loopback);
}

}  // namespace
}  // namespace landlord::server
