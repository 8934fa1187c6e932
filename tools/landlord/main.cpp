// landlord: the DHCPv4 lease server. Loads and validates the config, then hands it to the
// server; `--check` stops after validation (for CI and before a reload); `--option-table` prints
// the options known by name.
#include <cstdio>
#include <iostream>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "landlord/config/loader.hpp"
#include "landlord/config/option_catalogue.hpp"
#include "landlord/server/server.hpp"

int main(int argc, char** argv) {
  CLI::App app{"landlord: a DHCPv4 lease server"};
  std::string config_path;
  std::string store_path;
  std::string log_level;
  bool check_only = false;
  bool option_table = false;
  auto* config_option = app.add_option("-c,--config", config_path, "YAML configuration file");
  auto* store_option =
      app.add_option("--store-path", store_path, "lease store file (overrides store.path)");
  auto* level_option = app.add_option("--log-level", log_level, "log level (overrides log.level)")
                           ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_flag("--check", check_only, "validate the configuration and exit: 0 if valid, 1 if not");
  app.add_flag("--option-table", option_table,
               "print the options known by name as the Markdown table in docs/configuration.md");
  CLI11_PARSE(app, argc, argv);
  if (option_table) {
    std::cout << landlord::config::catalogue_markdown();
    return 0;
  }
  if (config_option->count() == 0) {
    std::cerr << "--config is required\n" << app.help();
    return 2;
  }

  auto loaded = landlord::config::load_file(config_path);
  if (!loaded) {
    for (const auto& error : loaded.error()) std::cerr << error.to_string() << '\n';
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
