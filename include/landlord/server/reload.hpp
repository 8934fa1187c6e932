#pragma once
// What a reload (SIGHUP, config-reload) may change in a running server. Sockets, the user, the
// store, the control API and events.exec were set up at start and stay: a new file's values
// for them are replaced by the running ones (and the caller warns that they wait for a
// restart). Pure: tested in tests/unit/server/reload_test.cpp.
#include "landlord/config/config.hpp"

namespace landlord::server {

// true when `next` changed something only a restart applies; those sections of `next` are
// then the running ones.
bool keep_restart_only(config::Config& next, const config::Config& running);

}  // namespace landlord::server
