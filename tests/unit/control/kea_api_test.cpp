// Kea's own request examples (tests/data/kea-api, from Debian's kea-doc) against landlord's
// dispatcher: each is accepted, answered with the documented result code and response keys.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "fake_daemon.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;
using Json = nlohmann::json;

Json kea_file(const std::string& command) {
  std::ifstream file{std::string{LANDLORD_SOURCE_DIR} + "/tests/data/kea-api/" + command + ".json"};
  EXPECT_TRUE(file.good()) << command;
  return Json::parse(file, nullptr, false);
}

std::string joined(const Json& lines) {
  std::string text;
  for (const auto& line : lines) text += line.get<std::string>() + "\n";
  return text;
}

// The example request, when it is plain JSON (some use placeholders such as <integer>).
std::optional<Json> example_request(const std::string& command) {
  const Json request = Json::parse(joined(kea_file(command)["cmd-syntax"]), nullptr, false);
  if (request.is_discarded()) return std::nullopt;
  return request;
}

// The documented response (the first object when the file shows a list).
std::optional<Json> example_response(const std::string& command) {
  const Json file = kea_file(command);
  if (!file.contains("resp-syntax")) return std::nullopt;
  Json response = Json::parse(joined(file["resp-syntax"]), nullptr, false);
  if (response.is_discarded()) return std::nullopt;
  if (response.is_array()) response = response[0];
  return response;
}

// "client-id" is left out of a lease whose client sent none, as Kea does; the examples' leases
// are added without one (a lease with one shows it: LeaseListing's tests).
void expect_keys_of(const Json& documented, const Json& actual, const std::string& where) {
  ASSERT_TRUE(actual.is_object()) << where << ": " << actual;
  for (const auto& [key, value] : documented.items()) {
    if (key == "client-id" && actual.contains("hw-address")) continue;
    EXPECT_TRUE(actual.contains(key)) << where << " lacks '" << key << "': " << actual;
  }
}

// 43 small subnets, then 192.0.2.0/24 as subnet 44, which Kea's examples use.
std::string kea_examples_config() {
  std::string yaml = "store: {type: memory}\nsubnets:\n";
  for (int i = 0; i < 43; ++i) yaml += "  - subnet: 198.18." + std::to_string(i) + ".0/24\n";
  yaml += "  - subnet: 192.0.2.0/24\n    pools: [192.0.2.1-192.0.2.250]\n";
  return yaml;
}

TEST(KeaApi, EveryPlainExampleIsAcceptedWithTheDocumentedResult) {
  FakeDaemon daemon{kea_examples_config()};
  const auto run = [&](const std::string& command) {
    const auto request = example_request(command);
    EXPECT_TRUE(request.has_value()) << command << ": example no longer plain JSON";
    return request ? daemon.ask(request->dump()) : Json{};
  };
  // In an order that makes each one meaningful: add, look up, delete, update (force-create).
  EXPECT_EQ(run("lease4-add")["result"], kSuccess);
  EXPECT_EQ(run("lease4-get")["result"], kEmpty);  // 192.0.2.1: nobody's yet
  EXPECT_EQ(run("lease4-del")["result"], kSuccess);  // 192.0.2.202, just added
  EXPECT_EQ(run("lease4-update")["result"], kSuccess);  // force-create 192.0.2.1 in subnet 44
  const Json got = run("lease4-get");
  ASSERT_EQ(got["result"], kSuccess) << got;
  expect_keys_of(*example_response("lease4-get"), got, "lease4-get");
  expect_keys_of((*example_response("lease4-get"))["arguments"], got["arguments"], "lease4-get arguments");
  EXPECT_EQ(got["arguments"]["subnet-id"], 44);
  EXPECT_EQ(got["arguments"]["hostname"], "newhostname.example.org");

  const Json subnets = run("subnet4-list");
  EXPECT_EQ(subnets["result"], kSuccess);
  const Json documented_subnets = *example_response("subnet4-list");
  expect_keys_of(documented_subnets, subnets, "subnet4-list");
  expect_keys_of(documented_subnets["arguments"]["subnets"][0], subnets["arguments"]["subnets"][43], "subnet4-list entry");

  EXPECT_EQ(run("leases-reclaim")["result"], kSuccess);
  EXPECT_EQ(run("statistic-get-all")["result"], kSuccess);
  EXPECT_EQ(run("config-get")["result"], kSuccess);
  EXPECT_EQ(run("config-reload")["result"], kSuccess);
  // Kea's wipe takes no confirmation; landlord asks for one rather than revoke a subnet by accident.
  EXPECT_EQ(run("lease4-wipe")["result"], kError);

  const Json status = run("status-get");
  EXPECT_EQ(status["result"], kSuccess);
  for (const char* key : {"pid", "uptime", "reload", "multi-threading-enabled", "sockets"}) {
    EXPECT_TRUE(status["arguments"].contains(key)) << key;  // status-get.json's keys landlord has
  }
}

TEST(KeaApi, ListsAndPagesAnswerWithTheDocumentedLeaseKeys) {
  FakeDaemon daemon{kea_examples_config()};
  ASSERT_EQ(daemon.ask(example_request("lease4-add")->dump())["result"], kSuccess);
  // These examples carry placeholders ([1, 2, 3, ...], <integer>): their documented arguments.
  const Json all = daemon.ask(R"({"command": "lease4-get-all", "arguments": {"subnets": [44]}})");
  const Json page = daemon.ask(R"({"command": "lease4-get-page", "arguments": {"from": "start", "limit": 10}})");
  for (const auto& [command, answer] : {std::pair{"lease4-get-all", all}, std::pair{"lease4-get-page", page}}) {
    const auto documented = example_response(command);
    ASSERT_TRUE(documented.has_value()) << command;
    EXPECT_EQ(answer["result"], kSuccess) << command;
    EXPECT_EQ(answer["text"], (*documented)["text"].get<std::string>().replace(0, 1, "1")) << command;
    expect_keys_of((*documented)["arguments"]["leases"][0], answer["arguments"]["leases"][0], command);
  }
}

TEST(KeaApi, TheStatisticsNamedInKeasExampleExist) {
  FakeDaemon daemon{kea_examples_config()};
  const Json statistics = daemon.ask(R"({"command": "statistic-get-all", "arguments": {}})")["arguments"];
  // statistic-get-all.json is not plain JSON (missing commas); these are its names landlord keeps.
  for (const char* name : {"pkt4-received", "pkt4-discover-received", "pkt4-request-received", "pkt4-ack-sent",
                           "pkt4-offer-sent", "pkt4-nak-sent", "pkt4-parse-failed", "pkt4-receive-drop",
                           "pkt4-release-received", "pkt4-decline-received", "pkt4-inform-received",
                           "declined-addresses", "reclaimed-leases", "v4-allocation-fail",
                           "subnet[44].total-addresses", "subnet[44].assigned-addresses",
                           "subnet[44].declined-addresses"}) {
    const std::string documented = joined(kea_file("statistic-get-all")["resp-syntax"]);
    EXPECT_NE(documented.find(std::string{"\""} + (std::string{name}.rfind("subnet[44]", 0) == 0
                                                       ? "subnet[1]" + std::string{name}.substr(10)
                                                       : name) + "\""),
              std::string::npos) << name << " is not a Kea statistic";
    ASSERT_TRUE(statistics.contains(name)) << name;
    EXPECT_TRUE(statistics[name][0][0].is_number()) << name;
  }
  EXPECT_EQ(statistics["subnet[44].total-addresses"][0][0], 250);
}

}  // namespace
}  // namespace landlord::control
