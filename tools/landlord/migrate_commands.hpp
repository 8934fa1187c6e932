#pragma once
// `landlord import` and `landlord export` (issue #11): bringing another server's leases in,
// and landlord's out as a Kea lease file.
#include <optional>
#include <string>

namespace landlord::tool {

struct ImportCommand {
  std::string format;                     // kea-csv, dhcpd, dnsmasq
  std::string lease_file;
  std::string config_path;
  std::optional<std::string> store_path;  // overrides store.path
  bool dry_run = false;
  bool skip_unreadable = false;           // import what was read despite lines not understood
};

struct ExportCommand {
  std::string format;                     // kea-csv
  std::string config_path;
  std::optional<std::string> store_path;
  std::optional<std::string> output;      // default: stdout
};

int run_import(const ImportCommand& command);
int run_export(const ExportCommand& command);

}  // namespace landlord::tool
