#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "landlord/wire/message.hpp"
#include "raw_packet.hpp"

namespace landlord::wire {
namespace {

using Bytes = std::vector<std::uint8_t>;
Bytes bytes_of(std::span<const std::uint8_t> span) { return {span.begin(), span.end()}; }

TEST(RelayAgentInfo, ReadsCircuitRemoteLinkSelectionAndRelayPort) {
  const Bytes value{1, 3, 'e', 't', '0',           // circuit id
                    2, 2, 0xaa, 0xbb,              // remote id
                    9, 3, 1, 2, 3,                 // vendor-specific: skipped, still echoed
                    5, 4, 198, 18, 7, 0,           // link selection
                    19, 2, 0x10, 0x43};            // relay port 4163
  const auto info = parse_relay_agent_info(value);
  ASSERT_TRUE(info);
  EXPECT_EQ(bytes_of(info->circuit_id), (Bytes{'e', 't', '0'}));
  EXPECT_EQ(bytes_of(info->remote_id), (Bytes{0xaa, 0xbb}));
  EXPECT_EQ(info->link_selection, Ipv4(198, 18, 7, 0));
  EXPECT_EQ(info->relay_port, 4163);
}

TEST(RelayAgentInfo, EmptyRelayPortMeansTheDatagramSourcePort) {
  const auto info = parse_relay_agent_info(Bytes{19, 0});
  ASSERT_TRUE(info);
  EXPECT_EQ(info->relay_port, 0);
  EXPECT_TRUE(info->circuit_id.empty());
  EXPECT_FALSE(info->link_selection);
}

TEST(RelayAgentInfo, AbsentSubOptionsStayEmpty) {
  const auto info = parse_relay_agent_info(Bytes{1, 1, 'x'});
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->remote_id.empty());
  EXPECT_FALSE(info->link_selection);
  EXPECT_FALSE(info->relay_port);
  EXPECT_TRUE(parse_relay_agent_info(Bytes{}));  // an empty option 82 is valid
}

struct MalformedRelayInfo {
  std::string name;
  Bytes value;
};

class RelayAgentInfoMalformed : public ::testing::TestWithParam<MalformedRelayInfo> {};

TEST_P(RelayAgentInfoMalformed, IsRefused) {
  EXPECT_FALSE(parse_relay_agent_info(GetParam().value)) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, RelayAgentInfoMalformed,
    ::testing::Values(MalformedRelayInfo{"lone_code", {1}},
                      MalformedRelayInfo{"length_past_end", {1, 4, 'a', 'b'}},
                      MalformedRelayInfo{"second_sub_option_truncated", {1, 1, 'a', 2, 2, 'b'}},
                      MalformedRelayInfo{"link_selection_of_3_bytes", {5, 3, 198, 18, 0}},
                      MalformedRelayInfo{"link_selection_of_5_bytes", {5, 5, 198, 18, 0, 0, 0}},
                      MalformedRelayInfo{"relay_port_of_1_byte", {19, 1, 0}},
                      MalformedRelayInfo{"relay_port_of_3_bytes", {19, 3, 0, 0, 0}}),
    [](const auto& test_info) { return test_info.param.name; });

TEST(RelayAgentInfo, FromAParsedRelayedRequest) {
  auto packet = test::raw_packet({53, 1, 1, 82, 9, 1, 3, 'p', '1', '7', 2, 2, 'r', 'x', 255});
  test::put(packet, 24, {198, 18, 9, 1});  // giaddr
  const auto message = parse(packet);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->giaddr, Ipv4(198, 18, 9, 1));
  const auto info = parse_relay_agent_info(message->options.get(option::kRelayAgentInfo));
  ASSERT_TRUE(info);
  EXPECT_EQ(bytes_of(info->circuit_id), (Bytes{'p', '1', '7'}));
  EXPECT_EQ(bytes_of(info->remote_id), (Bytes{'r', 'x'}));
}

}  // namespace
}  // namespace landlord::wire
