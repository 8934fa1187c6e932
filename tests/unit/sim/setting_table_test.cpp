// landlord-sim's one settings table: every setting works the same from a scenario file and from
// the command line, and docs/simulator.md carries the table the program prints.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "setting_table.hpp"

namespace landlord::sim::cli {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// One value per setting, unlike its default. A setting added to the table without one here
// fails EveryKeyHasAnExample: a new setting is tested both ways or not at all.
std::map<std::string, std::string> examples() {
  return {
      {"server", "127.0.0.1:6767"},     {"bind", "127.0.0.1:6768"},
      {"interface", "veth9"},           {"option82_check", "false"},
      {"clients", "7"},                 {"rate", "12.5"},
      {"duration", "90s"},              {"stay", "20s"},
      {"release", "0.25"},              {"vanish", "0.125"},
      {"decline", "0.0625"},            {"restart_clients", "0.5"},
      {"drop_replies", "0.01"},         {"block_unicast", "30s+20s"},
      {"seed", "42"},                   {"client_id", "false"},
      {"retransmit_base", "1s"},        {"renew_minimum", "2s"},
      {"decline_wait", "3s"},           {"closed_loop", "true"},
      {"step", "2s"},                   {"step_factor", "1.5"},
      {"deadline", "500ms"},            {"max_miss", "0.05"},
      {"max_steps", "9"},               {"max_exchanges", "1000"},
      {"max_drops", "2.5%"},            {"macs", temp_file("table-macs.txt", "02:00:00:00:00:01\n")},
      {"base_mac", "02:aa:00:00:00:01"}, {"option", "60:text:PXEClient"},
      {"prl", "1,3,6"},                 {"request_lease_time", "10m"},
      {"report", "r.json"},             {"timeline", "t.csv"},
      {"stats_every", "250ms"},         {"html", "r.html"},
      {"pcap", "p.pcap"},               {"client_group", "share=30%;option=93:u16:7"},
  };
}

// What a setting can change, as text: two Settings that print alike are alike.
std::string fingerprint(const Settings& s) {
  const Workload& w = s.workload;
  std::string macs;
  for (const auto& mac : w.macs) macs += mac.to_string() + " ";
  std::string extra;
  for (const auto& option : w.request_options.extra) extra += fmt::format("{}:{} ", option.code, option.value.size());
  const auto text = [](const auto&... parts) {
    std::string out;
    ((out += fmt::format("{}|", parts)), ...);
    return out;
  };
  return text(s.server, s.bind, s.interface, s.check_option82, w.clients, s.clients_given,
              w.arrival_rate_per_s, w.duration.count(), w.stay.count(), w.release_fraction,
              w.vanish_fraction, w.decline_fraction, w.restart_fraction, w.drop_replies,
              w.block_unicast ? w.block_unicast->from.count() : -1, w.seed, w.send_client_id,
              s.retransmit_base.count(), s.renew_minimum.count(), s.decline_wait.count()) +
         text(s.closed_loop, s.closed_loop_plan.step.count(), s.closed_loop_plan.factor,
              s.closed_loop_plan.deadline.count(), s.closed_loop_plan.max_miss_fraction,
              s.closed_loop_plan.max_steps, w.limits.max_exchanges.value_or(0),
              w.limits.max_drop_fraction.value_or(-1), macs,
              w.base_mac ? w.base_mac->to_string() : "-", extra,
              w.request_options.parameter_request_list.size(),
              w.request_options.lease_time_s.value_or(0)) +
         text(s.report_path, s.timeline_path, s.stats_every.count(), s.stats_every_given,
              s.html_path, s.pcap_path, w.client_groups.size(),
              w.client_groups.empty() ? 0 : w.client_groups[0].share);
}

TEST(SettingTable, EveryKeyHasAnExample) {
  const auto values = examples();
  for (const SettingSpec& spec : setting_table()) {
    EXPECT_TRUE(values.count(std::string(spec.key))) << "no example for " << spec.key;
  }
}

// For each setting alone: the scenario key and the flag give the same settings, and not the
// defaults.
TEST(SettingTable, EverySettingWorksBothWays) {
  const auto values = examples();
  const std::string defaults = fingerprint(Settings{});
  for (const SettingSpec& spec : setting_table()) {
    const auto example = values.find(std::string(spec.key));
    if (example == values.end()) continue;
    SCOPED_TRACE(std::string(spec.key));

    GivenSettings from_file;
    const std::string path = temp_file("table.yaml", fmt::format("{}: \"{}\"\n", spec.key, example->second));
    ASSERT_TRUE(read_scenario(path, from_file).has_value());
    Settings by_file;
    EXPECT_EQ(apply_given(from_file, by_file), std::vector<std::string>{});

    CLI::App app;
    FlagValues flags;
    flags.declare(app);
    std::vector<std::string> args{"landlord-sim", std::string(spec.flag)};
    if (spec.switch_sets.empty()) args.push_back(example->second);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    ASSERT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
    GivenSettings from_flags;
    flags.take_into(app, from_flags);
    Settings by_flag;
    EXPECT_EQ(apply_given(from_flags, by_flag), std::vector<std::string>{});

    EXPECT_EQ(fingerprint(by_file), fingerprint(by_flag));
    EXPECT_NE(fingerprint(by_file), defaults);
  }
}

TEST(SettingTable, FlagsReplaceTheScenarioAndListsRepeat) {
  GivenSettings given;
  const std::string path =
      temp_file("table-both.yaml", "rate: 5\noption: [\"60:text:a\", \"93:u16:7\"]\nhtml: a.html\n");
  ASSERT_TRUE(read_scenario(path, given).has_value());
  CLI::App app;
  FlagValues flags;
  flags.declare(app);
  std::vector<std::string> args{"landlord-sim", "--rate", "9", "--html", "b.html"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  flags.take_into(app, given);
  Settings settings;
  EXPECT_EQ(apply_given(given, settings), std::vector<std::string>{});
  EXPECT_EQ(settings.workload.arrival_rate_per_s, 9);
  EXPECT_EQ(settings.html_path, "b.html");
  ASSERT_EQ(settings.workload.request_options.extra.size(), 2u);
  EXPECT_EQ(settings.workload.request_options.extra[1].code, 93);
}

TEST(SettingTable, MistakesNameTheirSource) {
  GivenSettings given;
  const std::string path = temp_file("table-bad.yaml", "clients: 10\nmax_drops: lots\n");
  ASSERT_TRUE(read_scenario(path, given).has_value());
  Settings settings;
  const auto problems = apply_given(given, settings);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("table-bad.yaml:2:12: max_drops wants a count"), std::string::npos)
      << problems[0];
  GivenSettings flags{{"stats_every", {{"0x", "--stats-every"}}}};
  const auto flag_problems = apply_given(flags, settings);
  ASSERT_EQ(flag_problems.size(), 1u);
  EXPECT_EQ(flag_problems[0].rfind("--stats-every must be a duration", 0), 0u) << flag_problems[0];
  GivenSettings list;
  EXPECT_FALSE(read_scenario(temp_file("table-map.yaml", "rate: {a: 1}\n"), list).has_value());
}

TEST(SettingTable, DocsCarryTheTable) {
  std::ifstream file{std::filesystem::path{LANDLORD_SOURCE_DIR} / "docs" / "simulator.md"};
  std::ostringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find(settings_markdown()), std::string::npos)
      << "docs/simulator.md must carry the settings table exactly; print it with\n"
         "  landlord-sim --settings-table\nIt is:\n"
      << settings_markdown();
}

}  // namespace
}  // namespace landlord::sim::cli
