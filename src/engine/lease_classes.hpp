#pragma once
// Client classes kept with a lease (lease::Lease::classes). A client renewing by unicast at T1
// reaches us without its relay: no giaddr, no option 82; some clients leave out options they
// sent at grant (60, 77, 93). The classes its grant matched on those facts still apply to the
// renewal's ACK, unless the renewal itself shows a fact that contradicts them.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "landlord/config/config.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

// The names of the classes in `member_of` (bit i: classes[i]), comma-separated, config order.
std::string class_names(std::span<const config::ClientClass> classes, std::uint64_t member_of);

// The classes named in `names` (as class_names() writes them); names no longer configured
// (the configuration changed since the grant) are left out.
std::uint64_t classes_named(std::span<const config::ClientClass> classes, std::string_view names);

// The classes of a message that extends (renews, rebinds, confirms after reboot, or asks
// configuration for) the client's own bound lease whose record has `stored_names`: the classes
// the message matches, plus the stored ones it does not contradict (classes.hpp uncontradicted).
std::uint64_t extension_classes(std::span<const config::ClientClass> classes, const wire::Message& message,
                                std::string_view stored_names);

}  // namespace landlord::engine
