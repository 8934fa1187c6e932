// Started as root, landlord binds its sockets and becomes server.user keeping CAP_NET_RAW
// alone (read back from /proc/PID/status); without server.user it refuses to run as root
// unless --allow-root.
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

using namespace std::chrono_literals;
using landlord::test::Daemon;
using landlord::test::WorkDirectory;

constexpr const char* kUser = "nobody";  // present on every Debian system

std::map<std::string, std::string> proc_status(pid_t pid) {
  std::ifstream file{"/proc/" + std::to_string(pid) + "/status"};
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(file, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    fields[line.substr(0, colon)] = value;
  }
  return fields;
}

class Privileges : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  }
};

TEST_F(Privileges, BecomesServerUserWithOnlyNetRaw) {
  const passwd* user = ::getpwnam(kUser);
  ASSERT_NE(user, nullptr);
  WorkDirectory work{"privileges"};
  ASSERT_EQ(::chown(work.path().c_str(), user->pw_uid, user->pw_gid), 0);  // the store is its
  const auto config = landlord::test::write_loopback_config(
      work.path(), landlord::test::free_udp_port(), std::string{"  user: "} + kUser + "\n");
  Daemon daemon{{"--config", config.string()}, {}, work.path() / "landlord.log"};
  ASSERT_TRUE(daemon.wait_for_log("serving on", 30s)) << daemon.log();
  EXPECT_NE(daemon.log().find("running as nobody"), std::string::npos) << daemon.log();

  auto status = proc_status(daemon.pid());
  const std::string uid = std::to_string(user->pw_uid), gid = std::to_string(user->pw_gid);
  EXPECT_EQ(status["Uid"], uid + "\t" + uid + "\t" + uid + "\t" + uid);
  EXPECT_EQ(status["Gid"], gid + "\t" + gid + "\t" + gid + "\t" + gid);
  // CAP_NET_RAW is bit 13.
  EXPECT_EQ(status["CapEff"], "0000000000002000");
  EXPECT_EQ(status["CapPrm"], "0000000000002000");
  EXPECT_EQ(status["CapInh"], "0000000000000000");
  EXPECT_EQ(status["CapBnd"], "0000000000002000");
  EXPECT_EQ(status["CapAmb"], "0000000000000000");
  // Its store was created by the user it became.
  struct stat store {};
  ASSERT_EQ(::stat((work.path() / "leases.db").c_str(), &store), 0);
  EXPECT_EQ(store.st_uid, user->pw_uid);

  daemon.signal(SIGTERM);
  EXPECT_EQ(daemon.wait(15s), 0) << daemon.log();
}

TEST_F(Privileges, RootWithoutServerUserIsRefused) {
  WorkDirectory work{"privileges-refused"};
  const auto config = landlord::test::write_loopback_config(work.path(), landlord::test::free_udp_port());
  Daemon daemon{{"--config", config.string()}, {}, work.path() / "landlord.log"};
  EXPECT_EQ(daemon.wait(30s), 1) << daemon.log();
  EXPECT_NE(daemon.log().find("refusing to run as root: set server.user"), std::string::npos)
      << daemon.log();
  EXPECT_EQ(daemon.log().find("serving on"), std::string::npos);
}

TEST_F(Privileges, AllowRootKeepsRoot) {
  WorkDirectory work{"privileges-allow"};
  const auto config = landlord::test::write_loopback_config(work.path(), landlord::test::free_udp_port());
  Daemon daemon{{"--allow-root", "--config", config.string()}, {}, work.path() / "landlord.log"};
  ASSERT_TRUE(daemon.wait_for_log("serving on", 30s)) << daemon.log();
  EXPECT_EQ(proc_status(daemon.pid())["Uid"], "0\t0\t0\t0");
  daemon.signal(SIGTERM);
  EXPECT_EQ(daemon.wait(15s), 0) << daemon.log();
}

TEST_F(Privileges, AnUnknownUserIsAnError) {
  WorkDirectory work{"privileges-unknown"};
  const auto config = landlord::test::write_loopback_config(
      work.path(), landlord::test::free_udp_port(), "  user: no-such-user-here\n");
  Daemon daemon{{"--config", config.string()}, {}, work.path() / "landlord.log"};
  EXPECT_EQ(daemon.wait(30s), 1) << daemon.log();
  EXPECT_NE(daemon.log().find("server.user 'no-such-user-here'"), std::string::npos) << daemon.log();
}

}  // namespace
