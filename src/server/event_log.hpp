#pragma once
// One info line per lease event (grant, renew, rebind, release, decline, expire, NAK), the
// rest at debug: what an operator greps for when a client says it has no address.
#include <string_view>

#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::server {

// Who asked, kept apart from the whole request so a reply waiting for its commit holds little.
struct Requester {
  HardwareAddress hardware;
  ClientId client_id;
  Ipv4 giaddr;
  static Requester of(const wire::Message& request) {
    return {request.hardware_address(), request.client_id(), request.giaddr};
  }
};

// `lease_time` is zero when the event grants none.
void log_lease_event(const engine::Event& event, const Requester& requester, Duration lease_time,
                     std::string_view link_name);
void log_reclaimed(const lease::Lease& record);

}  // namespace landlord::server
