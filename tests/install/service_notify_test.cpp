// landlord under a fake systemd: NOTIFY_SOCKET is a UNIX datagram socket this test reads.
// READY=1 (with STATUS=) only once the port is bound, WATCHDOG=1 at half WATCHDOG_USEC from
// the event loop, RELOADING=1 then READY=1 around SIGHUP, STOPPING=1 on SIGTERM, exit 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

using namespace std::chrono_literals;
using landlord::test::Daemon;

class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) std::abort();
  }
  ~NotifySocket() { ::close(fd_); }
  // The next datagram, or nothing within `limit`.
  std::optional<std::string> next(std::chrono::milliseconds limit) {
    timeval timeout{static_cast<time_t>(limit.count() / 1000),
                    static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    const ssize_t size = ::recv(fd_, buffer, sizeof buffer, 0);
    if (size < 0) return std::nullopt;
    return std::string{buffer, static_cast<std::size_t>(size)};
  }
  // Messages until one contains `wanted` (returned), skipping others into `skipped`.
  std::optional<std::string> until(std::string_view wanted, std::chrono::milliseconds limit,
                                   std::vector<std::string>* skipped = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      auto message = next(std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now() + 1ms));
      if (!message) return std::nullopt;
      if (message->find(wanted) != std::string::npos) return message;
      if (skipped != nullptr) skipped->push_back(*message);
    }
    return std::nullopt;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

bool port_is_bound(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool in_use = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0;
  ::close(fd);
  return in_use;
}

TEST(ServiceNotify, ReadyReloadWatchdogStopping) {
  landlord::test::WorkDirectory work{"notify"};
  NotifySocket notify{work.path() / "notify.sock"};
  const std::uint16_t port = landlord::test::free_udp_port();
  const auto config = landlord::test::write_loopback_config(work.path(), port);
  Daemon daemon{{"--allow-root", "--config", config.string()},
                {"NOTIFY_SOCKET=" + notify.path().string(), "WATCHDOG_USEC=400000"},
                work.path() / "landlord.log"};

  const auto ready = notify.until("READY=1", 30s);
  ASSERT_TRUE(ready) << "no READY=1; log:\n" << daemon.log();
  EXPECT_TRUE(port_is_bound(port)) << "READY=1 before the port was bound";
  EXPECT_NE(ready->find("STATUS=0 addresses in use of 11 in pools (0.0%); subnet 1 0/11"),
            std::string::npos)
      << *ready;

  // WATCHDOG=1 every 200 ms: at least 3 in a second.
  int watchdogs = 0;
  const auto until = std::chrono::steady_clock::now() + 1s;
  while (std::chrono::steady_clock::now() < until) {
    if (auto message = notify.next(300ms); message && *message == "WATCHDOG=1") ++watchdogs;
  }
  EXPECT_GE(watchdogs, 3) << "the event loop does not feed the watchdog";

  daemon.signal(SIGHUP);
  std::vector<std::string> skipped;
  const auto reloading = notify.until("RELOADING=1", 10s, &skipped);
  ASSERT_TRUE(reloading) << "no RELOADING=1 after SIGHUP; log:\n" << daemon.log();
  EXPECT_NE(reloading->find("MONOTONIC_USEC="), std::string::npos) << *reloading;
  EXPECT_TRUE(notify.until("READY=1", 10s)) << "no READY=1 after the reload";

  daemon.signal(SIGTERM);
  EXPECT_TRUE(notify.until("STOPPING=1", 10s)) << "no STOPPING=1 on SIGTERM";
  EXPECT_EQ(daemon.wait(15s), 0) << daemon.log();
}

TEST(ServiceNotify, NoWatchdogWithoutWatchdogUsec) {
  landlord::test::WorkDirectory work{"notify-nowd"};
  NotifySocket notify{work.path() / "notify.sock"};
  const auto config = landlord::test::write_loopback_config(work.path(), landlord::test::free_udp_port());
  Daemon daemon{{"--allow-root", "--config", config.string()}, {"NOTIFY_SOCKET=" + notify.path().string()},
                work.path() / "landlord.log"};
  ASSERT_TRUE(notify.until("READY=1", 30s)) << daemon.log();
  EXPECT_FALSE(notify.until("WATCHDOG=1", 1500ms)) << "WATCHDOG=1 sent though systemd set no WatchdogSec";
  daemon.signal(SIGTERM);
  EXPECT_EQ(daemon.wait(15s), 0) << daemon.log();
}

}  // namespace
