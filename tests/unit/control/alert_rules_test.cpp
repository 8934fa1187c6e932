// Every metric the shipped Prometheus alert rules read (config/prometheus/*.yaml, their `expr`)
// is one landlord's /metrics has: promtool checks a rule's syntax, not that its metric exists,
// and a rule on a renamed or misspelt metric never fires.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "fake_daemon.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;

// The metric names a PromQL expression reads: its identifiers, less functions (a name followed by
// "("), aggregations (`sum by (le) (...)`), operators and modifiers, the labels of by/without/on/ignoring/group_left/group_right
// (...), and what is inside {label matchers}, [ranges] and strings.
std::set<std::string> metric_names_in(const std::string& expr) {
  static const std::set<std::string> keywords{"and",    "or",     "unless", "offset", "bool",   "inf",
                                              "nan",    "atan2",  "sum",    "min",    "max",    "avg",
                                              "group",  "stddev", "stdvar", "count",  "count_values",
                                              "bottomk", "topk",  "quantile", "limitk", "limit_ratio"};
  static const std::set<std::string> label_lists{"by", "without", "on", "ignoring", "group_left", "group_right"};
  const auto skip_to = [&expr](std::size_t from, char close) {
    const auto at = expr.find(close, from + 1);
    return at == std::string::npos ? expr.size() : at + 1;
  };
  const auto skip_spaces = [&expr](std::size_t at) {
    while (at < expr.size() && std::isspace(static_cast<unsigned char>(expr[at]))) ++at;
    return at;
  };
  std::set<std::string> names;
  std::size_t i = 0;
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '{') {
      i = skip_to(i, '}');
    } else if (c == '[') {
      i = skip_to(i, ']');
    } else if (c == '"' || c == '\'' || c == '`') {
      i = skip_to(i, c);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      while (i < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '.')) ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':') {
      const std::size_t start = i;
      while (i < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_' || expr[i] == ':')) ++i;
      const std::string word = expr.substr(start, i - start);
      const std::size_t next = skip_spaces(i);
      const bool call = next < expr.size() && expr[next] == '(';
      if (label_lists.count(word) != 0) {
        if (call) i = skip_to(next, ')');
      } else if (!call && keywords.count(word) == 0) {
        names.insert(word);
      }
    } else {
      ++i;
    }
  }
  return names;
}

// The series names in a /metrics text (histograms' _bucket, _sum and _count included).
std::set<std::string> series_in(const std::string& text) {
  std::set<std::string> names;
  std::istringstream lines{text};
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    names.insert(line.substr(0, line.find_first_of("{ ")));
  }
  return names;
}

// What a rules file reads that neither /metrics nor one of its own recording rules provides.
std::set<std::string> missing_metrics(const YAML::Node& rules_file, const std::set<std::string>& exported) {
  std::set<std::string> provided = exported, read;
  for (const auto& group : rules_file["groups"]) {
    for (const auto& rule : group["rules"]) {
      if (rule["record"]) provided.insert(rule["record"].as<std::string>());
      const auto names = metric_names_in(rule["expr"].as<std::string>());
      read.insert(names.begin(), names.end());
    }
  }
  std::set<std::string> missing;
  for (const auto& name : read) {
    if (provided.count(name) == 0) missing.insert(name);
  }
  return missing;
}

std::set<std::string> exported_series() {
  FakeDaemon daemon;  // two subnets with pools: every per-pool and per-subnet series is there
  Metrics metrics;
  return series_in(render_metrics(daemon, metrics, {}, count_table(daemon)));
}

TEST(AlertRules, ReadOnlyMetricsThatLandlordExports) {
  const std::set<std::string> exported = exported_series();
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator{LANDLORD_PROMETHEUS_DIR}) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node file = YAML::LoadFile(entry.path().string());
    if (!file["groups"]) continue;  // the scrape configuration
    ++files;
    std::size_t rules = 0;
    for (const auto& group : file["groups"]) rules += group["rules"].size();
    EXPECT_GT(rules, 0u) << entry.path();
    for (const auto& name : missing_metrics(file, exported)) {
      ADD_FAILURE() << entry.path().filename() << " reads " << name << ", which landlord's /metrics does not have";
    }
  }
  EXPECT_EQ(files, 1u) << "the rules files in " << LANDLORD_PROMETHEUS_DIR;
}

// The check itself: a misspelt or vanished metric is caught, and what PromQL adds around names
// (functions, label matchers, ranges, aggregation labels, numbers) is not taken for one.
TEST(AlertRules, AMetricThatDoesNotExistIsCaught) {
  EXPECT_EQ(metric_names_in(R"(histogram_quantile(0.99, sum by (le, subnet) (rate(landlord_request_to_ack_seconds_bucket{subnet=~"198.*"}[5m]))) > 1e-1 and on(instance) landlord_store_healthy offset 5m == bool 0)"),
            (std::set<std::string>{"landlord_request_to_ack_seconds_bucket", "landlord_store_healthy"}));
  const YAML::Node rules = YAML::Load(R"(groups:
  - name: test
    rules:
      - record: landlord:pool_free:ratio
        expr: landlord_pool_free_addresses / landlord_pool_addresses
      - alert: Ok
        expr: landlord:pool_free:ratio < 0.1
      - alert: Misspelt
        expr: landlord_pool_free_address < 10 or increase(landlord_store_down_total[5m]) > 0
)");
  EXPECT_EQ(missing_metrics(rules, exported_series()),
            (std::set<std::string>{"landlord_pool_free_address", "landlord_store_down_total"}));
}

}  // namespace
}  // namespace landlord::control
