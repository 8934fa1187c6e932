#include "settings.hpp"

#include "setting_table.hpp"

#include <fmt/format.h>

#include "landlord/base/duration.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace landlord::sim::cli {

std::optional<Window> parse_window(std::string_view text) {
  const auto plus = text.find('+');
  if (plus == std::string_view::npos) return std::nullopt;
  const auto from = parse_duration(text.substr(0, plus));
  const auto length = parse_duration(text.substr(plus + 1));
  if (!from || !length) return std::nullopt;
  return Window{*from, *length};
}

std::vector<std::string> check_settings(const Settings& settings) {
  std::vector<std::string> problems;
  const Workload& w = settings.workload;
  const auto positive = [&](Duration value, std::string_view flag) {
    if (value.count() <= 0) problems.push_back(fmt::format("{} must be more than 0", flag));
  };
  if (w.clients > kMaxClients) {
    problems.push_back(fmt::format("--clients {} is more than the {} a run can hold", w.clients,
                                   kMaxClients));
  }
  if (!settings.closed_loop && w.clients == 0) problems.push_back("--clients must be at least 1");
  // NaN fails every comparison: written so that it fails this one too.
  if (!(w.arrival_rate_per_s > 0 && w.arrival_rate_per_s <= kMaxRatePerSecond)) {
    problems.push_back(fmt::format("--rate must be more than 0 and at most {} new clients per "
                                   "second, not {}",
                                   kMaxRatePerSecond, w.arrival_rate_per_s));
  }
  positive(w.duration, "--duration");
  positive(settings.stats_every, "--stats-every");
  if (w.stay.count() < 0) problems.push_back("--stay cannot be negative");
  positive(settings.retransmit_base, "--retransmit-base");
  positive(settings.renew_minimum, "--renew-min");
  if (settings.decline_wait.count() < 0) problems.push_back("--decline-wait cannot be negative");
  const double departing = w.release_fraction + w.vanish_fraction;
  if (departing > 1) {
    problems.push_back(fmt::format("--release and --vanish add up to {}, more than all clients",
                                   departing));
  }
  if (settings.server.empty() == settings.interface.empty()) {
    problems.push_back("give exactly one of --server (relay) or --interface (L2)");
  }
  if (settings.closed_loop) {
    const ClosedLoopPlan& plan = settings.closed_loop_plan;
    positive(plan.step, "--step");
    positive(plan.deadline, "--deadline");
    if (!(plan.factor > 1 && plan.factor <= 100)) problems.push_back("--step-factor must be above 1");
    if (plan.max_steps == 0) problems.push_back("--max-steps must be at least 1");
  }
  if (!w.macs.empty() && w.base_mac) problems.push_back("give --macs or --base-mac, not both");
  // The closed loop's steps bring their own clients: main caps them to the MACs instead.
  if (!settings.closed_loop && !w.macs.empty() && w.macs.size() < w.clients) {
    problems.push_back(fmt::format("--macs {} has {} MACs for {} clients", settings.macs_path,
                                   w.macs.size(), w.clients));
  }
  if (!settings.closed_loop && w.base_mac &&
      ClientMacs::counted_from(*w.base_mac).capacity() < w.clients) {
    problems.push_back(fmt::format("--base-mac {} leaves no room for {} clients below "
                                   "ff:ff:ff:ff:ff:ff",
                                   w.base_mac->to_string(), w.clients));
  }
  return problems;
}

Expected<StopLimits, std::string> parse_max_drops(std::string_view text) {
  StopLimits limits;
  const auto bad = unexpected(
      fmt::format("wants a count or a percentage of the packets sent (10, 2.5%), not "
                  "'{}'",
                  text));
  if (text.ends_with('%')) {
    const std::string_view number = text.substr(0, text.size() - 1);
    double percent = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), percent);
    if (number.empty() || error != std::errc{} || end != number.data() + number.size() ||
        !(percent >= 0 && percent <= 100)) {
      return bad;
    }
    limits.max_drop_fraction = percent / 100;
    return limits;
  }
  std::size_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return bad;
  limits.max_drops = count;
  return limits;
}

Expected<void, std::string> load_scenario(const std::string& path, Settings& settings) {
  GivenSettings given;
  if (auto read = read_scenario(path, given); !read) return read;
  const auto problems = apply_given(given, settings);
  if (!problems.empty()) return unexpected(problems.front());
  return {};
}

}  // namespace landlord::sim::cli
