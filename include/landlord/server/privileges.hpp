#pragma once
// After the DHCP sockets are bound: landlord keeps CAP_NET_RAW only (the packet socket for
// replies to clients without an address) and, started as root, becomes `server.user`.
#include <string>

#include "landlord/base/expected.hpp"
#include "landlord/config/config.hpp"

namespace landlord::server {

struct PrivilegeOptions {
  bool allow_root = false;  // --allow-root: keep running as root when server.user is unset
};

// Root with server.user: switch to that user and group (and its supplementary groups), keeping
// CAP_NET_RAW alone, bounding set included. Root without it: an error unless allow_root.
// Not root: server.user, if set, must be who we are; capabilities beyond CAP_NET_RAW (e.g.
// systemd's ambient CAP_NET_BIND_SERVICE) are dropped. Directories the user needs for the
// control socket are created for it first. Returns what was done, for the log.
Expected<std::string, std::string> drop_privileges(const config::Config& config,
                                                   const PrivilegeOptions& options);

}  // namespace landlord::server
