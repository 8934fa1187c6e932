#pragma once
// The daemon's counters, each defined once: a row per sample naming it for /metrics (family and
// labels), for the log line and for Kea's statistics, with how to read it. /metrics
// (render_metrics), statistic-get-all and the SIGUSR1 log line all iterate this one table, so a
// new counter is a row here (and its field where it is counted, gathered into DaemonCounters).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "landlord/control/daemon.hpp"
#include "landlord/engine/engine.hpp"

namespace landlord::control {

// What the rows read: the engine's counters and the daemon's, taken together.
struct CounterReading {
  const engine::Counters& engine;
  const DaemonCounters& daemon;
};

// A Prometheus family. Its samples are the rows that name it, next to each other in the table.
struct CounterFamily {
  std::string_view name, type, help;  // type: "counter" or "gauge"
};

// The log's two info lines (SIGUSR1, the end of a drain), each "<prefix>: name=value ...".
enum class LogLine { None, Counters, Admission };
std::string_view log_line_prefix(LogLine line);

using NamedCounts = std::vector<std::pair<std::string, std::uint64_t>>;

struct CounterRow {
  const CounterFamily* family = nullptr;  // null: not in /metrics
  std::string labels{};                   // `reason="x"`; empty: the family's only sample
  LogLine log = LogLine::None;
  std::string log_name{};                 // with `log`
  std::string statistic{};                // Kea's statistic name; empty: none
  std::function<std::uint64_t(const CounterReading&)> count{};
  // Instead of `count`, for /metrics only: a gauge that is not a count (a clock offset) ...
  std::function<double(const CounterReading&)> real{};
  // ... or samples listed by name in the reading, `labels` being their label's key (the store's
  // reasons: control cannot see store's list of them).
  std::function<const NamedCounts&(const CounterReading&)> by_name{};
};

const std::vector<CounterRow>& counter_table();

// One log line of the table's rows: "counters: discovers=1 offers=0 ...".
std::string counter_log_line(LogLine line, const CounterReading& reading);

}  // namespace landlord::control
