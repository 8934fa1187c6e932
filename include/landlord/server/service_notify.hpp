#pragma once
// Telling systemd how the daemon is doing (sd_notify(3), Type=notify): READY=1 once the store
// is loaded and the sockets are bound, RELOADING=1 / READY=1 around a reload, STOPPING=1 at
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
