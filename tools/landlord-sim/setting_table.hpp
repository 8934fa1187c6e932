#pragma once
// Every landlord-sim setting in one table: its scenario-file key, its command-line flag, what
// it means and how its text becomes a value. The table drives the YAML loader, the CLI11 flags
// and the settings table of docs/simulator.md (`landlord-sim --settings-table`; a unit test
// checks the page carries it), so a setting cannot exist one way and not the other.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "settings.hpp"

namespace CLI {
class App;
}

namespace landlord::sim::cli {

struct SettingSpec {
  std::string_view key;           // scenario key: `renew_minimum`
  std::string_view flag;          // command line: `--renew-min`
  std::string_view short_flag;    // perfdhcp's letter where it has one: `-T`; else empty
  std::string_view value_name;    // `D`, `N`, `FILE`; empty for a switch
  std::string_view default_text;  // as shown in the docs
  std::string_view meaning;       // --help and the docs
  bool repeatable = false;        // a list: `--option` given twice, a YAML sequence
  // A switch flag (`--no-client-id`) sets its key to this text; the scenario key takes a bool.
  std::string_view switch_sets;
  // Applies one value; an error is the rest of a sentence after the setting's name
  // ("must be a fraction between 0 and 1"). Called once per value, in table order.
  std::optional<std::string> (*apply)(Settings& settings, std::string_view text) = nullptr;
};

std::span<const SettingSpec> setting_table();
const SettingSpec* find_setting(std::string_view key);

// Values given for each key, scenario first; a flag given on the command line replaces the
// scenario's value(s) for its key. `where` names the source in messages: `--rate` or
// `lab.yaml:3:7: rate`.
struct GivenValue {
  std::string text;
  std::string where;
};
using GivenSettings = std::map<std::string, std::vector<GivenValue>, std::less<>>;

// Reads a scenario file's keys (not yet applied). Unknown keys and shapes name file:line:column.
Expected<void, std::string> read_scenario(const std::string& path, GivenSettings& given);

// Declares every flag of the table on `app`; after app.parse(), `take_flags` moves what the
// command line gave into `given`, over the scenario's.
class FlagValues {
 public:
  void declare(CLI::App& app);
  void take_into(const CLI::App& app, GivenSettings& given) const;

 private:
  std::map<std::string_view, std::vector<std::string>> texts_;
  std::map<std::string_view, bool> switches_;
};

// Applies every given value in table order: one message per problem, naming its source.
std::vector<std::string> apply_given(const GivenSettings& given, Settings& settings);

// The docs table (markdown), from the table alone.
std::string settings_markdown();

}  // namespace landlord::sim::cli
