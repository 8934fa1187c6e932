// landlord: the DHCPv4 lease server. Loads and validates the config, then hands it to the
// server; `--check` stops after validation (for CI and before a reload); `--option-table` prints
// the options known by name. `import` and `export` move leases in from Kea, dhcpd or dnsmasq,
// and out to Kea.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "landlord/base/version.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/server/logging.hpp"
#include "landlord/config/option_catalogue.hpp"
#include "landlord/server/server.hpp"
#include "migrate_commands.hpp"

namespace {

void add_import(CLI::App& app, landlord::tool::ImportCommand& command) {
  auto* import = app.add_subcommand(
      "import", "write another server's active leases into the lease store (one transaction)");
  import->add_option("--from", command.format, "kea-csv, dhcpd or dnsmasq")
      ->required()
      ->check(CLI::IsMember({"kea-csv", "dhcpd", "dnsmasq"}));
  import->add_option("file", command.lease_file, "the lease file (Kea CSV, dhcpd.leases, dnsmasq.leases)")
      ->required();
  import->add_option("-c,--config", command.config_path, "landlord's YAML configuration")->required();
  import->add_option("--store-path", command.store_path, "lease store file (overrides store.path)");
  import->add_flag("--dry-run", command.dry_run, "report what would be imported; write nothing");
  import->add_flag("--skip-unreadable", command.skip_unreadable,
                   "import the leases that were read even though some lines were not understood");
}

void add_export(CLI::App& app, landlord::tool::ExportCommand& command) {
  auto* exported = app.add_subcommand("export", "write the live leases in another server's format");
  exported->add_option("--format", command.format, "kea-csv")
      ->required()
      ->check(CLI::IsMember({"kea-csv"}));
  exported->add_option("-c,--config", command.config_path, "landlord's YAML configuration")->required();
  exported->add_option("--store-path", command.store_path, "lease store file (overrides store.path)");
  exported->add_option("-o,--output", command.output, "write here instead of stdout");
}

}  // namespace

namespace {
constexpr int kExitUsage = 2;  // a bad command line; 1 is a bad config or a failed start
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"landlord: a DHCPv4 lease server"};
  app.set_version_flag("--version", landlord::version_line("landlord"));
  std::string config_path;
  std::string store_path;
  std::string log_level;
  bool check_only = false;
  landlord::server::ServerOptions options;
  bool option_table = false;
  auto* config_option = app.add_option("-c,--config", config_path, "YAML configuration file");
  auto* store_option =
      app.add_option("--store-path", store_path, "lease store file (overrides store.path)");
  auto* level_option = app.add_option("--log-level", log_level, "log level (overrides log.level)")
                           ->check(CLI::IsMember(std::vector<std::string>(
                               landlord::config::kLogLevels.begin(),
                               landlord::config::kLogLevels.end())));
  app.add_flag("--allow-root", options.allow_root,
               "run as root when server.user is not set (otherwise refused)");
  app.add_flag("--check", check_only, "validate the configuration and exit: 0 if valid, 1 if not");
  app.add_flag("--option-table", option_table,
               "print the options known by name as the Markdown table in docs/configuration.md");
  landlord::tool::ImportCommand import;
  landlord::tool::ExportCommand exported;
  add_import(app, import);
  add_export(app, exported);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are a success; a bad command line is a usage error: 2, not CLI11's
    // own code.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : kExitUsage;
  }

  if (app.got_subcommand("import")) return landlord::tool::run_import(import);
  if (app.got_subcommand("export")) return landlord::tool::run_export(exported);
  if (config_option->count() == 0) {
    std::cerr << "--config is required\nRun with --help for more information.\n";
    return kExitUsage;
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

  options.config_path = config_path;
  if (store_option->count() > 0) options.store_path = store_path;
  if (level_option->count() > 0) options.log_level = log_level;

  landlord::server::setup_logging(options.log_level.value_or(loaded->log.level));
  return landlord::server::run(std::move(loaded.value()), options);
}
