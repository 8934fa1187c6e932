#include "event_log.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

namespace landlord::server {
namespace {

bool is_lease_event(engine::EventKind kind) {
  using engine::EventKind;
  switch (kind) {
    case EventKind::Grant:
    case EventKind::Renew:
    case EventKind::Rebind:
    case EventKind::Release:
    case EventKind::Decline:
    case EventKind::Expire:
    case EventKind::Nak: return true;
    default: return false;
  }
}

long long seconds(Duration duration) {
  return std::chrono::duration_cast<std::chrono::seconds>(duration).count();
}

}  // namespace

void log_lease_event(const engine::Event& event, const Requester& requester, Duration lease_time,
                     std::string_view link_name) {
  const auto level = is_lease_event(event.kind) ? spdlog::level::info : spdlog::level::debug;
  if (!spdlog::should_log(level)) return;
  const std::string identity =
      requester.hardware.to_string() +
      (requester.client_id.empty() ? std::string{} : " id " + requester.client_id.to_string());
  const std::string via =
      requester.giaddr.is_zero() ? std::string{link_name} : "relay " + requester.giaddr.to_string();
  if (event.kind == engine::EventKind::Nak || event.kind == engine::EventKind::Ignore) {
    spdlog::log(level, "{} {} client {} via {}: {}", engine::to_string(event.kind),
                event.address.to_string(), identity, via, event.reason);
  } else if (lease_time.count() > 0 &&
             (event.kind == engine::EventKind::Grant || event.kind == engine::EventKind::Renew ||
              event.kind == engine::EventKind::Rebind)) {
    spdlog::log(level, "{} {} client {} lease {}s via {}", engine::to_string(event.kind),
                event.address.to_string(), identity, seconds(lease_time), via);
  } else {
    spdlog::log(level, "{} {} client {} via {}{}{}", engine::to_string(event.kind),
                event.address.to_string(), identity, via, event.reason.empty() ? "" : ": ",
                event.reason);
  }
}

void log_reclaimed(const lease::Lease& record) {
  if (record.client.empty()) {  // a decline hold ran out: the address is free again
    spdlog::info("decline hold on {} ended; the address is free", record.address.to_string());
    return;
  }
  spdlog::info("expire {} client {}{} (lease {}s)", record.address.to_string(),
               record.hardware.to_string(),
               record.client_id.empty() ? std::string{} : " id " + record.client_id.to_string(),
               seconds(record.lease_time));
}

}  // namespace landlord::server
