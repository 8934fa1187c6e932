#include "landlord/server/ingress.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

const Link kServed{2, "ll-srv0", false, {{Ipv4{198, 18, 0, 1}, Cidr{Ipv4{198, 18, 0, 0}, 24}}}};
const Link kOther{3, "ll-srv1", false, {{Ipv4{198, 18, 1, 1}, Cidr{Ipv4{198, 18, 1, 0}, 24}}}};
const std::unordered_set<std::uint32_t> kServedIndices{2};

Datagram datagram_to(Ipv4 destination, std::uint32_t link_index = 2,
                     Ipv4 source = Ipv4{198, 18, 0, 100}) {
  Datagram datagram;
  datagram.interface_index = link_index;
  datagram.source = source;
  datagram.source_port = 68;
  datagram.header_destination = destination;
  return datagram;
}

wire::Message request(Ipv4 ciaddr = Ipv4{}, Ipv4 giaddr = Ipv4{}) {
  wire::Message message;
  message.ciaddr = ciaddr;
  message.giaddr = giaddr;
  return message;
}

TEST(Ingress, UnicastToUsIsRenewingAndNamesTheAddressUsed) {
  const auto ingress = make_ingress(datagram_to(Ipv4{198, 18, 0, 1}), &kServed);
  EXPECT_FALSE(ingress.to_broadcast);
  EXPECT_EQ(ingress.interface_address, (Ipv4{198, 18, 0, 1}));
  EXPECT_EQ(ingress.interface_name, "ll-srv0");
  EXPECT_EQ(ingress.interface_index, 2u);
  EXPECT_EQ(ingress.source_address, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(ingress.source_port, 68);
}

TEST(Ingress, LimitedAndSubnetBroadcastAreRebinding) {
  for (const Ipv4 destination : {kBroadcast, Ipv4{198, 18, 0, 255}}) {
    const auto ingress = make_ingress(datagram_to(destination), &kServed);
    EXPECT_TRUE(ingress.to_broadcast) << destination.to_string();
    EXPECT_EQ(ingress.interface_address, (Ipv4{198, 18, 0, 1}));
  }
}

TEST(Ingress, AnUnknownLinkLeavesTheLinkFieldsEmpty) {
  const auto ingress = make_ingress(datagram_to(kBroadcast, 9), nullptr);
  EXPECT_EQ(ingress.interface_index, 9u);
  EXPECT_TRUE(ingress.interface_name.empty());
  EXPECT_TRUE(ingress.interface_address.is_zero());
}

TEST(Ingress, RelayedRequestsAreServedOnAnyLink) {
  const auto ingress = make_ingress(datagram_to(Ipv4{198, 18, 1, 1}, 3), &kOther);
  EXPECT_TRUE(serves(request(Ipv4{}, Ipv4{198, 18, 2, 1}), ingress, kServedIndices));
}

TEST(Ingress, DirectBroadcastsAreServedOnlyOnServedLinks) {
  EXPECT_TRUE(serves(request(), make_ingress(datagram_to(kBroadcast), &kServed), kServedIndices));
  EXPECT_FALSE(
      serves(request(), make_ingress(datagram_to(kBroadcast, 3), &kOther), kServedIndices));
  EXPECT_FALSE(serves(request(Ipv4{198, 18, 1, 50}),
                      make_ingress(datagram_to(kBroadcast, 3), &kOther), kServedIndices))
      << "a REBINDING broadcast on a link we do not serve is not ours";
}

TEST(Ingress, ARenewingUnicastIsServedFromAnyLink) {
  const auto ingress =
      make_ingress(datagram_to(Ipv4{198, 18, 1, 1}, 3, Ipv4{198, 18, 2, 100}), &kOther);
  EXPECT_TRUE(serves(request(Ipv4{198, 18, 2, 100}), ingress, kServedIndices));
  EXPECT_FALSE(serves(request(), ingress, kServedIndices)) << "no ciaddr: not a renewal";
}

}  // namespace
}  // namespace landlord::server
