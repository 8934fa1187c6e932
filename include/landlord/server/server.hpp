#pragma once
// The daemon: sockets, reply routing, the expiry timer, signals and commit-then-ack around
// one Engine, on one thread. main() loads the config and hands it here.
#include <optional>
#include <string>

#include "landlord/config/config.hpp"

namespace landlord::server {

struct ServerOptions {
  std::string config_path;                // re-read on SIGHUP
  std::optional<std::string> store_path;  // --store-path: overrides store.path, also on reload
  std::optional<std::string> log_level;   // --log-level: overrides log.level, also on reload
  bool allow_root = false;                // --allow-root: run as root without server.user
};

// Applies the command line's overrides to a freshly loaded config.
void apply_overrides(config::Config& config, const ServerOptions& options);

// Serves until SIGTERM or SIGINT, then drains pending commits; returns the exit code.
int run(config::Config config, const ServerOptions& options);

}  // namespace landlord::server
