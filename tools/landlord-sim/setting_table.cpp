#include "setting_table.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "landlord/base/duration.hpp"
#include "landlord/sim/client_groups.hpp"
#include "landlord/sim/client_macs.hpp"
#include "landlord/sim/request_options.hpp"

namespace landlord::sim::cli {

namespace {

using Problem = std::optional<std::string>;

// ---- How a text becomes a value: each returns the rest of a sentence on error. ----

template <typename T>
Problem number(std::string_view text, T& out) {
  T parsed{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || parsed < T{} ||
      parsed != parsed) {
    return std::is_integral_v<T> ? "must be a whole number from 0" : "must be a number from 0";
  }
  out = parsed;
  return std::nullopt;
}

Problem fraction(std::string_view text, double& out) {
  double parsed = -1;
  if (number(text, parsed) || parsed > 1) return "must be a fraction between 0 and 1";
  out = parsed;
  return std::nullopt;
}

Problem duration(std::string_view text, Duration& out) {
  const auto parsed = parse_duration(text);
  if (!parsed) return fmt::format("must be a duration: {}", parsed.error());
  out = *parsed;
  return std::nullopt;
}

Problem boolean(std::string_view text, bool& out) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes" || lower == "on") {
    out = true;
  } else if (lower == "false" || lower == "no" || lower == "off") {
    out = false;
  } else {
    return "must be true or false";
  }
  return std::nullopt;
}

Problem text_into(std::string_view text, std::string& out) {
  out = std::string(text);
  return std::nullopt;
}

Problem read_macs(Settings& s, std::string_view path) {
  std::ifstream file{std::string(path)};
  std::stringstream text;
  text << file.rdbuf();
  if (!file) return fmt::format("cannot read {}", path);
  auto macs = parse_mac_list(text.str());
  if (!macs) return fmt::format("{}: {}", path, macs.error());
  s.workload.macs = std::move(*macs);
  s.macs_path = std::string(path);
  return std::nullopt;
}

Problem base_mac(Settings& s, std::string_view text) {
  const auto mac = HardwareAddress::parse(text);
  if (!mac || mac->length() != 6) {
    return fmt::format("wants a MAC (aa:bb:cc:dd:ee:ff), not '{}'", text);
  }
  s.workload.base_mac = mac;
  return std::nullopt;
}

Problem extra_option(Settings& s, std::string_view text) {
  auto option = parse_extra_option(text);
  if (!option) return option.error();
  auto& extra = s.workload.request_options.extra;
  if (std::any_of(extra.begin(), extra.end(),
                  [&](const ExtraOption& o) { return o.code == option->code; })) {
    return fmt::format("{}: option {} given twice", text, option->code);
  }
  extra.push_back(std::move(*option));
  return std::nullopt;
}

Problem parameter_list(Settings& s, std::string_view text) {
  auto list = parse_parameter_request_list(text);
  if (!list) return list.error();
  s.workload.request_options.parameter_request_list = std::move(*list);
  return std::nullopt;
}

Problem lease_time(Settings& s, std::string_view text) {
  auto seconds = parse_lease_time_s(text);
  if (!seconds) return seconds.error();
  s.workload.request_options.lease_time_s = *seconds;
  return std::nullopt;
}

Problem client_group(Settings& s, std::string_view text) {
  auto group = parse_client_group(text);
  if (!group) return fmt::format("{}: {}", text, group.error());
  double total = group->share;
  for (const ClientGroup& other : s.workload.client_groups) total += other.share;
  if (total > 1 + 1e-9) return fmt::format("{}: the shares add up to {}, more than all clients", text, total);
  s.workload.client_groups.push_back(std::move(*group));
  return std::nullopt;
}

Problem max_drops(Settings& s, std::string_view text) {
  const auto limits = parse_max_drops(text);
  if (!limits) return limits.error();
  s.workload.limits.max_drops = limits->max_drops;
  s.workload.limits.max_drop_fraction = limits->max_drop_fraction;
  return std::nullopt;
}

Problem window(Settings& s, std::string_view text) {
  const auto parsed = parse_window(text);
  if (!parsed) return std::string("wants FROM+LEN, e.g. 30s+60s");
  s.workload.block_unicast = parsed;
  return std::nullopt;
}

// clang-format off
// The table. Order matters where one setting reads another (none today) and is the docs' order.
const SettingSpec kTable[] = {
  // Transport: exactly one of server and interface.
  {"server", "--server", "", "ADDR[:PORT]", "", "relay mode: send to this server (port 67 by default) as a relay agent", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.server); }},
  {"bind", "--bind", "", "ADDR[:PORT]", "127.0.0.1:0", "relay mode: our address and port; ADDR becomes giaddr", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.bind); }},
  {"interface", "--interface", "", "IF", "", "L2 mode: Ethernet frames on this interface (needs CAP_NET_RAW)", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.interface); }},
  {"option82_check", "--no-option82-check", "", "", "on", "relay mode: require replies to echo our option 82 (RFC 3046 §2.2); the flag turns it off", false, "false",
   [](Settings& s, std::string_view t) { return boolean(t, s.check_option82); }},
  // Workload.
  {"clients", "--clients", "", "N", "100", "clients in the run, 1 to 10,000,000 (closed loop: fresh clients over all steps)", false, "",
   [](Settings& s, std::string_view t) { s.clients_given = true; return number(t, s.workload.clients); }},
  {"rate", "--rate", "", "R", "10", "new clients per second (client i arrives at i/R s)", false, "",
   [](Settings& s, std::string_view t) { return number(t, s.workload.arrival_rate_per_s); }},
  {"duration", "--duration", "", "D", "60s", "length of the run; clients still there at the end just stop", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.workload.duration); }},
  {"stay", "--stay", "", "D", "half the run", "mean stay of leaving/restarting clients (uniform 0.5-1.5 × stay; restarts at 0.25-1 × stay)", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.workload.stay); }},
  {"release", "--release", "", "P", "0", "fraction that leave with RELEASE (RFC 2131 §4.4.6)", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.workload.release_fraction); }},
  {"vanish", "--vanish", "", "P", "0", "fraction that leave silently: the server must let their leases expire", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.workload.vanish_fraction); }},
  {"decline", "--decline", "", "P", "0", "fraction that DECLINE their first address, then restart after --decline-wait (§3.1.5)", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.workload.decline_fraction); }},
  {"restart_clients", "--restart-clients", "", "P", "0", "fraction that restart once: INIT-REBOOT with the remembered address (§4.4.2)", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.workload.restart_fraction); }},
  {"drop_replies", "--drop-replies", "", "P", "0", "fraction of server replies lost before the client sees them", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.workload.drop_replies); }},
  {"block_unicast", "--block-unicast", "", "FROM+LEN", "none", "RENEWING requests sent in this window (e.g. 30s+20s from the start) are dropped, so clients rebind at T2", false, "",
   [](Settings& s, std::string_view t) { return window(s, t); }},
  {"seed", "--seed", "", "N", "1", "seed of MACs, client ids, xids, fates, jitter and losses", false, "",
   [](Settings& s, std::string_view t) { return number(t, s.workload.seed); }},
  {"client_id", "--no-client-id", "", "", "on", "send option 61 (01 + MAC); the flag turns it off and the server keys clients by chaddr", false, "false",
   [](Settings& s, std::string_view t) { return boolean(t, s.workload.send_client_id); }},
  // Timing (RFC 2131, scalable for labs whose leases last seconds).
  {"retransmit_base", "--retransmit-base", "", "D", "4s", "§4.1: first retransmission after D, doubling up to 16 × D, each ± D/4", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.retransmit_base); }},
  {"renew_minimum", "--renew-min", "", "D", "60s", "§4.4.5: RENEWING/REBINDING retransmit after half the time left, not sooner than D", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.renew_minimum); }},
  {"decline_wait", "--decline-wait", "", "D", "10s", "§3.1.5: wait after a DECLINE before restarting", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.decline_wait); }},
  // Closed-loop benchmark.
  {"closed_loop", "--closed-loop", "", "", "off", "run the closed-loop search; --rate is the first step's rate", false, "true",
   [](Settings& s, std::string_view t) { return boolean(t, s.closed_loop); }},
  {"step", "--step", "", "D", "5s", "closed loop: arrivals of one step", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.closed_loop_plan.step); }},
  {"step_factor", "--step-factor", "", "F", "1.25", "closed loop: rate of the next step = rate × F (above 1)", false, "",
   [](Settings& s, std::string_view t) { return number(t, s.closed_loop_plan.factor); }},
  {"deadline", "--deadline", "", "D", "1s", "closed loop: an OFFER or ACK later than this is a miss", false, "",
   [](Settings& s, std::string_view t) { return duration(t, s.closed_loop_plan.deadline); }},
  {"max_miss", "--max-miss", "", "P", "0.025", "closed loop: a step fails when more than this fraction of its replies miss", false, "",
   [](Settings& s, std::string_view t) { return fraction(t, s.closed_loop_plan.max_miss_fraction); }},
  {"max_steps", "--max-steps", "", "N", "20", "closed loop: at most N steps", false, "",
   [](Settings& s, std::string_view t) { return number(t, s.closed_loop_plan.max_steps); }},
  // perfdhcp's everyday flags.
  {"max_exchanges", "--max-exchanges", "", "N", "none", "stop once N exchanges completed: OFFERs, ACKs and NAKs received (perfdhcp -n)", false, "",
   [](Settings& s, std::string_view t) { std::size_t n = 0; auto p = number(t, n); if (!p) s.workload.limits.max_exchanges = n; return p; }},
  {"max_drops", "--max-drops", "", "N or P%", "none", "stop when more than N requests, or P % of the packets sent (judged from 100 on), got no reply in time (perfdhcp -D)", false, "",
   [](Settings& s, std::string_view t) { return max_drops(s, t); }},
  {"macs", "--macs", "", "FILE", "seeded", "client i takes the MAC on line i of FILE (perfdhcp -M)", false, "",
   [](Settings& s, std::string_view t) { return read_macs(s, t); }},
  {"base_mac", "--base-mac", "", "MAC", "seeded", "client i takes MAC + i (perfdhcp -b mac=); not with --macs", false, "",
   [](Settings& s, std::string_view t) { return base_mac(s, t); }},
  {"option", "--option", "", "CODE:TYPE:VALUE", "none", "adds the option to every request; TYPE text, hex, u8, u16, u32 or ipv4 (perfdhcp -o)", true, "",
   [](Settings& s, std::string_view t) { return extra_option(s, t); }},
  {"prl", "--prl", "", "LIST", "1,3,6,51,54,58,59", "parameter request list (option 55) in DISCOVER and REQUEST", false, "",
   [](Settings& s, std::string_view t) { return parameter_list(s, t); }},
  {"request_lease_time", "--request-lease-time", "", "D", "none", "ask for this lease time (option 51) in DISCOVER and REQUEST; whole seconds", false, "",
   [](Settings& s, std::string_view t) { return lease_time(s, t); }},
  {"client_group", "--client-group", "", "SPEC", "none", "a share of the clients with options of their own, e.g. share=30%;option=93:u16:7;prl=1,3,6;request_lease_time=10m (see Client groups)", true, "",
   [](Settings& s, std::string_view t) { return client_group(s, t); }},
  // Output.
  {"report", "--report", "", "FILE", "none", "write the JSON report here", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.report_path); }},
  {"timeline", "--timeline", "", "FILE", "none", "write the run over time as CSV, one line per --stats-every", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.timeline_path); }},
  {"stats_every", "--stats-every", "", "D", "1s", "period of the timeline; without --timeline, CSV lines on stdout", false, "",
   [](Settings& s, std::string_view t) { s.stats_every_given = true; return duration(t, s.stats_every); }},
  {"html", "--html", "", "FILE", "none", "write the HTML report (charts) here", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.html_path); }},
  {"pcap", "--pcap", "", "FILE", "none", "write the traffic seen to this pcap file", false, "",
   [](Settings& s, std::string_view t) { return text_into(t, s.pcap_path); }},
};
// clang-format on

std::string where(const std::string& path, const YAML::Mark& mark) {
  return fmt::format("{}:{}:{}", path, mark.line + 1, mark.column + 1);
}

// A YAML map of scalars (or lists of scalars) as "key=value;key=value".
Expected<std::string, std::string> map_as_text(const YAML::Node& node) {
  std::string text;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    std::vector<std::string> values;
    if (entry.second.IsScalar()) {
      values.push_back(entry.second.Scalar());
    } else if (entry.second.IsSequence()) {
      for (const auto& item : entry.second) {
        if (!item.IsScalar()) return unexpected(fmt::format("{} must be a list of scalars", key));
        values.push_back(item.Scalar());
      }
    } else {
      return unexpected(fmt::format("{} must be a scalar or a list", key));
    }
    for (const std::string& value : values) {
      if (value.find(';') != std::string::npos) return unexpected(fmt::format("{} cannot hold ';'", key));
      text += fmt::format("{}{}={}", text.empty() ? "" : ";", key, value);
    }
  }
  return text;
}

}  // namespace

std::span<const SettingSpec> setting_table() { return kTable; }

const SettingSpec* find_setting(std::string_view key) {
  for (const SettingSpec& spec : kTable) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

Expected<void, std::string> read_scenario(const std::string& path, GivenSettings& given) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    return unexpected(
        fmt::format("{}:{}:{}: {}", path, error.mark.line + 1, error.mark.column + 1, error.msg));
  }
  if (!root.IsMap())
    return unexpected(fmt::format("{}: a scenario is a map of settings", where(path, root.Mark())));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    const SettingSpec* spec = find_setting(key);
    if (spec == nullptr) {
      return unexpected(fmt::format("{}: unknown key '{}'", where(path, entry.first.Mark()), key));
    }
    const YAML::Node& value = entry.second;
    std::vector<GivenValue> values;
    const auto add = [&](const YAML::Node& node) -> Expected<void, std::string> {
      const std::string at = fmt::format("{}: {}", where(path, node.Mark()), key);
      if (spec->repeatable && node.IsMap()) {  // {share: 30%, option: [..]}: KEY=VALUE;...
        auto text = map_as_text(node);
        if (!text) return unexpected(fmt::format("{} {}", at, text.error()));
        values.push_back({*text, at});
        return {};
      }
      if (!node.IsScalar()) {
        return unexpected(fmt::format("{} must be {}", at,
                                      spec->repeatable ? "a scalar or a list of scalars"
                                                       : "a scalar"));
      }
      values.push_back({node.Scalar(), at});
      return {};
    };
    if (spec->repeatable && value.IsSequence()) {
      for (const auto& item : value) {
        if (auto added = add(item); !added) return added;
      }
    } else if (auto added = add(value); !added) {
      return added;
    }
    given[key] = std::move(values);
  }
  return {};
}

void FlagValues::declare(CLI::App& app) {
  for (const SettingSpec& spec : kTable) {
    const std::string names =
        spec.short_flag.empty() ? std::string(spec.flag)
                                : fmt::format("{},{}", spec.short_flag, spec.flag);
    if (!spec.switch_sets.empty()) {
      app.add_flag(names, switches_[spec.key], std::string(spec.meaning));
      continue;
    }
    auto* option = app.add_option(names, texts_[spec.key], std::string(spec.meaning))
                       ->type_name(std::string(spec.value_name))
                       ->allow_extra_args(false);
    // A setting that is not a list takes its last value, as a repeated flag always did.
    if (!spec.repeatable) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
}

void FlagValues::take_into(const CLI::App& app, GivenSettings& given) const {
  for (const SettingSpec& spec : kTable) {
    if (app.count(std::string(spec.flag)) == 0) continue;
    std::vector<GivenValue> values;
    if (!spec.switch_sets.empty()) {
      values.push_back({std::string(spec.switch_sets), std::string(spec.flag)});
    } else {
      for (const std::string& text : texts_.at(spec.key)) {
        values.push_back({text, std::string(spec.flag)});
      }
    }
    given[std::string(spec.key)] = std::move(values);
  }
}

std::vector<std::string> apply_given(const GivenSettings& given, Settings& settings) {
  std::vector<std::string> problems;
  for (const SettingSpec& spec : kTable) {
    const auto found = given.find(spec.key);
    if (found == given.end()) continue;
    for (const GivenValue& value : found->second) {
      if (auto problem = spec.apply(settings, value.text)) {
        problems.push_back(fmt::format("{} {}", value.where, *problem));
      }
    }
  }
  return problems;
}

std::string settings_markdown() {
  std::string text = "| flag | scenario key | default | meaning |\n|---|---|---|---|\n";
  for (const SettingSpec& spec : kTable) {
    std::string flag = spec.short_flag.empty() ? fmt::format("`{}", spec.flag)
                                               : fmt::format("`{}`, `{}", spec.short_flag, spec.flag);
    if (!spec.value_name.empty()) flag += fmt::format(" {}", spec.value_name);
    flag += "`";
    const std::string key = spec.switch_sets.empty()
                                ? fmt::format("`{}`{}", spec.key, spec.repeatable ? " (list)" : "")
                                : fmt::format("`{}: {}`", spec.key, spec.switch_sets);
    text += fmt::format("| {}{} | {} | {} | {} |\n", flag, spec.repeatable ? " (repeatable)" : "",
                        key, spec.default_text.empty() ? "" : spec.default_text, spec.meaning);
  }
  return text;
}

}  // namespace landlord::sim::cli
