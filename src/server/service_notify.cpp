#include "landlord/server/service_notify.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

namespace landlord::server {
namespace {

constexpr std::size_t kStatusSubnetsShown = 4;  // STATUS= is one line in `systemctl status`
constexpr std::chrono::microseconds kStatusPeriod = std::chrono::seconds{10};

std::uint64_t monotonic_usec() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000U +
         static_cast<std::uint64_t>(now.tv_nsec) / 1'000U;
}

}  // namespace

ServiceNotifier::ServiceNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  std::uint64_t watchdog_usec = 0;
  // > 0: WATCHDOG_USEC is set (and WATCHDOG_PID, if set, is us).
  if (enabled_ && sd_watchdog_enabled(0, &watchdog_usec) > 0 && watchdog_usec > 0) {
    watchdog_interval_ = std::chrono::microseconds{watchdog_usec / 2};
  }
}

void ServiceNotifier::send(const std::string& state) const {
  if (!enabled_) return;
  if (const int result = sd_notify(0, state.c_str()); result < 0) {
    spdlog::warn("sd_notify({}) failed: {}", state.substr(0, state.find('\n')),
                 std::strerror(-result));
  }
}

void ServiceNotifier::ready(std::string_view status) const {
  send(fmt::format("READY=1\nSTATUS={}", status));
}

void ServiceNotifier::reloading() const {
  send(fmt::format("RELOADING=1\nMONOTONIC_USEC={}", monotonic_usec()));
}

void ServiceNotifier::stopping() const { send("STOPPING=1\nSTATUS=draining"); }

void ServiceNotifier::status(std::string_view status) const {
  send(fmt::format("STATUS={}", status));
}

void ServiceNotifier::watchdog() const { send("WATCHDOG=1"); }

ServiceReadiness::ServiceReadiness(const ServiceNotifier& notifier, const ClockAgreement& clock,
                                   std::function<std::string()> status)
    : notifier_(notifier), clock_(clock), status_(std::move(status)) {}

void ServiceReadiness::started() {
  started_ = true;
  ready_or_wait();
}

void ServiceReadiness::clock_read() {
  if (started_ && !ready_) ready_or_wait();
}

void ServiceReadiness::reloaded() { send(); }

std::string ServiceReadiness::status() const {
  if (ready_) return status_();
  return "not ready: " + clock_.disagreement();
}

void ServiceReadiness::ready_or_wait() {
  ready_ = clock_.agrees();
  send();
}

void ServiceReadiness::send() const {
  if (ready_) {
    notifier_.ready(status());
  } else {
    notifier_.status(status());
  }
}

ServiceHeartbeat::ServiceHeartbeat(boost::asio::io_context& io, const ServiceNotifier& notifier,
                                   std::function<std::string()> status)
    : notifier_(notifier), status_(std::move(status)), timer_(io) {}

void ServiceHeartbeat::start() {
  if (!notifier_.enabled()) return;
  period_ = std::min(notifier_.watchdog_interval().value_or(kStatusPeriod), kStatusPeriod);
  arm();
}

void ServiceHeartbeat::stop() { timer_.cancel(); }

void ServiceHeartbeat::arm() {
  timer_.expires_after(period_);
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error) return;  // stopped
    if (notifier_.watchdog_interval()) notifier_.watchdog();
    notifier_.status(status_());
    arm();
  });
}

std::string status_line(const std::vector<engine::PoolUsage>& pools) {
  std::uint64_t total = 0, in_use = 0;
  std::string subnets;
  for (const engine::PoolUsage& pool : pools) {
    const std::uint64_t used = pool.total - pool.free_clean - pool.free_affinity;
    total += pool.total;
    in_use += used;
    if (pool.subnet_id <= kStatusSubnetsShown) {
      subnets += fmt::format("{}subnet {} {}/{}", subnets.empty() ? "" : ", ", pool.subnet_id,
                             used, pool.total);
    }
  }
  if (pools.size() > kStatusSubnetsShown) subnets += ", ...";
  const double percent = total == 0 ? 0.0 : 100.0 * static_cast<double>(in_use) / static_cast<double>(total);
  return fmt::format("{} addresses in use of {} in pools ({:.1f}%); {}", in_use, total, percent,
                     subnets);
}

}  // namespace landlord::server
