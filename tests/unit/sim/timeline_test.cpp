// The run over time: the timeline's periods add up to the run's totals, follow the fleet's
// states and the fault window, stay bounded however long the run; the CSV has a column per
// header name; the HTML report carries the charts, T1/T2, the faults and every violation with
// its exchange, and nothing that would need a network.
#include "landlord/sim/timeline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "landlord/sim/html_report.hpp"
#include "landlord/sim/svg_chart.hpp"
#include "scripted_server.hpp"
#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;

Workload lab_workload() {
  Workload workload;
  workload.clients = 200;
  workload.arrival_rate_per_s = 50;
  workload.duration = 600s;
  workload.seed = 11;
  workload.timing = Timing::with_retransmit_base(1s, 5s);
  workload.block_unicast = Window{200s, 100s};
  return workload;
}

// Runs the fleet in virtual time, sampling at every whole second it passes.
void run_sampled(Fleet& fleet, test::ScriptedServer& server, Timeline& timeline) {
  double next_s = 1;
  test::run_virtual(fleet, server, test::kEpoch, [&](TimePoint now) {
    const double at_s = std::chrono::duration<double>(now - test::kEpoch).count();
    while (at_s >= next_s) {
      timeline.sample(next_s);
      next_s += 1;
    }
  });
  timeline.sample(std::chrono::duration<double>(fleet.workload().duration).count());
}

std::size_t count_of(std::string_view text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

TEST(Timeline, PeriodsAddUpToTheRun) {
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(lab_workload(), test::kEpoch);
  Timeline timeline(fleet);
  run_sampled(fleet, server, timeline);
  const auto& samples = timeline.samples();
  ASSERT_GE(samples.size(), 599u);
  ASSERT_LE(samples.size(), 601u);
  std::size_t renewals = 0, rebinds = 0, leases = 0, blocked = 0, request_acks = 0, renew_acks = 0;
  for (const TimelineSample& s : samples) {
    renewals += s.renewals;
    rebinds += s.rebinds;
    leases += s.leases;
    blocked += s.unicast_blocked;
    request_acks += s.request_ack.count;
    renew_acks += s.renew_ack.count;
    if (s.at_s > 201 && s.at_s <= 300) {
      EXPECT_TRUE(s.unicast_block_active) << s.at_s;
    }
    if (s.at_s <= 199 || s.at_s > 301) {
      EXPECT_FALSE(s.unicast_block_active) << s.at_s;
    }
  }
  const Stats& stats = fleet.stats();
  EXPECT_EQ(renewals, stats.renewals);
  EXPECT_EQ(rebinds, stats.rebinds);
  EXPECT_EQ(leases, stats.leases);
  EXPECT_EQ(blocked, stats.unicast_blocked);
  EXPECT_EQ(request_acks, stats.latency_ms[static_cast<std::size_t>(Exchange::Request)].count());
  EXPECT_EQ(renew_acks, stats.latency_ms[static_cast<std::size_t>(Exchange::Renew)].count());
  EXPECT_GT(rebinds, 0u);
  EXPECT_EQ(samples.back().states, fleet.state_counts());
  EXPECT_EQ(samples.back().addresses_held, fleet.bound_now());
  // Four seconds in, 200 clients at 50/s have all arrived: the states account for each.
  const auto& at_4 = samples[3];
  std::size_t clients = 0;
  for (const std::size_t n : at_4.states) clients += n;
  EXPECT_EQ(clients, 200u);
}

TEST(Timeline, KeepsBoundedMemoryByMergingNeighbours) {
  test::ScriptedServer server({.lease_s = 60});
  Workload workload = lab_workload();
  workload.duration = 3000s;
  workload.block_unicast.reset();
  Fleet fleet(workload, test::kEpoch);
  Timeline timeline(fleet);
  run_sampled(fleet, server, timeline);
  const auto& samples = timeline.samples();
  EXPECT_LE(samples.size(), Timeline::kKeptSamples);
  EXPECT_GT(samples.size(), Timeline::kKeptSamples / 2);
  std::size_t renewals = 0;
  double covered_s = 0;
  for (const TimelineSample& s : samples) {
    renewals += s.renewals;
    covered_s += s.length_s;
  }
  EXPECT_EQ(renewals, fleet.stats().renewals);
  EXPECT_NEAR(covered_s, 3000, 1e-6);
}

TEST(Timeline, CsvHasAColumnPerName) {
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(lab_workload(), test::kEpoch);
  Timeline timeline(fleet);
  run_sampled(fleet, server, timeline);
  const std::string header = timeline_csv_header();
  EXPECT_EQ(header.rfind("time_s,clients_init,clients_selecting", 0), 0u) << header;
  for (const TimelineSample& s : timeline.samples()) {
    const std::string line = timeline_csv_line(s);
    ASSERT_EQ(count_of(line, ','), count_of(header, ',')) << line;
    ASSERT_EQ(line.back(), '\n');
  }
  // A period with renewals reports their rate and latency.
  const auto busy = std::find_if(timeline.samples().begin(), timeline.samples().end(),
                                 [](const TimelineSample& s) { return s.renew_ack.count > 0; });
  ASSERT_NE(busy, timeline.samples().end());
  EXPECT_NE(timeline_csv_line(*busy).find(fmt::format(",{},", busy->renew_ack.count)),
            std::string::npos);
}

TEST(HtmlReport, CarriesChartsTimersFaultsAndViolations) {
  test::ScriptedServer server({.lease_s = 80, .same_address_for_all = true});  // T2 70 s
  Workload workload = lab_workload();
  workload.clients = 20;
  workload.duration = 120s;
  workload.drop_replies = 0.05;
  Fleet fleet(workload, test::kEpoch);
  Timeline timeline(fleet);
  run_sampled(fleet, server, timeline);
  ASSERT_GT(fleet.auditor().violation_count(), 0u);
  const std::string html = report_html(fleet, RunInfo{"relay", "scripted", 11, 120, 1}, timeline);
  for (const char* id : {"chart-states", "chart-rates", "chart-lease-fraction", "chart-latency",
                         "chart-latency-cdf", "chart-pool"}) {
    EXPECT_NE(html.find(fmt::format(R"(<svg id="{}")", id)), std::string::npos) << id;
  }
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // the SVG namespace only
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find(R"(<g class="marker" data-x="0.5000">)"), std::string::npos);
  EXPECT_NE(html.find(R"(<g class="marker" data-x="0.8750">)"), std::string::npos);
  EXPECT_NE(html.find("5.0 % of replies dropped"), std::string::npos);
  EXPECT_NE(html.find(fmt::format(R"(data-key="renewals.count">{}<)", fleet.stats().renewals)),
            std::string::npos);
  // Each listed violation shows the exchange that revealed it.
  const Violation& first = fleet.auditor().violations().front();
  EXPECT_FALSE(first.exchange.empty());
  EXPECT_NE(html.find(html_escaped(first.exchange)), std::string::npos) << first.exchange;
  EXPECT_NE(html.find("duplicate-address"), std::string::npos);
  EXPECT_NE(html.find(fmt::format(R"(data-key="violations">{}<)",
                                  fleet.auditor().violation_count())),
            std::string::npos);
}

}  // namespace
}  // namespace landlord::sim
