// landlord-sim's scenario files: every example loads, durations and windows parse, and mistakes
// are reported with file:line:column.
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>

#include "settings.hpp"

namespace landlord::sim::cli {
namespace {

using namespace std::chrono_literals;

// One grammar for the simulator and the config file (base/duration.hpp): units required,
// groups may be combined.
Duration parsed(std::string_view text) {
  const auto duration = parse_duration(text);
  EXPECT_TRUE(duration.has_value()) << text;
  return duration ? *duration : Duration{-1};
}

TEST(Durations, UseTheConfigGrammar) {
  EXPECT_EQ(parsed("250ms"), Duration{250});
  EXPECT_EQ(parsed("4s"), Duration{4000});
  EXPECT_EQ(parsed("5m"), Duration{300'000});
  EXPECT_EQ(parsed("1h"), Duration{3'600'000});
  EXPECT_EQ(parsed("1h30m"), Duration{5'400'000});
  for (const char* bad : {"", "s", "-1s", "4 s", "4x", "ms", "20", "0.5", "1.5s"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
  EXPECT_EQ(parse_duration("20").error(),
            "'20' has no unit (is it seconds or milliseconds?); use an integer and a unit: 90s, "
            "10m, 12h, 7d");
}

TEST(Windows, AreFromPlusLength) {
  const auto window = parse_window("30s+20s");
  ASSERT_TRUE(window);
  EXPECT_EQ(window->from, 30s);
  EXPECT_EQ(window->length, 20s);
  EXPECT_TRUE(window->contains(49s));
  EXPECT_FALSE(window->contains(50s));
  EXPECT_FALSE(parse_window("30s"));
}

TEST(Scenario, EveryExampleLoads) {
  const std::filesystem::path directory =
      std::filesystem::path{LANDLORD_SOURCE_DIR} / "config" / "scenarios";
  std::size_t examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    if (entry.path().extension() != ".yaml") continue;
    ++examples;
    Settings settings;
    const auto loaded = load_scenario(entry.path().string(), settings);
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error());
    EXPECT_GT(settings.workload.clients, 0u) << entry.path();
  }
  EXPECT_GE(examples, 3u);
}

TEST(Scenario, LabLifecycleValues) {
  Settings settings;
  ASSERT_TRUE(
      load_scenario(std::string{LANDLORD_SOURCE_DIR} + "/config/scenarios/lab-lifecycle.yaml",
                    settings)
          .has_value());
  EXPECT_EQ(settings.workload.clients, 200u);
  EXPECT_EQ(settings.workload.duration, 60s);
  EXPECT_DOUBLE_EQ(settings.workload.vanish_fraction, 0.1);
  ASSERT_TRUE(settings.workload.block_unicast);
  EXPECT_EQ(settings.workload.block_unicast->from, 30s);
  EXPECT_EQ(settings.retransmit_base, 1s);
  EXPECT_EQ(settings.renew_minimum, 2s);
}

TEST(Scenario, ClosedLoopKeys) {
  const std::string path = ::testing::TempDir() + "/closed_loop_scenario.yaml";
  std::ofstream(path) << "closed_loop: true\nrate: 300\nclients: 60000\nstep: 3s\n"
                         "step_factor: 1.5\ndeadline: 500ms\nmax_miss: 0.01\nmax_steps: 7\n";
  Settings settings;
  const auto loaded = load_scenario(path, settings);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_TRUE(settings.closed_loop);
  EXPECT_TRUE(settings.clients_given);
  EXPECT_EQ(settings.closed_loop_plan.step, 3s);
  EXPECT_DOUBLE_EQ(settings.closed_loop_plan.factor, 1.5);
  EXPECT_EQ(settings.closed_loop_plan.deadline, 500ms);
  EXPECT_DOUBLE_EQ(settings.closed_loop_plan.max_miss_fraction, 0.01);
  EXPECT_EQ(settings.closed_loop_plan.max_steps, 7u);
  Settings defaults;
  EXPECT_FALSE(defaults.closed_loop);
  EXPECT_FALSE(defaults.clients_given);
}

std::string error_for(const std::string& yaml) {
  const std::string path = ::testing::TempDir() + "/scenario_test.yaml";
  std::ofstream(path) << yaml;
  Settings settings;
  const auto loaded = load_scenario(path, settings);
  return loaded ? std::string{} : loaded.error();
}

TEST(Scenario, MistakesNameTheirPlace) {
  EXPECT_NE(error_for("clients: 10\nrate_per_s: 5\n")
                .find("scenario_test.yaml:2:1: unknown key 'rate_per_s'"),
            std::string::npos)
      << error_for("clients: 10\nrate_per_s: 5\n");
  EXPECT_NE(error_for("release: 1.5\n").find(":1:10: release must be a fraction"),
            std::string::npos)
      << error_for("release: 1.5\n");
  EXPECT_NE(error_for("duration: soon\n").find("duration must be a duration"), std::string::npos);
  EXPECT_NE(error_for("block_unicast: 30s\n").find("FROM+LEN"), std::string::npos);
  EXPECT_NE(error_for("clients: [1, 2]\n").find("must be a scalar"), std::string::npos);
  EXPECT_NE(error_for("- a\n- b\n").find("a map of settings"), std::string::npos);
  EXPECT_NE(error_for("max_miss: 2\n").find("max_miss must be a fraction"), std::string::npos);
  EXPECT_NE(error_for("deadline: 1 s\n").find("deadline must be a duration"), std::string::npos);
}

// check_settings() on one change to a valid relay-mode run: the problems it names.
std::string problems_with(const std::function<void(Settings&)>& change) {
  Settings settings;
  settings.server = "127.0.0.1:6767";
  change(settings);
  std::string text;
  for (const auto& problem : check_settings(settings)) text += problem + "\n";
  return text;
}

TEST(Settings, AreCheckedBeforeTheRun) {
  EXPECT_EQ(problems_with([](Settings&) {}), "");
  EXPECT_NE(problems_with([](Settings& s) { s.workload.arrival_rate_per_s = 0; }).find("--rate"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) { s.workload.arrival_rate_per_s = -5; }).find("--rate"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) {
              s.workload.arrival_rate_per_s = std::numeric_limits<double>::quiet_NaN();
            }).find("--rate"),
            std::string::npos);
  // What "--clients -5" became before CLI11 checked it: 2^64 - 5.
  EXPECT_NE(problems_with([](Settings& s) { s.workload.clients = static_cast<std::size_t>(-5); })
                .find("--clients"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) { s.workload.clients = 0; }).find("--clients"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) { s.workload.duration = Duration{0}; }).find("--duration"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) { s.retransmit_base = Duration{0}; })
                .find("--retransmit-base"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) {
              s.workload.release_fraction = 0.7;
              s.workload.vanish_fraction = 0.7;
            }).find("--release and --vanish"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) { s.interface = "veth0"; }).find("exactly one"),
            std::string::npos);
  EXPECT_NE(problems_with([](Settings& s) {
              s.closed_loop = true;
              s.closed_loop_plan.factor = 1;
            }).find("--step-factor"),
            std::string::npos);
  // Two problems, two lines: the operator fixes them in one go.
  const std::string two = problems_with([](Settings& s) {
    s.workload.arrival_rate_per_s = 0;
    s.workload.duration = Duration{0};
  });
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 2) << two;
}

}  // namespace
}  // namespace landlord::sim::cli
