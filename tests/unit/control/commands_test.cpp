// The dispatcher and the server-level commands, without sockets.
#include <gtest/gtest.h>

#include "fake_daemon.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;

TEST(Commands, BadRequestsGetAClearErrorNotAnException) {
  FakeDaemon daemon;
  EXPECT_EQ(daemon.ask("{not json")["result"], kError);
  EXPECT_EQ(daemon.ask("{not json")["text"], "invalid JSON in the request body (at byte 3)");
  EXPECT_EQ(daemon.ask("[1, 2]")["result"], kError);
  EXPECT_EQ(daemon.ask(R"({"command": 7})")["text"], "a request is a map with a \"command\" string");
  const auto unknown = daemon.ask(R"({"command": "lease6-get"})");
  EXPECT_EQ(unknown["result"], kUnsupported);
  EXPECT_EQ(unknown["text"], "'lease6-get' command not supported.");
  const auto wrong_type = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": 17}})");
  EXPECT_EQ(wrong_type["result"], kError);
  EXPECT_EQ(wrong_type["text"].get<std::string>().rfind("'ip-address' must be a string", 0), 0u) << wrong_type;
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-get", "arguments": [1]})")["text"],
            "'arguments' must be a map (give ip-address, or identifier-type, identifier and subnet-id)");
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-get-page", "arguments": {"from": "start", "limit": -1}})")["text"],
            "'limit' must be an integer from 1 to 65536");
}

TEST(Commands, TheControlAgentsFormIsAnsweredWithAList) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "subnet4-list", "service": ["dhcp4"]})");
  ASSERT_TRUE(answer.is_array()) << answer;
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0]["result"], kSuccess);
  EXPECT_EQ(daemon.ask(R"({"command": "subnet4-list", "service": ["dhcp6"]})")[0]["result"], kError);
}

TEST(Commands, ListCommandsNamesEveryCommand) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "list-commands"})");
  EXPECT_EQ(answer["result"], kSuccess);
  EXPECT_EQ(answer["arguments"].size(), 15u);
}

TEST(Commands, SubnetListGivesIdsAndPrefixes) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "subnet4-list"})");
  EXPECT_EQ(answer["text"], "2 IPv4 subnets found");
  EXPECT_EQ(answer["arguments"]["subnets"][1], (nlohmann::json{{"id", 2}, {"subnet", "198.18.2.0/24"}}));
}

TEST(Commands, StatusGetReportsUptimeStoreAndRecords) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "status-get"})");
  EXPECT_EQ(answer["result"], kSuccess);
  EXPECT_EQ(answer["arguments"]["uptime"], 100);
  EXPECT_EQ(answer["arguments"]["store"]["healthy"], true);
  EXPECT_EQ(answer["arguments"]["lease-records"], 0);
  daemon.store_up = false;
  EXPECT_EQ(daemon.ask(R"({"command": "status-get"})")["arguments"]["store"]["healthy"], false);
}

TEST(Commands, ConfigGetShowsTheRunningConfiguration) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "config-get"})");
  const auto& subnets = answer["arguments"]["landlord"]["subnets"];
  ASSERT_EQ(subnets.size(), 2u);
  EXPECT_EQ(subnets[0]["pools"][0], "198.18.0.100-198.18.0.199");
  EXPECT_EQ(subnets[0]["reservations"][0]["mac"], "02:00:00:00:00:10");
  EXPECT_EQ(subnets[0]["lease"]["time"], "1h");
}

TEST(Commands, ConfigTestReportsErrorsAtTheirPlace) {
  FakeDaemon daemon;
  const auto bad = daemon.ask(R"({"command": "config-test", "arguments": {"yaml": "subnets: [{subnet: 198.18.0.1/24}]"}})");
  EXPECT_EQ(bad["result"], kError);
  EXPECT_EQ(bad["text"], "arguments.yaml:1:20: 'subnet': '198.18.0.1/24' has host bits set; did you mean 198.18.0.0/24?\n");
  const auto good = daemon.ask(R"({"command": "config-test", "arguments": {"yaml": "subnets: [{subnet: 198.18.0.0/24}]"}})");
  EXPECT_EQ(good["result"], kSuccess);
  const auto kea = daemon.ask(R"({"command": "config-test", "arguments": {"Dhcp4": {}}})");
  EXPECT_EQ(kea["result"], kError);
  EXPECT_NE(kea["text"].get<std::string>().find("YAML"), std::string::npos);
}

TEST(Commands, ConfigReloadAsksTheDaemon) {
  FakeDaemon daemon;
  EXPECT_EQ(daemon.ask(R"({"command": "config-reload"})")["result"], kSuccess);
  EXPECT_EQ(daemon.reloads, 1);
}

TEST(Commands, StatisticsAreKeaShaped) {
  FakeDaemon daemon;
  const auto answer = daemon.ask(R"({"command": "statistic-get-all", "arguments": {}})");
  ASSERT_EQ(answer["result"], kSuccess);
  const auto& statistics = answer["arguments"];
  EXPECT_EQ(statistics["pkt4-received"][0][0], 42);
  EXPECT_EQ(statistics["subnet[1].total-addresses"][0][0], 100);
  EXPECT_EQ(statistics["subnet[2].total-addresses"][0][0], 10);
  EXPECT_EQ(statistics["subnet[1].assigned-addresses"][0][0], 0);
  EXPECT_EQ(statistics["pkt4-received"][0][1].get<std::string>().size(), 26u);  // 2023-11-14 22:15:00.000000
}

}  // namespace
}  // namespace landlord::control
