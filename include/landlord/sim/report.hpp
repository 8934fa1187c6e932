#pragma once
// The end-of-run report: a readable summary for people and JSON (--report) for CI and bench/.
#include <cstdint>
#include <optional>
#include <string>

#include "landlord/sim/closed_loop.hpp"
#include "landlord/sim/fleet.hpp"

namespace landlord::sim {

struct RunInfo {
  std::string transport;       // "relay" or "l2"
  std::string transport_note;  // what the transport does not exercise
  std::uint64_t seed = 0;
  double elapsed_s = 0;  // wall time of the run
  double cpu_s = 0;      // process CPU time (user + system)
  const ClosedLoop* closed_loop = nullptr;  // --closed-loop: its steps and verdict
  std::optional<std::size_t> receive_drops{};  // replies our full receive queue lost, if known
};

// Bumped whenever a field of report_json changes meaning or goes away (docs/simulator.md).
inline constexpr int kReportSchemaVersion = 2;

std::string report_json(const Fleet& fleet, const RunInfo& info);
std::string report_text(const Fleet& fleet, const RunInfo& info);
// The closed-loop search: a JSON object, and lines for the summary.
std::string closed_loop_json(const ClosedLoop& loop);
std::string closed_loop_text(const ClosedLoop& loop);
// One line for a terminal: clients per state, leases, packet rate.
std::string progress_line(const Fleet& fleet, double elapsed_s);

}  // namespace landlord::sim
