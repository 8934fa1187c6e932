#pragma once
// landlord-sim's settings: from a scenario YAML file first, then command-line flags on top.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/duration.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/sim/closed_loop.hpp"
#include "landlord/sim/fleet.hpp"

namespace landlord::sim::cli {

struct Settings {
  std::string server;  // relay mode: ADDR[:PORT]
  std::string bind = "127.0.0.1:0";
  std::string interface;  // L2 mode
  Workload workload;
  bool clients_given = false;  // closed loop: `clients` caps the fresh clients of all steps
  bool closed_loop = false;
  ClosedLoopPlan closed_loop_plan;
  Duration retransmit_base = std::chrono::seconds(4);
  Duration renew_minimum = std::chrono::seconds(60);
  Duration decline_wait = std::chrono::seconds(10);
  std::string report_path;
  std::string pcap_path;
  std::string timeline_path;  // --timeline: CSV, one line per --stats-every
  std::string html_path;      // --html: the self-contained report
  Duration stats_every = std::chrono::seconds(1);
  bool stats_every_given = false;  // without --timeline: CSV lines on stdout
  bool check_option82 = true;      // relay mode: replies must echo our option 82
  std::string macs_path;           // --macs, for messages
};

// Durations use the config's grammar (base/duration.hpp): "250ms", "4s", "5m", "1h30m".
using landlord::parse_duration;
// "FROM+LEN", both durations: "30s+60s".
std::optional<Window> parse_window(std::string_view text);

// The largest run the simulator takes: client state is kept per client, indexed by 32 bits.
inline constexpr std::size_t kMaxClients = 10'000'000;
inline constexpr double kMaxRatePerSecond = 1'000'000;

// Every setting, from the scenario and the flags together, checked before anything starts: one
// message per problem, naming the flag; empty when the run may start. The output files are
// opened by the caller (a bad --report path is an error before the run, not after it).
std::vector<std::string> check_settings(const Settings& settings);

// "N" or "P%" (P from 0 to 100).
Expected<StopLimits, std::string> parse_max_drops(std::string_view text);

// Reads a scenario file into `settings` (setting_table.hpp). Unknown keys and bad values are
// errors that name file:line:column.
Expected<void, std::string> load_scenario(const std::string& path, Settings& settings);

}  // namespace landlord::sim::cli
