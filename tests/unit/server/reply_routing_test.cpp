#include "landlord/server/reply_routing.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

constexpr Ipv4 kServer{198, 18, 0, 1};

LinkTable lab_links() {
  Link loopback{1, "lo", true, {{Ipv4{127, 0, 0, 1}, Cidr{Ipv4{127, 0, 0, 0}, 8}}}, false};
  // The client side carries a second subnet: a direct reply comes from our address on yiaddr's.
  Link client_side{2,
                   "ll-srv0",
                   false,
                   {{kServer, Cidr{Ipv4{198, 18, 0, 0}, 24}},
                    {Ipv4{198, 18, 8, 1}, Cidr{Ipv4{198, 18, 8, 0}, 24}}},
                   true};
  Link relay_side{
      3, "ll-srv1", false, {{Ipv4{198, 18, 1, 1}, Cidr{Ipv4{198, 18, 1, 0}, 24}}}, true};
  return LinkTable{{loopback, client_side, relay_side}};
}

// A lab server namespace: connected routes and one route to the relayed subnet, plus (to prove
// it is never used) a default route.
RouteTable lab_routes() {
  return RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "eth9\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
      "ll-srv0\t000012C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
      "ll-srv1\t000112C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
      "ll-srv1\t000212C6\t020112C6\t0003\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");
}

engine::Reply reply(engine::Route route, Ipv4 destination, std::uint16_t port = 68) {
  engine::Reply result;
  result.route = route;
  result.destination = destination;
  result.port = port;
  result.message.op = wire::Op::BootReply;
  result.message.htype = 1;
  result.message.hlen = 6;
  result.message.chaddr = {0x02, 0, 0, 0, 0, 0x10};
  return result;
}

TEST(ReplyRouting, RelayOnLinkGoesToGiaddrAtTheGivenPort) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Relay, Ipv4{198, 18, 1, 2}, 67),
                                         links.find(3u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, (Ipv4{198, 18, 1, 2}));
  EXPECT_EQ(destination->port, 67);
  EXPECT_EQ(destination->interface_index, 0u);
  EXPECT_FALSE(destination->frame_to);
}

TEST(ReplyRouting, RelayBehindASpecificRouteIsReachable) {
  auto links = lab_links();
  EXPECT_TRUE(resolve_destination(reply(engine::Route::Relay, Ipv4{198, 18, 2, 1}, 67),
                                  links.find(3u), links, lab_routes()));
}

TEST(ReplyRouting, RelayOnlyADefaultRouteReachesIsRefused) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Relay, Ipv4{192, 0, 2, 7}, 67),
                                         links.find(3u), links, lab_routes());
  ASSERT_FALSE(destination);
  EXPECT_TRUE(destination.error().no_route);
}

TEST(ReplyRouting, RelayOnLoopbackKeepsTheRelayPort) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Relay, Ipv4{127, 0, 0, 1}, 40067),
                                         links.find(1u), links, RouteTable{});
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->port, 40067);
}

TEST(ReplyRouting, CiaddrOnTheIngressSubnetIsUnicastOutOfThatLink) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{198, 18, 0, 100}),
                                         links.find(2u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(destination->port, 68);
  EXPECT_EQ(destination->interface_index, 2u);
  // As a frame to chaddr from our address on that link: no neighbour entry per renewing client.
  EXPECT_EQ(destination->frame_to, (Mac{0x02, 0, 0, 0, 0, 0x10}));
  EXPECT_EQ(destination->source_address, kServer);
}

// RFC 2131 §4.4.5: a client behind a relay renews by unicast straight to the server (ciaddr
// set, no giaddr). Its ciaddr is on no link of ours; the ACK goes through the kernel's routing
// along the specific route to its subnet: no link, no source, no frame forced.
TEST(ReplyRouting, CiaddrBehindASpecificRouteGoesThroughTheKernelsRouting) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{198, 18, 2, 100}),
                                         links.find(3u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, (Ipv4{198, 18, 2, 100}));
  EXPECT_EQ(destination->port, 68);
  EXPECT_EQ(destination->interface_index, 0u);
  EXPECT_TRUE(destination->source_address.is_zero());
  EXPECT_FALSE(destination->frame_to);
}

// The renewal came in on one link, but ciaddr sits on another attached link (two links to the
// same router): the kernel's routing picks the attached one.
TEST(ReplyRouting, CiaddrOnAnotherAttachedLinkGoesThroughTheKernelsRouting) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{198, 18, 0, 100}),
                                         links.find(3u), links, RouteTable{});
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->interface_index, 0u);
  EXPECT_FALSE(destination->frame_to);
}

// The safety invariant: nothing is sent where only the default route (or nothing) leads.
TEST(ReplyRouting, CiaddrOnlyADefaultRouteReachesIsRefusedAsNoRoute) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{192, 0, 2, 1}),
                                         links.find(2u), links, lab_routes());
  ASSERT_FALSE(destination);
  EXPECT_TRUE(destination.error().no_route);
  destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{198, 18, 2, 100}),
                                    links.find(3u), links, RouteTable{});
  ASSERT_FALSE(destination);
  EXPECT_TRUE(destination.error().no_route);
}

TEST(ReplyRouting, CiaddrBehindAnUnreachableRouteIsRefusedAsNoRoute) {
  auto links = lab_links();
  auto routes = RouteTable::parse_proc_net_route(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
      "*\t000212C6\t00000000\t0201\t0\t0\t0\t00FFFFFF\n");
  auto destination = resolve_destination(reply(engine::Route::Ciaddr, Ipv4{198, 18, 2, 100}),
                                         links.find(3u), links, routes);
  ASSERT_FALSE(destination);
  EXPECT_TRUE(destination.error().no_route);
}

TEST(ReplyRouting, ARefusalForAnUnknownLinkIsNotANoRoute) {
  auto links = lab_links();
  auto destination =
      resolve_destination(reply(engine::Route::Broadcast, kBroadcast), nullptr, links, lab_routes());
  ASSERT_FALSE(destination);
  EXPECT_FALSE(destination.error().no_route);
}

TEST(ReplyRouting, BroadcastLeavesByTheIngressLinkFromItsAddress) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::Broadcast, kBroadcast),
                                         links.find(2u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, kBroadcast);
  EXPECT_EQ(destination->interface_index, 2u);
  EXPECT_EQ(destination->source_address, kServer);
  EXPECT_EQ(destination->frame_to, kBroadcastMac);
  EXPECT_EQ(destination->port, 68);
}

TEST(ReplyRouting, BroadcastWithoutAKnownLinkIsRefused) {
  auto links = lab_links();
  EXPECT_FALSE(resolve_destination(reply(engine::Route::Broadcast, kBroadcast), nullptr, links,
                                   lab_routes()));
}

TEST(ReplyRouting, DirectToClientIsAFrameToChaddrForYiaddr) {
  auto links = lab_links();
  auto destination =
      resolve_destination(reply(engine::Route::DirectToClient, Ipv4{198, 18, 0, 100}),
                          links.find(2u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(destination->interface_index, 2u);
  EXPECT_EQ(destination->source_address, kServer);
  EXPECT_EQ(destination->frame_to, (Mac{0x02, 0, 0, 0, 0, 0x10}));
}

TEST(ReplyRouting, DirectToClientComesFromOurAddressOnYiaddrsSubnet) {
  auto links = lab_links();
  auto destination = resolve_destination(reply(engine::Route::DirectToClient, Ipv4{198, 18, 8, 9}),
                                         links.find(2u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->source_address, (Ipv4{198, 18, 8, 1}));
}

TEST(ReplyRouting, DirectToClientOffLinkIsRefused) {
  auto links = lab_links();
  EXPECT_FALSE(resolve_destination(reply(engine::Route::DirectToClient, Ipv4{198, 18, 5, 100}),
                                   links.find(2u), links, lab_routes()));
}

TEST(ReplyRouting, DirectToClientWithoutAnEthernetAddressFallsBackToBroadcast) {
  auto links = lab_links();
  auto message = reply(engine::Route::DirectToClient, Ipv4{198, 18, 0, 100});
  message.message.htype = 6;  // IEEE 802: no Ethernet address to send a frame to
  auto destination = resolve_destination(message, links.find(2u), links, lab_routes());
  ASSERT_TRUE(destination);
  EXPECT_EQ(destination->address, kBroadcast);
  EXPECT_EQ(destination->frame_to, kBroadcastMac);
}

}  // namespace
}  // namespace landlord::server
