// Every frame of the real-client capture (tests/data/captures/README.md) as a test vector:
// dhclient, busybox udhcpc and dhcpcd talking to ISC Kea.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../support/pcap_reader.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::wire {
namespace {

const std::string kCapture = LANDLORD_CAPTURES_DIR "/real-clients.pcap";
const std::string kCorpus = LANDLORD_SOURCE_DIR "/tests/fuzz/corpus";

const std::vector<test::UdpDatagram>& datagrams() {
  static const auto all = test::read_udp_datagrams(kCapture);
  return all;
}

using Bytes = std::vector<std::uint8_t>;
Bytes bytes_of(std::span<const std::uint8_t> span) { return {span.begin(), span.end()}; }

const Ipv4 kServer(198, 18, 0, 1);
const Bytes kChaddr{0x12, 0xf1, 0x33, 0xc3, 0x9e, 0x7d};
const Bytes kDhclientPrl{1, 28, 2, 3, 15, 6, 119, 12, 44, 47, 26, 121, 42};
const Bytes kUdhcpcPrl{1, 3, 6, 12, 15, 28, 42};
const Bytes kDhcpcdPrl{1, 3, 28, 33, 51, 58, 59};
const Bytes kUdhcpcClientId{0x01, 0x12, 0xf1, 0x33, 0xc3, 0x9e, 0x7d};
const Bytes kDhcpcdClientId{0x00, 'l', 'a', 'b', '-', 'c', 'i', 'd'};

struct FrameFacts {
  std::size_t frame;
  Op op;
  MessageType type;
  std::uint32_t xid;
  Ipv4 ciaddr;
  Ipv4 yiaddr;
  std::optional<Ipv4> requested;
  std::optional<Ipv4> server_id;
  std::optional<std::string> hostname;
  Bytes prl;        // empty: absent
  Bytes client_id;  // empty: absent
  std::optional<std::uint16_t> max_size;
  Bytes codes;      // option codes in wire order
};

const Ipv4 kNone;
const Ipv4 kA100(198, 18, 0, 100), kA101(198, 18, 0, 101), kA102(198, 18, 0, 102);
constexpr auto kRequest = Op::BootRequest;
constexpr auto kReply = Op::BootReply;
const Bytes kKeaCodes{53, 1, 3, 6, 12, 15, 51, 54, 58, 59};
Bytes kea_codes_with_client_id() {
  Bytes codes = kKeaCodes;
  codes.push_back(61);
  return codes;
}

const std::vector<FrameFacts>& expectations() {
  static const std::vector<FrameFacts> all{
      {1, kRequest, MessageType::Discover, 0x0be9ec4e, kNone, kNone, {}, {}, "vm", kDhclientPrl, {}, {},
       {53, 12, 55}},
      {2, kReply, MessageType::Offer, 0x0be9ec4e, kNone, kA100, {}, kServer, "vm", {}, {}, {}, kKeaCodes},
      {3, kRequest, MessageType::Request, 0x0be9ec4e, kNone, kNone, kA100, kServer, "vm", kDhclientPrl,
       {}, {}, {53, 54, 50, 12, 55}},
      {4, kReply, MessageType::Ack, 0x0be9ec4e, kNone, kA100, {}, kServer, "vm", {}, {}, {}, kKeaCodes},
      {5, kRequest, MessageType::Request, 0x0be9ec4e, kA100, kNone, {}, {}, "vm", kDhclientPrl, {}, {},
       {53, 12, 55}},
      {6, kReply, MessageType::Ack, 0x0be9ec4e, kA100, kA100, {}, kServer, "vm", {}, {}, {}, kKeaCodes},
      {7, kRequest, MessageType::Release, 0xd30f9d41, kA100, kNone, {}, kServer, "vm", {}, {}, {},
       {53, 54, 12}},
      {8, kRequest, MessageType::Discover, 0x7c926273, kNone, kNone, {}, {}, "cap-udhcpc", kUdhcpcPrl,
       kUdhcpcClientId, 576, {53, 57, 55, 12, 60, 61}},
      {9, kReply, MessageType::Offer, 0x7c926273, kNone, kA101, {}, kServer, "cap-udhcpc", {},
       kUdhcpcClientId, {}, kea_codes_with_client_id()},
      {10, kRequest, MessageType::Request, 0x7c926273, kNone, kNone, kA101, kServer, "cap-udhcpc",
       kUdhcpcPrl, kUdhcpcClientId, 576, {53, 50, 54, 57, 55, 12, 60, 61}},
      {11, kReply, MessageType::Ack, 0x7c926273, kNone, kA101, {}, kServer, "cap-udhcpc", {},
       kUdhcpcClientId, {}, kea_codes_with_client_id()},
      {12, kRequest, MessageType::Request, 0x7c926273, kA101, kNone, {}, {}, "cap-udhcpc", kUdhcpcPrl,
       kUdhcpcClientId, 576, {53, 57, 55, 12, 60, 61}},
      {13, kReply, MessageType::Ack, 0x7c926273, kA101, kA101, {}, kServer, "cap-udhcpc", {},
       kUdhcpcClientId, {}, kea_codes_with_client_id()},
      {14, kRequest, MessageType::Discover, 0xc56304cb, kNone, kNone, {}, {}, "cap-dhcpcd", kDhcpcdPrl,
       kDhcpcdClientId, 1472, {53, 55, 57, 61, 60, 12, 116, 145}},
      {15, kReply, MessageType::Offer, 0xc56304cb, kNone, kA102, {}, kServer, "cap-dhcpcd", {},
       kDhcpcdClientId, {}, kea_codes_with_client_id()},
      {16, kRequest, MessageType::Request, 0xc56304cb, kNone, kNone, kA102, kServer, "cap-dhcpcd",
       kDhcpcdPrl, kDhcpcdClientId, 1472, {50, 53, 54, 55, 57, 61, 60, 12, 145}},
      {17, kReply, MessageType::Ack, 0xc56304cb, kNone, kA102, {}, kServer, "cap-dhcpcd", {},
       kDhcpcdClientId, {}, kea_codes_with_client_id()},
  };
  return all;
}

TEST(Capture, HoldsSeventeenDhcpDatagrams) {
  ASSERT_EQ(datagrams().size(), 17u);
  for (const auto& datagram : datagrams()) {
    EXPECT_TRUE(datagram.destination_port == 67 || datagram.destination_port == 68);
  }
}

TEST(PcapReader, RefusesWhatIsNotAClassicPcap) {
  EXPECT_THROW(test::read_udp_datagrams(LANDLORD_CAPTURES_DIR "/missing.pcap"),
               std::runtime_error);
  // The capture's README is a file, but not a pcap one.
  EXPECT_THROW(test::read_udp_datagrams(LANDLORD_CAPTURES_DIR "/README.md"),
               std::runtime_error);
}

TEST(PcapReader, ReportsAddressesAndPorts) {
  const auto& discover = datagrams().at(0);
  EXPECT_EQ(discover.source_address, 0u);
  EXPECT_EQ(discover.destination_address, 0xffffffffu);
  EXPECT_EQ(discover.source_port, 68);
  EXPECT_EQ(discover.destination_port, 67);
  const auto& offer = datagrams().at(1);
  EXPECT_EQ(offer.source_address, kServer.to_uint());
  EXPECT_EQ(offer.destination_address, Ipv4(198, 18, 0, 100).to_uint());
  EXPECT_EQ(offer.source_port, 67);
}

class CaptureFrame : public ::testing::TestWithParam<FrameFacts> {
 protected:
  const test::UdpDatagram& datagram() const { return datagrams().at(GetParam().frame - 1); }
};

TEST_P(CaptureFrame, ParsesToTheExpectedMessage) {
  const FrameFacts& expected = GetParam();
  ASSERT_EQ(datagram().frame_number, expected.frame);
  const auto message = parse(datagram().payload);
  ASSERT_TRUE(message) << to_string(message.error().kind) << " at " << message.error().offset;

  EXPECT_EQ(message->op, expected.op);
  EXPECT_EQ(message->type(), expected.type);
  EXPECT_EQ(message->xid, expected.xid);
  EXPECT_EQ(message->ciaddr, expected.ciaddr);
  EXPECT_EQ(message->yiaddr, expected.yiaddr);
  EXPECT_EQ(bytes_of(message->hardware_address().bytes()), kChaddr);
  EXPECT_EQ(message->hardware_address().type(), HardwareAddress::kEthernet);
  EXPECT_FALSE(message->broadcast());
  const Options& options = message->options;
  EXPECT_EQ(options.get_ipv4(option::kRequestedAddress), expected.requested);
  EXPECT_EQ(options.get_ipv4(option::kServerId), expected.server_id);
  EXPECT_EQ(options.get_text(option::kHostname), expected.hostname);
  EXPECT_EQ(bytes_of(options.get(option::kParameterRequestList)), expected.prl);
  EXPECT_EQ(bytes_of(message->client_id().bytes()), expected.client_id);
  EXPECT_EQ(options.get_u16(option::kMaxMessageSize), expected.max_size);
  EXPECT_EQ(bytes_of(options.codes()), expected.codes);
  if (expected.op == Op::BootReply) {  // Kea: lease 12 s, T1 6 s, T2 10 s (README)
    EXPECT_EQ(options.get_u32(option::kLeaseTime), 12u);
    EXPECT_EQ(options.get_u32(option::kRenewalTime), 6u);
    EXPECT_EQ(options.get_u32(option::kRebindingTime), 10u);
    EXPECT_EQ(options.get_ipv4(option::kSubnetMask), Ipv4(255, 255, 255, 0));
    EXPECT_EQ(options.get_ipv4(option::kRouters), kServer);
    EXPECT_EQ(options.get_ipv4(option::kDnsServers), Ipv4(198, 18, 0, 53));
    EXPECT_EQ(options.get_text(option::kDomainName), "lab.test");
  }
}

TEST_P(CaptureFrame, BuildsBackToTheSameBytesAndMessage) {
  // Every captured message ends in END followed only by zero padding up to 300 bytes (or has
  // none): exactly what build writes, so the bytes must come back identical.
  const auto& original = datagram().payload;
  const auto message = parse(original);
  ASSERT_TRUE(message);
  std::vector<std::uint8_t> buffer(kMaxPacketSize, 0xee);
  const auto built = build(*message, buffer);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->omitted, 0u);
  EXPECT_EQ(built->overload, 0);
  buffer.resize(built->size);
  EXPECT_EQ(buffer, original);
  const auto reparsed = parse(buffer);
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(*reparsed, *message);
}

TEST_P(CaptureFrame, SqueezedBelowAnyLegalLimitItOverloadsAndKeepsEveryOption) {
  // 250 bytes leave 10 in the options field: 52, 53 and END. The rest goes to file then sname,
  // each option whole, in order; 53 moves first so it is never lost.
  const auto message = parse(datagram().payload);
  ASSERT_TRUE(message);
  std::vector<std::uint8_t> buffer(250);
  const auto built = build(*message, buffer);
  ASSERT_TRUE(built);
  EXPECT_EQ(built->size, buffer.size());
  EXPECT_EQ(built->omitted, 0u);
  EXPECT_NE(built->overload & 1, 0);  // file is used first
  EXPECT_EQ(buffer[240], option::kOverload);
  EXPECT_EQ(buffer[243], option::kMessageType);
  const auto reparsed = parse(buffer);
  ASSERT_TRUE(reparsed) << to_string(reparsed.error().kind);

  Bytes expected_codes{option::kMessageType};
  for (const std::uint8_t code : message->options.codes()) {
    if (code != option::kMessageType) expected_codes.push_back(code);
  }
  EXPECT_EQ(bytes_of(reparsed->options.codes()), expected_codes);
  for (const std::uint8_t code : message->options.codes()) {
    EXPECT_EQ(bytes_of(reparsed->options.get(code)), bytes_of(message->options.get(code))) << int{code};
  }
  EXPECT_EQ(reparsed->xid, message->xid);
  EXPECT_EQ(reparsed->chaddr, message->chaddr);
}

TEST_P(CaptureFrame, IsInTheFuzzCorpus) {
  // tests/fuzz/corpus/ is generated from the capture by wire_write_corpus; keep them in step.
  const auto path = kCorpus + "/real-clients-" + (GetParam().frame < 10 ? "0" : "") +
                    std::to_string(GetParam().frame);
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << path;
  const std::vector<std::uint8_t> seed{std::istreambuf_iterator<char>(file), {}};
  EXPECT_EQ(seed, datagram().payload);
}

INSTANTIATE_TEST_SUITE_P(RealClients, CaptureFrame, ::testing::ValuesIn(expectations()),
                         [](const auto& test_info) {
                           return "frame" + std::to_string(test_info.param.frame);
                         });

}  // namespace
}  // namespace landlord::wire
