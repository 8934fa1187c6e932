// When READY=1 goes to systemd (ServiceReadiness): at once on a store of its own, only once a
// clock reading agrees on a shared one, with STATUS= saying what it waits for meanwhile. Read
// from a fake NOTIFY_SOCKET, as systemd would.
#include "landlord/server/service_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A UNIX datagram socket named by NOTIFY_SOCKET while it lives.
class FakeSystemd {
 public:
  FakeSystemd() {
    path_ = std::filesystem::temp_directory_path() / ("landlord-notify-" + std::to_string(::getpid()));
    std::filesystem::remove(path_);
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path_.c_str());
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) std::abort();
    ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  }
  ~FakeSystemd() {
    ::unsetenv("NOTIFY_SOCKET");
    ::close(fd_);
    std::filesystem::remove(path_);
  }
  // The next message sent, if any (sd_notify has sent it by the time it returns).
  std::optional<std::string> next() {
    char buffer[4096];
    const ssize_t size = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
    if (size < 0) return std::nullopt;
    return std::string{buffer, static_cast<std::size_t>(size)};
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

std::string summary() { return "0 addresses in use of 11 in pools (0.0%); subnet 1 0/11"; }

TEST(ServiceReadiness, AStoreOfItsOwnIsReadyOnceStarted) {
  FakeSystemd systemd;
  const ServiceNotifier notifier;
  const ClockAgreement clock{false, seconds{1}};
  ServiceReadiness readiness{notifier, clock, summary};
  EXPECT_FALSE(systemd.next());
  readiness.started();
  EXPECT_EQ(systemd.next(), "READY=1\nSTATUS=" + summary());
  EXPECT_TRUE(readiness.ready());
}

// Before, READY=1 went at start, before the change feed's first clock reading: systemd called the
// unit ready a moment before it answered anyone.
TEST(ServiceReadiness, ASharedStoreIsReadyOnlyOnceTheClocksAgree) {
  FakeSystemd systemd;
  const ServiceNotifier notifier;
  ClockAgreement clock{true, seconds{1}};
  ServiceReadiness readiness{notifier, clock, summary};
  readiness.started();
  EXPECT_EQ(systemd.next(), "STATUS=not ready: this server has not compared its clock with the shared store's yet");
  EXPECT_FALSE(readiness.ready());
  EXPECT_EQ(readiness.status(), "not ready: this server has not compared its clock with the shared store's yet");

  // A first reading 30 s off: still not ready, and STATUS= says why (TimeoutStartSec decides).
  ASSERT_EQ(clock.read(seconds{-30}), ClockAgreement::Change::Disagrees);
  readiness.clock_read();
  EXPECT_EQ(systemd.next(),
            "STATUS=not ready: this server's clock is 30000 ms behind the shared store's, more than "
            "store.max-clock-skew 1s");
  readiness.reloaded();  // a reload meanwhile does not make it ready
  EXPECT_EQ(systemd.next(),
            "STATUS=not ready: this server's clock is 30000 ms behind the shared store's, more than "
            "store.max-clock-skew 1s");

  ASSERT_EQ(clock.read(milliseconds{20}), ClockAgreement::Change::FirstAgrees);
  readiness.clock_read();
  EXPECT_EQ(systemd.next(), "READY=1\nSTATUS=" + summary());
  EXPECT_TRUE(readiness.ready());
  EXPECT_EQ(readiness.status(), summary());

  // Ready once: a later disagreement is the clock rule's business (logs, metrics), not systemd's.
  ASSERT_EQ(clock.read(seconds{5}), ClockAgreement::Change::Disagrees);
  readiness.clock_read();
  EXPECT_FALSE(systemd.next());
  readiness.reloaded();
  EXPECT_EQ(systemd.next(), "READY=1\nSTATUS=" + summary());
}

// A reading that comes before the sockets are bound sends nothing: READY=1 waits for both.
TEST(ServiceReadiness, AReadingBeforeTheStartSendsNothing) {
  FakeSystemd systemd;
  const ServiceNotifier notifier;
  ClockAgreement clock{true, seconds{1}};
  ServiceReadiness readiness{notifier, clock, summary};
  ASSERT_EQ(clock.read(milliseconds{3}), ClockAgreement::Change::FirstAgrees);
  readiness.clock_read();
  EXPECT_FALSE(systemd.next());
  readiness.started();
  EXPECT_EQ(systemd.next(), "READY=1\nSTATUS=" + summary());
}

}  // namespace
}  // namespace landlord::server
