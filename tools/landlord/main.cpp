// landlord: the DHCPv4 lease server. Loads and validates the config, then hands it to the
// server; `--check` stops after validation (for CI and before a reload).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "landlord/config/loader.hpp"
#include "landlord/server/server.hpp"

namespace {
constexpr int kExitUsage = 2;  // a bad command line; 1 is a bad config or a failed start
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"landlord: a DHCPv4 lease server"};
  std::string config_path;
  std::string store_path;
  std::string log_level;
  bool check_only = false;
  app.add_option("-c,--config", config_path, "YAML configuration file")->required();
  auto* store_option =
      app.add_option("--store-path", store_path, "lease store file (overrides store.path)");
  auto* level_option = app.add_option("--log-level", log_level, "log level (overrides log.level)")
                           ->check(CLI::IsMember(std::vector<std::string>(
                               landlord::config::kLogLevels.begin(),
                               landlord::config::kLogLevels.end())));
  app.add_flag("--check", check_only, "validate the configuration and exit: 0 if valid, 1 if not");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help is a success; a bad command line is a usage error: 2, not CLI11's own code.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : kExitUsage;
  }

  auto loaded = landlord::config::load_file(config_path);
  if (!loaded) {
    std::cerr << landlord::config::format_errors(loaded.error());
    return 1;
  }
  if (check_only) {
    std::cout << config_path << ": OK (" << loaded->subnets.size() << " subnets)\n";
    return 0;
  }

  landlord::server::ServerOptions options;
  options.config_path = config_path;
  if (store_option->count() > 0) options.store_path = store_path;
  if (level_option->count() > 0) options.log_level = log_level;

  // One line per event on stderr (journald or the lab's log file adds nothing it needs).
  auto logger = spdlog::stderr_color_mt("landlord");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_level(spdlog::level::from_str(options.log_level.value_or(loaded->log.level)));
  spdlog::flush_on(spdlog::level::trace);
  return landlord::server::run(std::move(loaded.value()), options);
}
