#include "settings.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

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

namespace {

std::string where(const std::string& path, const YAML::Mark& mark) {
  return fmt::format("{}:{}:{}", path, mark.line + 1, mark.column + 1);
}

}  // namespace

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
  return problems;
}

Expected<StopLimits, std::string> parse_max_drops(std::string_view text) {
  StopLimits limits;
  const auto bad = unexpected(
      fmt::format("--max-drops wants a count or a percentage of the packets sent (10, 2.5%), not "
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

std::vector<std::string> apply_perfdhcp_flags(const PerfdhcpFlags& flags, Settings& settings) {
  std::vector<std::string> problems;
  Workload& w = settings.workload;
  if (!flags.max_drops.empty()) {
    const auto limits = parse_max_drops(flags.max_drops);
    if (!limits) {
      problems.push_back(limits.error());
    } else {
      w.limits.max_drops = limits->max_drops;
      w.limits.max_drop_fraction = limits->max_drop_fraction;
    }
  }
  if (!flags.macs_path.empty() && !flags.base_mac.empty()) {
    problems.push_back("give --macs or --base-mac, not both");
  }
  if (!flags.macs_path.empty()) {
    std::ifstream file(flags.macs_path);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) {
      problems.push_back(fmt::format("--macs: cannot read {}", flags.macs_path));
    } else if (auto macs = parse_mac_list(text.str()); !macs) {
      problems.push_back(fmt::format("--macs: {}: {}", flags.macs_path, macs.error()));
    } else {
      w.macs = std::move(*macs);
      // The closed loop's steps bring their own clients: main caps them to the list instead.
      if (!settings.closed_loop && w.macs.size() < w.clients) {
        problems.push_back(fmt::format("--macs: {} has {} MACs for {} clients", flags.macs_path,
                                       w.macs.size(), w.clients));
      }
    }
  }
  if (!flags.base_mac.empty()) {
    const auto mac = HardwareAddress::parse(flags.base_mac);
    if (!mac || mac->length() != 6) {
      problems.push_back(
          fmt::format("--base-mac wants a MAC (aa:bb:cc:dd:ee:ff), not '{}'", flags.base_mac));
    } else {
      w.base_mac = mac;
      if (!settings.closed_loop && ClientMacs::counted_from(*mac).capacity() < w.clients) {
        problems.push_back(fmt::format("--base-mac {} leaves no room for {} clients below "
                                       "ff:ff:ff:ff:ff:ff",
                                       flags.base_mac, w.clients));
      }
    }
  }
  for (const std::string& text : flags.options) {
    auto option = parse_extra_option(text);
    if (!option) {
      problems.push_back(fmt::format("--option {}", option.error()));
      continue;
    }
    const auto same_code = [&](const ExtraOption& o) { return o.code == option->code; };
    if (std::any_of(w.request_options.extra.begin(), w.request_options.extra.end(), same_code)) {
      problems.push_back(fmt::format("--option {}: option {} given twice", text, option->code));
      continue;
    }
    w.request_options.extra.push_back(std::move(*option));
  }
  if (!flags.prl.empty()) {
    auto list = parse_parameter_request_list(flags.prl);
    if (!list)
      problems.push_back(fmt::format("--prl {}", list.error()));
    else
      w.request_options.parameter_request_list = std::move(*list);
  }
  if (!flags.request_lease_time.empty()) {
    const auto lease = parse_duration(flags.request_lease_time);
    constexpr std::int64_t kLargestLeaseMs = std::int64_t{0xfffffffe} * 1000;
    if (!lease || lease->count() < 1000 || lease->count() % 1000 != 0 ||
        lease->count() > kLargestLeaseMs) {
      problems.push_back(fmt::format(
          "--request-lease-time wants whole seconds from 1s (e.g. 10m, 1h), not '{}'",
          flags.request_lease_time));
    } else {
      w.request_options.lease_time_s = static_cast<std::uint32_t>(lease->count() / 1000);
    }
  }
  return problems;
}

Expected<void, std::string> load_scenario(const std::string& path, Settings& settings) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    return unexpected(
        fmt::format("{}:{}:{}: {}", path, error.mark.line + 1, error.mark.column + 1, error.msg));
  }
  if (!root.IsMap())
    return unexpected(fmt::format("{}: a scenario is a map of settings", where(path, root.Mark())));

  Workload& w = settings.workload;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    const std::string at = where(path, value.Mark());
    const std::string text = value.IsScalar() ? value.Scalar() : std::string{};
    const auto fraction = [&](double& out) -> std::optional<std::string> {
      double parsed = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
      if (error != std::errc{} || end != text.data() + text.size() || parsed < 0 || parsed > 1) {
        return fmt::format("{}: {} must be a fraction between 0 and 1", at, key);
      }
      out = parsed;
      return std::nullopt;
    };
    const auto duration = [&](Duration& out) -> std::optional<std::string> {
      const auto parsed = parse_duration(text);
      if (!parsed) return fmt::format("{}: {} must be a duration: {}", at, key, parsed.error());
      out = *parsed;
      return std::nullopt;
    };
    const auto number = [&](auto& out) -> std::optional<std::string> {
      using T = std::decay_t<decltype(out)>;
      T parsed{};
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
      if (error != std::errc{} || end != text.data() + text.size() || parsed < T{}) {
        return fmt::format("{}: {} must be a non-negative number", at, key);
      }
      out = parsed;
      return std::nullopt;
    };
    std::optional<std::string> problem;
    if (!value.IsScalar())
      problem = fmt::format("{}: {} must be a scalar", at, key);
    else if (key == "server")
      settings.server = text;
    else if (key == "bind")
      settings.bind = text;
    else if (key == "interface")
      settings.interface = text;
    else if (key == "clients") {
      problem = number(w.clients);
      settings.clients_given = true;
    } else if (key == "closed_loop")
      settings.closed_loop = value.as<bool>(false);
    else if (key == "step")
      problem = duration(settings.closed_loop_plan.step);
    else if (key == "step_factor")
      problem = number(settings.closed_loop_plan.factor);
    else if (key == "deadline")
      problem = duration(settings.closed_loop_plan.deadline);
    else if (key == "max_miss")
      problem = fraction(settings.closed_loop_plan.max_miss_fraction);
    else if (key == "max_steps")
      problem = number(settings.closed_loop_plan.max_steps);
    else if (key == "rate")
      problem = number(w.arrival_rate_per_s);
    else if (key == "duration")
      problem = duration(w.duration);
    else if (key == "stay")
      problem = duration(w.stay);
    else if (key == "release")
      problem = fraction(w.release_fraction);
    else if (key == "vanish")
      problem = fraction(w.vanish_fraction);
    else if (key == "decline")
      problem = fraction(w.decline_fraction);
    else if (key == "restart_clients")
      problem = fraction(w.restart_fraction);
    else if (key == "drop_replies")
      problem = fraction(w.drop_replies);
    else if (key == "seed")
      problem = number(w.seed);
    else if (key == "client_id")
      w.send_client_id = value.as<bool>(true);
    else if (key == "retransmit_base")
      problem = duration(settings.retransmit_base);
    else if (key == "renew_minimum")
      problem = duration(settings.renew_minimum);
    else if (key == "decline_wait")
      problem = duration(settings.decline_wait);
    else if (key == "report")
      settings.report_path = text;
    else if (key == "pcap")
      settings.pcap_path = text;
    else if (key == "block_unicast") {
      const auto window = parse_window(text);
      if (!window)
        problem = fmt::format("{}: block_unicast must be FROM+LEN, e.g. 30s+60s", at);
      else
        w.block_unicast = window;
    } else {
      problem = fmt::format("{}: unknown key '{}'", where(path, entry.first.Mark()), key);
    }
    if (problem) return unexpected(*problem);
  }
  return {};
}

}  // namespace landlord::sim::cli
