// The counter table (counter_table.hpp): well formed, and every emitter shows each of its rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "fake_daemon.hpp"
#include "landlord/control/counter_table.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;

TEST(CounterTable, RowsAreWellFormed) {
  std::set<std::string> samples, log_names, statistics, families_done;
  const CounterFamily* family = nullptr;
  for (const CounterRow& row : counter_table()) {
    const std::string what = row.family ? std::string{row.family->name} + "{" + row.labels + "}"
                                        : row.log_name + row.statistic;
    EXPECT_TRUE(row.family || row.log != LogLine::None || !row.statistic.empty()) << what << " is shown nowhere";
    EXPECT_EQ(!!row.count + !!row.real + !!row.by_name, 1) << what << ": one reader";
    if (row.log != LogLine::None || !row.statistic.empty()) {
      EXPECT_TRUE(row.count) << what << ": a count to show";
    }
    EXPECT_EQ(row.log != LogLine::None, !row.log_name.empty()) << what;
    if (row.log != LogLine::None) {
      EXPECT_TRUE(log_names.insert(row.log_name).second) << "twice: " << row.log_name;
    }
    if (!row.statistic.empty()) {
      EXPECT_TRUE(statistics.insert(row.statistic).second) << "twice: " << row.statistic;
    }
    if (row.family == nullptr) continue;
    EXPECT_TRUE(samples.insert(what).second) << "twice: " << what;
    if (row.family != family) {
      EXPECT_TRUE(families_done.insert(std::string{row.family->name}).second)
          << row.family->name << ": its rows are not together";
      family = row.family;
    }
    const std::string_view name = row.family->name;
    EXPECT_TRUE(name.starts_with("landlord_")) << name;
    EXPECT_TRUE(row.family->type == "counter" || row.family->type == "gauge") << name;
    EXPECT_EQ(row.family->type == "counter", name.ends_with("_total")) << name;
    EXPECT_FALSE(row.family->help.empty()) << name;
  }
}

// Every rendering of the counters shows every row of it by its name, with the row's value.
TEST(CounterTable, EveryEmitterShowsEveryRow) {
  FakeDaemon daemon;
  DaemonCounters given;
  std::uint64_t next = 1000;
  for (auto* field : {&given.packets_received, &given.malformed, &given.unroutable, &given.no_route,
                      &given.receive_queue_overflow, &given.offer_ping_skipped, &given.oversized, &given.commits,
                      &given.last_batch_records, &given.records_written, &given.stale_refusals,
                      &given.store_failures, &given.replies_dropped_store_down, &given.commit_backlog,
                      &given.view_sync_failures, &given.view_records_learned, &given.dropped_view_stale,
                      &given.dropped_clock_skew, &given.admitted, &given.chaddr_mismatch, &given.discover_shed,
                      &given.frames_unseen, &given.answered_from_durable, &given.reboots_answered_from_durable,
                      &given.store_reopened, &given.commit_queue_full, &given.ddns_adds, &given.ddns_removals,
                      &given.ddns_conflicts, &given.ddns_pending, &given.ddns_messages_sent}) {
    *field = next++;
  }
  for (auto& refused : given.admission_refused) refused = next++;
  given.clock_offset_seconds = -2.5;
  given.store_failures_by_reason = {{"full", next++}, {"read-only", next++}};
  given.checkpoint_failures_by_reason = {{"io", next++}};
  given.ddns_failed_by_cause = {{"timeout", next++}, {"unexpected-rcode", next++}};
  daemon.counters_given = given;

  Metrics metrics;
  const std::string text = render_metrics(daemon, metrics, {}, count_table(daemon));
  const nlohmann::json statistics = daemon.ask(R"({"command": "statistic-get-all"})")["arguments"];
  const CounterReading reading{daemon.engine().counters(), given};
  std::map<LogLine, std::string> lines;
  for (const LogLine line : {LogLine::Counters, LogLine::Admission}) lines[line] = counter_log_line(line, reading);
  std::map<LogLine, std::size_t> logged;

  for (const CounterRow& row : counter_table()) {
    if (row.family) {
      const std::string name{row.family->name};
      EXPECT_NE(text.find("# TYPE " + name + " " + std::string{row.family->type} + "\n"), std::string::npos) << name;
      if (row.by_name) {
        for (const auto& [reason, value] : row.by_name(reading)) {
          std::string label = reason;
          std::replace(label.begin(), label.end(), '-', '_');
          const std::string sample = name + "{" + row.labels + "=\"" + label + "\"} " + std::to_string(value) + "\n";
          EXPECT_NE(text.find(sample), std::string::npos) << sample;
        }
      } else {
        std::ostringstream value;
        value << (row.real ? row.real(reading) : static_cast<double>(row.count(reading)));
        const std::string sample = name + (row.labels.empty() ? "" : "{" + row.labels + "}") + " " + value.str() + "\n";
        EXPECT_NE(text.find("\n" + sample), std::string::npos) << sample;
      }
    }
    if (!row.statistic.empty()) {
      ASSERT_TRUE(statistics.contains(row.statistic)) << row.statistic;
      EXPECT_EQ(statistics[row.statistic][0][0], row.count(reading)) << row.statistic;
    }
    if (row.log != LogLine::None) {
      const std::string pair = " " + row.log_name + "=" + std::to_string(row.count(reading));
      const std::string& line = lines[row.log];
      EXPECT_TRUE(line.find(pair + " ") != std::string::npos || line.ends_with(pair)) << pair << " not in " << line;
      ++logged[row.log];
    }
  }
  // The lines hold the table's rows and nothing else.
  for (const auto& [line, text_of] : lines) {
    EXPECT_EQ(static_cast<std::size_t>(std::count(text_of.begin(), text_of.end(), '=')), logged[line]) << text_of;
  }
  EXPECT_TRUE(lines[LogLine::Counters].starts_with("counters: discovers=")) << lines[LogLine::Counters];
  EXPECT_TRUE(lines[LogLine::Admission].starts_with("admission: admitted=")) << lines[LogLine::Admission];
}

}  // namespace
}  // namespace landlord::control
