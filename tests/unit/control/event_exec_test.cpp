// events.exec: dnsmasq's arguments and landlord's environment, bounded concurrency, the timeout.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "landlord/control/event_exec.hpp"

namespace landlord::control {
namespace {

namespace fs = std::filesystem;

class EventExecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("landlord-exec-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  std::string script(const std::string& body) {
    const auto path = directory_ / "hook.sh";
    std::ofstream{path} << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }
  std::string read(const std::string& name) {
    std::ifstream file{directory_ / name};
    return {std::istreambuf_iterator<char>{file}, {}};
  }
  void run_until(EventExec& exec, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while ((exec.running() > 0 || exec.waiting() > 0) && std::chrono::steady_clock::now() < deadline) {
      io_.run_for(std::chrono::milliseconds{20});
      io_.restart();
    }
  }

  // A PID the hook wrote to `name`, once it is there (bounded wait), or 0.
  pid_t wait_for_pid(const std::string& name) {
    for (int i = 0; i < 250; ++i) {
      const std::string text = read(name);
      if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stol(text));
      io_.run_for(std::chrono::milliseconds{20});
      io_.restart();
    }
    return 0;
  }

  fs::path directory_;
  boost::asio::io_context io_;
};

LeaseEvent grant(std::uint8_t last_octet) {
  LeaseEvent event;
  event.kind = engine::EventKind::Grant;
  event.reason = "granted";
  event.lease.address = Ipv4(198, 18, 0, last_octet);
  event.lease.hardware = *HardwareAddress::parse("02:00:00:00:00:01");
  event.lease.hostname = "printer";
  event.lease.state = lease::LeaseState::Bound;
  event.lease.subnet_id = 1;
  event.lease.lease_time = std::chrono::seconds{20};
  event.lease.renew_time = std::chrono::seconds{10};
  event.lease.rebind_time = std::chrono::seconds{17};
  return event;
}

TEST_F(EventExecTest, RunsWithDnsmasqArgumentsAndLandlordsEnvironment) {
  EventExec exec{io_, script("echo \"$1 $2 $3 $4 $LANDLORD_EVENT $LANDLORD_PHASE $LANDLORD_LEASE_LENGTH\" >> " +
                             (directory_ / "calls").string())};
  exec.publish(grant(7));
  auto renewal = grant(7);
  renewal.kind = engine::EventKind::Renew;
  run_until(exec, std::chrono::seconds{10});
  exec.publish(renewal);
  run_until(exec, std::chrono::seconds{10});
  EXPECT_EQ(read("calls"), "add 02:00:00:00:00:01 198.18.0.7 printer grant bound 20\n"
                           "old 02:00:00:00:00:01 198.18.0.7 printer renew bound 20\n");
  EXPECT_EQ(exec.counters().runs, 2u);
  EXPECT_EQ(exec.counters().failures, 0u);
}

TEST_F(EventExecTest, AtMostMaxRunningAtOnceTheRestWaitOrAreDropped) {
  EventExecLimits limits;
  limits.max_running = 2;
  limits.max_waiting = 5;
  EventExec exec{io_, script("sleep 0.2; echo $3 >> " + (directory_ / "calls").string()), limits};
  for (std::uint8_t i = 1; i <= 10; ++i) exec.publish(grant(i));
  EXPECT_EQ(exec.running(), 2u);
  EXPECT_EQ(exec.waiting(), 5u);
  EXPECT_EQ(exec.counters().dropped, 3u);
  run_until(exec, std::chrono::seconds{20});
  EXPECT_EQ(exec.counters().runs, 7u);
  EXPECT_EQ(exec.counters().failures, 0u);
}

TEST_F(EventExecTest, FailuresAndHangsAreCountedAndKilled) {
  EventExecLimits limits;
  limits.timeout = std::chrono::milliseconds{300};
  EventExec failing{io_, script("exit 3"), limits};
  failing.publish(grant(1));
  run_until(failing, std::chrono::seconds{10});
  EXPECT_EQ(failing.counters().failures, 1u);
  EventExec hanging{io_, script("exec sleep 30"), limits};
  const auto start = std::chrono::steady_clock::now();
  hanging.publish(grant(1));
  run_until(hanging, std::chrono::seconds{10});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{5});
  EXPECT_EQ(hanging.counters().timeouts, 1u);
}

// Running (not gone, not a zombie waiting for init to reap it), within a bounded wait.
bool still_runs(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto state = line.substr(line.rfind(')') + 2, 1);
    if (state == "Z" || state == "X") return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return true;
}

TEST_F(EventExecTest, TheTimeoutKillsWhatTheHookStartedInTheBackgroundToo) {
  EventExecLimits limits;
  limits.timeout = std::chrono::milliseconds{300};
  const auto pids = (directory_ / "background").string();
  EventExec exec{io_, script("sleep 300 & echo $! > " + pids + "; exec sleep 30"), limits};
  exec.publish(grant(1));
  run_until(exec, std::chrono::seconds{10});
  EXPECT_EQ(exec.counters().timeouts, 1u);
  const pid_t background = wait_for_pid("background");
  ASSERT_GT(background, 0);
  EXPECT_FALSE(still_runs(background)) << "the hook's background child " << background << " outlived the timeout";
  ::kill(background, SIGKILL);  // ours to end if the test failed (it is in the hook's group)
}

TEST_F(EventExecTest, StoppingKillsRunningHooksWithTheirBackgroundChildren) {
  pid_t background = 0;
  {
    EventExec exec{io_, script("sleep 300 & echo $! > " + (directory_ / "background").string() + "; wait")};
    exec.publish(grant(1));
    background = wait_for_pid("background");
    ASSERT_GT(background, 0);
    EXPECT_EQ(exec.running(), 1u);
  }
  EXPECT_FALSE(still_runs(background)) << "the hook's background child " << background << " outlived our stop";
  ::kill(background, SIGKILL);
}

TEST_F(EventExecTest, TheHookInheritsOnlyDescriptorsZeroToTwo) {
  int leaked[2];
  ASSERT_EQ(::pipe(leaked), 0);  // no O_CLOEXEC, as a descriptor of a library might be
  EventExec exec{io_, script("ls /proc/$$/fd > " + (directory_ / "fds").string())};
  exec.publish(grant(1));
  run_until(exec, std::chrono::seconds{10});
  ::close(leaked[0]);
  ::close(leaked[1]);
  std::istringstream listed{read("fds")};
  std::vector<int> descriptors;
  for (int fd = 0; listed >> fd;) descriptors.push_back(fd);
  ASSERT_FALSE(descriptors.empty());
  for (const int fd : descriptors) {
    EXPECT_TRUE(fd <= 2 || fd >= 10) << "the hook inherited descriptor " << fd;  // dash keeps its script at 10+
  }
  EXPECT_EQ(std::count(descriptors.begin(), descriptors.end(), leaked[0]), 0);
  EXPECT_EQ(std::count(descriptors.begin(), descriptors.end(), leaked[1]), 0);
}

}  // namespace
}  // namespace landlord::control
