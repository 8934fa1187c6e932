#pragma once
// One info line per lease event (grant, renew, rebind, release, decline, expire, NAK), the
// rest at debug: what an operator greps for when a client says it has no address.
#include <string_view>

#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::server {

// `lease_time` is zero when the event grants none.
void log_lease_event(const engine::Event& event, const wire::Message& request,
                     Duration lease_time, std::string_view link_name);
void log_reclaimed(const lease::Lease& record);

}  // namespace landlord::server
