// The control API against hostile requests (issue #31): what a client with the token, or a
// local user on the UNIX socket, can send must be refused with a clear answer, never crash or
// freeze the daemon, never echo what it should not.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fake_daemon.hpp"
#include "handlers.hpp"
#include "landlord/control/request_json.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(RequestLimits, A200000DeepArgumentsArrayIsRefusedNotACrash) {
  FakeDaemon daemon;
  // ≈ 400 KB, under the body limit: it used to be copied recursively and overflow the stack.
  const auto deep = daemon.ask(R"({"command": "lease4-get", "arguments": )" + nested_arrays(200000) + "}");
  EXPECT_EQ(deep["result"], kError);
  EXPECT_EQ(deep["text"], "the request nests deeper than 32 levels");
  const auto deep_objects = daemon.ask(R"({"command": "status-get", "arguments": )" +
                                       [] {
                                         std::string text;
                                         for (int i = 0; i < 100000; ++i) text += "{\"a\":";
                                         return text + "1" + std::string(100000, '}');
                                       }() +
                                       "}");
  EXPECT_EQ(deep_objects["text"], "the request nests deeper than 32 levels");
}

TEST(RequestLimits, NestingUpToTheLimitIsAccepted) {
  EXPECT_TRUE(decode_request(nested_arrays(kMaxJsonDepth)));
  const auto deeper = decode_request(nested_arrays(kMaxJsonDepth + 1));
  ASSERT_FALSE(deeper);
  EXPECT_EQ(deeper.error(), "the request nests deeper than 32 levels");
  const auto parsed = decode_request(R"({"a": [1, {"b": [true, null, 2.5, "x"]}], "c": -3})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, nlohmann::json::parse(R"({"a": [1, {"b": [true, null, 2.5, "x"]}], "c": -3})"));
}

TEST(RequestLimits, ADuplicatedKeyIsRefusedNotTheLastOneRun) {
  FakeDaemon daemon;
  const auto twice = daemon.ask(R"({"command": "status-get", "command": "lease4-wipe"})");
  EXPECT_EQ(twice["result"], kError);
  EXPECT_EQ(twice["text"], "the key \"command\" appears twice in one object");
  const auto in_arguments =
      daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": "198.18.0.1", "ip-address": "198.18.0.2"}})");
  EXPECT_EQ(in_arguments["text"], "the key \"ip-address\" appears twice in one object");
  // The same key in two different objects is fine.
  EXPECT_TRUE(decode_request(R"({"a": {"x": 1}, "b": {"x": 2}})"));
}

TEST(RequestLimits, ErrorsSayWhereWithoutEchoingTheBody) {
  FakeDaemon daemon;
  const auto bad = daemon.ask(R"({"command": "status-get", "secret-looking-text" 1})");
  EXPECT_EQ(bad["result"], kError);
  EXPECT_EQ(bad["text"], "invalid JSON in the request body (at byte 49)");
  const std::string long_name(100000, 'x');
  const auto unknown = daemon.ask(R"({"command": ")" + long_name + R"("})");
  EXPECT_EQ(unknown["result"], kUnsupported);
  EXPECT_LT(unknown["text"].get<std::string>().size(), 120u);
}

}  // namespace
}  // namespace landlord::control

namespace landlord::control {
namespace {

// A directory holding the "running" config, removed at the end.
class ConfigTestFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/landlord-config-test-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    directory_ = name;
    write("landlord.yaml", "subnets: [{subnet: 198.18.0.0/24}]\n");
    daemon_.set_config_path((directory_ / "landlord.yaml").string());
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream{directory_ / name, std::ios::binary} << text;
  }
  nlohmann::json test_path(const std::string& path) {
    return daemon_.ask(nlohmann::json{{"command", "config-test"}, {"arguments", {{"path", path}}}}.dump());
  }

  std::filesystem::path directory_;
  FakeDaemon daemon_;
};

TEST_F(ConfigTestFiles, AFifoIsRefusedAtOnceNotWaitedOn) {
  const auto fifo = directory_ / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Before: open() blocked until a writer came. The writer here comes after 2 s, so a blocking
  // open shows as a slow answer rather than a hung test.
  std::thread writer{[&] {
    std::this_thread::sleep_for(std::chrono::seconds{2});
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }};
  const auto started = std::chrono::steady_clock::now();
  const auto answer = test_path(fifo.string());
  const auto took = std::chrono::steady_clock::now() - started;
  writer.join();
  EXPECT_LT(took, std::chrono::seconds{1});
  EXPECT_EQ(answer["result"], kError);
  EXPECT_EQ(answer["text"], fifo.string() + ": is not a regular file\n");
}

TEST_F(ConfigTestFiles, TheFileIsReadOffTheLoopAndErrorsNameFileAndLine) {
  write("bad.yaml", "subnets:\n  - subnet: 198.18.0.1/24\n");
  const int before = daemon_.offloaded;
  const auto answer = test_path("bad.yaml");  // relative: from the config's directory
  EXPECT_EQ(daemon_.offloaded, before + 1);
  EXPECT_EQ(answer["text"], (directory_ / "bad.yaml").string() +
                                ":2:13: 'subnet': '198.18.0.1/24' has host bits set; did you mean 198.18.0.0/24?\n");
  EXPECT_EQ(daemon_.ask(R"({"command": "config-test"})")["text"], "Configuration seems sane: 1 subnets.");
}

TEST_F(ConfigTestFiles, FilesOutsideTheConfigsDirectoryAreRefused) {
  for (const std::string path : {"/etc/shadow", "/etc/passwd", "../landlord.yaml", "/proc/self/environ"}) {
    const auto answer = test_path(path);
    EXPECT_EQ(answer["result"], kError) << path;
    EXPECT_NE(answer["text"].get<std::string>().find("config-test reads only files in"), std::string::npos)
        << path << ": " << answer;
  }
  std::filesystem::create_directory(directory_ / "sub");
  write("sub/other.yaml", "subnets: [{subnet: 198.18.0.0/24}, {subnet: 198.18.1.0/24}]\n");
  EXPECT_EQ(test_path("sub/other.yaml")["text"], "Configuration seems sane: 2 subnets.");
}

TEST_F(ConfigTestFiles, ASymbolicLinkIsNotFollowed) {
  std::filesystem::create_symlink("/etc/passwd", directory_ / "link.yaml");
  const auto answer = test_path("link.yaml");
  EXPECT_EQ(answer["text"], (directory_ / "link.yaml").string() + ": is a symbolic link; name the file itself\n");
}

TEST_F(ConfigTestFiles, ErrorsNeverEchoAFilesLinesBeyondTheOffendingToken) {
  // /etc/shadow's shape, in the config's directory (the directory rule aside).
  const std::string secret = "$6$Xq0NzFwOsaltsalt$" + std::string(86, 'h');
  write("shadow.yaml", "root:" + secret + ":19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n" +
                           "key: " + std::string(5000, 'v') + "\n");
  const auto answer = test_path("shadow.yaml");
  EXPECT_EQ(answer["result"], kError);
  const std::string text = answer["text"];
  EXPECT_EQ(text.find(secret), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(300, 'v')), std::string::npos) << text;
}

TEST_F(ConfigTestFiles, AtMostFourAtOnce) {
  std::vector<std::optional<Answer>> answers(handlers::kMaxConfigTests + 1);
  for (auto& answer : answers) {
    daemon_.commands().handle_body(R"({"command": "config-test"})", [&answer](Answer given) { answer = std::move(given); });
  }
  ASSERT_TRUE(answers.back());  // refused at once: the others wait for the loop
  EXPECT_EQ(answers.back()->json["text"], "4 config-tests are in progress; try again once one has answered");
  daemon_.run_deferred();
  for (std::size_t i = 0; i < handlers::kMaxConfigTests; ++i) EXPECT_EQ(answers[i]->json["result"], kSuccess);
  EXPECT_EQ(daemon_.ask(R"({"command": "config-test"})")["result"], kSuccess);
}

}  // namespace
}  // namespace landlord::control

namespace landlord::control {
namespace {

nlohmann::json add_lease(testing::FakeDaemon& daemon, nlohmann::json arguments) {
  if (!arguments.contains("ip-address")) arguments["ip-address"] = "198.18.0.150";
  if (!arguments.contains("hw-address")) arguments["hw-address"] = "02:00:00:00:01:50";
  return daemon.ask(nlohmann::json{{"command", "lease4-add"}, {"arguments", arguments}}.dump());
}

TEST(LeaseAddLimits, HostnamesAreRefusedAsTheWireWouldNotCarryThem) {
  testing::FakeDaemon daemon;
  const auto huge = add_lease(daemon, {{"hostname", std::string(900000, 'a')}});
  EXPECT_EQ(huge["result"], kError);
  EXPECT_EQ(huge["text"], "'hostname' is 900000 bytes; a host name (option 12) is at most 255");
  EXPECT_EQ(add_lease(daemon, {{"hostname", std::string("pc\0x", 4)}})["text"],
            "'hostname' has a control character (byte 0) at offset 2");
  EXPECT_EQ(add_lease(daemon, {{"hostname", "pc\nevil 198.18.0.1"}})["text"],
            "'hostname' has a control character (byte 10) at offset 2");
  EXPECT_EQ(add_lease(daemon, {{"hostname", "pc\x1b[2J"}})["text"],
            "'hostname' has a control character (byte 27) at offset 2");
  EXPECT_TRUE(daemon.durable.empty());
  const auto longest = add_lease(daemon, {{"hostname", std::string(255, 'b')}});
  EXPECT_EQ(longest["result"], kSuccess) << longest;
  ASSERT_EQ(daemon.durable.size(), 1u);
  EXPECT_EQ(daemon.durable.front().hostname, std::string(255, 'b'));
}

TEST(LeaseAddLimits, IdentifiersLongerThanTheWiresAreRefusedWithoutEchoingThem) {
  testing::FakeDaemon daemon;
  std::string long_hex = "01";
  for (int i = 0; i < 255; ++i) long_hex += ":01";  // 256 bytes: one more than option 61 holds
  const auto client = add_lease(daemon, {{"client-id", long_hex}});
  EXPECT_EQ(client["result"], kError);
  EXPECT_EQ(client["text"], "'client-id': '" + long_hex.substr(0, 64) + "...' is not a client id (colon hex)");
  const auto hardware = add_lease(daemon, {{"hw-address", "02:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01"}});
  EXPECT_EQ(hardware["text"],
            "'hw-address': '02:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01' is not a hardware address (colon hex)");
  const auto address = add_lease(daemon, {{"ip-address", std::string(100000, '1')}});
  EXPECT_LT(address["text"].get<std::string>().size(), 120u);
  EXPECT_TRUE(daemon.durable.empty());
}

}  // namespace
}  // namespace landlord::control
