// Frames the L2 transport writes and reads: checksums verified, round trips,
// and the ARP exchange that lets a server reach our clients' leased addresses.
#include "landlord/sim/frames.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "landlord/sim/transport.hpp"
#include "landlord/wire/ip_udp.hpp"

namespace landlord::sim::frames {
namespace {

const Mac kClient = {0x02, 0x11, 0, 0, 0, 7};
const Mac kServer = {0x02, 0x22, 0, 0, 0, 1};

TEST(Udp, BuildsFramesWhoseChecksumsVerify) {
  const std::vector<std::uint8_t> payload = {1, 2, 3, 4, 5};
  UdpEndpoints endpoints{kClient, kServer, Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 1}, 68, 67};
  std::vector<std::uint8_t> frame;
  build_udp(endpoints, payload, frame);
  ASSERT_EQ(frame.size(), kHeaders + payload.size());
  // A correct header sums to zero; so does the UDP segment with its pseudo-header.
  EXPECT_EQ(wire::internet_checksum({frame.data() + kEthernetHeader, kIpv4Header}), 0);
  const std::uint32_t pseudo = 0xc612 + 0x0064 + 0xc612 + 0x0001 + 17 + kUdpHeader + payload.size();
  EXPECT_EQ(
      wire::internet_checksum({frame.data() + kEthernetHeader + kIpv4Header, kUdpHeader + payload.size()},
                        pseudo),
      0);

  const auto parsed = parse_udp(frame);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->endpoints.source, endpoints.source);
  EXPECT_EQ(parsed->endpoints.destination, endpoints.destination);
  EXPECT_EQ(parsed->endpoints.source_mac, kClient);
  EXPECT_EQ(parsed->endpoints.destination_mac, kServer);
  EXPECT_EQ(parsed->endpoints.destination_port, 67);
  EXPECT_EQ(std::vector<std::uint8_t>(parsed->payload.begin(), parsed->payload.end()), payload);
}

TEST(Udp, RefusesTruncatedAndForeignFrames) {
  std::vector<std::uint8_t> frame;
  build_udp({kClient, kBroadcastMac, Ipv4{}, kBroadcast, 68, 67}, std::vector<std::uint8_t>(10, 0),
            frame);
  EXPECT_FALSE(parse_udp(std::span(frame).first(kHeaders - 1)));
  std::vector<std::uint8_t> short_ip = frame;
  short_ip.resize(frame.size() - 5);  // IP total length now runs past the frame
  EXPECT_FALSE(parse_udp(short_ip));
  std::vector<std::uint8_t> tcp = frame;
  tcp[kEthernetHeader + 9] = 6;
  EXPECT_FALSE(parse_udp(tcp));
}

TEST(Arp, AnswersARequestForAHeldAddress) {
  // Who has 198.18.0.100? Tell 198.18.0.1 (the server).
  std::vector<std::uint8_t> request = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x22, 0,  0, 0,
                                       1,    0x08, 0x06, 0,    1,    0x08, 0,    6,    4,  0, 1,
                                       0x02, 0x22, 0,    0,    0,    1,    198,  18,   0,  1, 0,
                                       0,    0,    0,    0,    0,    198,  18,   0,    100};
  const auto parsed = parse_arp_request(request);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->target, (Ipv4{198, 18, 0, 100}));
  const auto reply = build_arp_reply(*parsed, kClient);
  ASSERT_EQ(reply.size(), 42u);
  EXPECT_TRUE(std::equal(kServer.begin(), kServer.end(), reply.begin())) << "to the asker";
  EXPECT_EQ(reply[kEthernetHeader + 7], 2) << "an ARP reply";
  EXPECT_TRUE(std::equal(kClient.begin(), kClient.end(), reply.begin() + kEthernetHeader + 8));
  EXPECT_FALSE(parse_arp_request(reply)) << "a reply is not a request";
}

TEST(Endpoint, ParsesAddressAndOptionalPort) {
  EXPECT_EQ(parse_endpoint("127.0.0.1:6767", 67)->port, 6767);
  EXPECT_EQ(parse_endpoint("127.0.0.1", 67)->port, 67);
  EXPECT_FALSE(parse_endpoint("127.0.0.1:", 67));
  EXPECT_FALSE(parse_endpoint("127.0.0.1:70000", 67));
  EXPECT_FALSE(parse_endpoint("localhost:67", 67));
}

}  // namespace
}  // namespace landlord::sim::frames
