#pragma once
// Telling systemd how the daemon is doing (sd_notify(3), Type=notify): READY=1 once the store
// is loaded, the sockets are bound and (on a shared store) the clocks agree (ServiceReadiness),
// RELOADING=1 / READY=1 around a reload, STOPPING=1 at
// the drain, STATUS= a one-line summary, and WATCHDOG=1 from the event loop. Outside systemd
// (no NOTIFY_SOCKET) every call does nothing.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <utility>  // before boost/asio (Boost 1.74)
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/engine/engine.hpp"
#include "landlord/server/clock_agreement.hpp"

namespace landlord::server {

class ServiceNotifier {
 public:
  ServiceNotifier();  // reads NOTIFY_SOCKET and WATCHDOG_USEC (through libsystemd)

  bool enabled() const { return enabled_; }
  // How often to send WATCHDOG=1: half of WatchdogSec, when systemd set one for us.
  std::optional<std::chrono::microseconds> watchdog_interval() const { return watchdog_interval_; }

  void ready(std::string_view status) const;
  void reloading() const;  // RELOADING=1 with MONOTONIC_USEC, as sd_notify(3) asks
  void stopping() const;
  void status(std::string_view status) const;
  void watchdog() const;

 private:
  void send(const std::string& state) const;
  bool enabled_ = false;
  std::optional<std::chrono::microseconds> watchdog_interval_;
};

// When to send READY=1: once the daemon answers requests, which on a shared store is only after
// a clock reading agrees (clock_agreement.hpp), at once otherwise. Until then STATUS= says what
// it waits for ("not ready: this server's clock is 30000 ms behind the shared store's, …"): a
// clock that never agrees leaves the unit starting, with the reason in `systemctl status`, until
// systemd's TimeoutStartSec fails it.
class ServiceReadiness {
 public:
  // `status`: the STATUS= line once ready (status_line).
  ServiceReadiness(const ServiceNotifier& notifier, const ClockAgreement& clock,
                   std::function<std::string()> status);
  void started();     // the store is loaded and the sockets are bound
  void clock_read();  // after a ClockAgreement::read that changed its state
  void reloaded();    // after a reload (RELOADING=1): READY=1 again, if it was ready
  bool ready() const { return ready_; }
  // The STATUS= line now: the summary once ready, else what READY=1 waits for.
  std::string status() const;

 private:
  void ready_or_wait();
  void send() const;  // READY=1 with the summary once ready, else STATUS= what it waits for
  const ServiceNotifier& notifier_;
  const ClockAgreement& clock_;
  std::function<std::string()> status_;
  bool started_ = false, ready_ = false;
};

// The event loop's heartbeat: WATCHDOG=1 every half WatchdogSec (a wedged loop stops sending
// it, and systemd restarts the service) and STATUS= refreshed at least every 10 s.
class ServiceHeartbeat {
 public:
  ServiceHeartbeat(boost::asio::io_context& io, const ServiceNotifier& notifier,
                   std::function<std::string()> status);
  void start();
  void stop();

 private:
  void arm();
  const ServiceNotifier& notifier_;
  std::function<std::string()> status_;
  boost::asio::steady_timer timer_;
  std::chrono::microseconds period_{};
};

// "42 addresses in use of 200 pool addresses (21.0%); subnet 1 42/100, subnet 2 0/100"
std::string status_line(const std::vector<engine::PoolUsage>& pools);

}  // namespace landlord::server
