#include "landlord/sim/report.hpp"

#include <fmt/format.h>

#include "landlord/base/hex.hpp"

namespace landlord::sim {

namespace {

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\u";
      append_hex(out, static_cast<unsigned char>(c), 4);
      continue;
    }
    out += c;
  }
  return out;
}

// The report's name for each exchange's latency: from request to the reply that answered it.
std::string_view latency_name(Exchange exchange) {
  switch (exchange) {
    case Exchange::Discover: return "discover_offer";
    case Exchange::Request: return "request_ack";
    case Exchange::Reboot: return "reboot";
    case Exchange::Renew: return "renew";
    case Exchange::Rebind: return "rebind";
    case Exchange::Decline: return "decline";
    case Exchange::Release: return "release";
  }
  return "?";
}

bool has_replies(Exchange exchange) {
  return exchange != Exchange::Decline && exchange != Exchange::Release;
}

// count, mean and percentiles of a distribution, `digits` after the point.
std::string distribution_json(const Distribution& d, int digits) {
  return fmt::format(
      R"({{"count": {}, "mean": {:.{}f}, "p50": {:.{}f}, "p90": {:.{}f}, "p99": {:.{}f}, "p99_9": {:.{}f}, "max": {:.{}f}}})",
      d.count, d.mean, digits, d.p50, digits, d.p90, digits, d.p99, digits, d.p999, digits, d.max,
      digits);
}

std::string fraction_json(std::size_t count, std::size_t started, const Histogram& fractions) {
  const Distribution d = fractions.summary();
  return fmt::format(
      R"({{"count": {}, "started": {}, "lease_fraction_p50": {:.4f}, "lease_fraction_p99": {:.4f}, "lease_fraction": {}}})",
      count, started, d.p50, d.p99, distribution_json(d, 4));
}

}  // namespace

std::string report_json(const Fleet& fleet, const RunInfo& info) {
  const Stats& s = fleet.stats();
  std::string out = "{\n";
  out += fmt::format(R"(  "schema_version": {},)"
                     "\n",
                     kReportSchemaVersion);
  out += fmt::format(R"(  "transport": "{}",)"
                     "\n",
                     escaped(info.transport));
  out += fmt::format(R"(  "transport_note": "{}",)"
                     "\n",
                     escaped(info.transport_note));
  out += fmt::format(R"(  "seed": {}, "duration_s": {:.1f}, "elapsed_s": {:.3f}, "cpu_s": {:.3f},)"
                     "\n",
                     info.seed, std::chrono::duration<double>(fleet.workload().duration).count(),
                     info.elapsed_s, info.cpu_s);
  const Workload& w = fleet.workload();
  out += fmt::format(
      R"(  "workload": {{"clients": {}, "rate_per_s": {}, "stay_s": {:.1f}, "release": {}, "vanish": {}, "decline": {}, "restart_clients": {}, "drop_replies": {}, "block_unicast": {}, "retransmit_base_ms": {}, "renew_min_ms": {}, "client_id": {}}},)"
      "\n",
      w.clients, w.arrival_rate_per_s, std::chrono::duration<double>(w.stay).count(),
      w.release_fraction, w.vanish_fraction, w.decline_fraction, w.restart_fraction, w.drop_replies,
      w.block_unicast ? fmt::format(R"({{"from_s": {:.1f}, "length_s": {:.1f}}})",
                                    std::chrono::duration<double>(w.block_unicast->from).count(),
                                    std::chrono::duration<double>(w.block_unicast->length).count())
                      : std::string("null"),
      w.timing.retransmit_base.count(), w.timing.renew_retransmit_min.count(),
      w.send_client_id ? "true" : "false");
  out += fmt::format(R"(  "clients": {}, "offers": {}, "leases_acquired": {}, "reboots": {},)"
                     "\n",
                     s.clients_started, s.offers, s.leases, s.reboots);
  out += fmt::format(R"(  "renewals": {},)"
                     "\n",
                     fraction_json(s.renewals, s.renew_started, s.renew_fraction));
  out += fmt::format(R"(  "rebinds": {},)"
                     "\n",
                     fraction_json(s.rebinds, s.rebind_started, s.rebind_fraction));
  out += fmt::format(
      R"(  "expirations": {}, "releases": {}, "declines": {}, "vanished": {}, "naks": {}, "timeouts": {}, "gave_up": {},)"
      "\n",
      s.expirations, s.releases, s.declines, s.vanished, s.naks, s.retransmissions, s.gave_up);
  const double packets = static_cast<double>(s.packets_sent + s.packets_received);
  out += fmt::format(
      R"(  "packets": {{"sent": {}, "received": {}, "replies_dropped": {}, "unicast_blocked": {}, "unparsable": {}, "per_cpu_second": {:.0f}, "receive_drops": {}}},)"
      "\n",
      s.packets_sent, s.packets_received, s.replies_dropped, s.unicast_blocked, s.unparsable,
      info.cpu_s > 0 ? packets / info.cpu_s : 0.0,
      info.receive_drops ? fmt::format("{}", *info.receive_drops) : std::string("null"));
  out += "  \"latency_ms\": {";
  bool first = true;
  for (std::size_t i = 0; i < kExchangeCount; ++i) {
    const auto exchange = static_cast<Exchange>(i);
    if (!has_replies(exchange)) continue;
    out += fmt::format(R"({}"{}": {})", first ? "" : ", ", latency_name(exchange),
                       distribution_json(s.latency_ms[i].summary(), 3));
    first = false;
  }
  out += "},\n  \"states_at_end\": {";
  const auto states = fleet.state_counts();
  for (std::size_t i = 0; i < kClientStateCount; ++i) {
    out += fmt::format(R"({}"{}": {})", i ? ", " : "", to_string(static_cast<ClientState>(i)),
                       states[i]);
  }
  out += "},\n";
  if (info.closed_loop) {
    out += fmt::format(R"(  "closed_loop": {},)"
                       "\n",
                       closed_loop_json(*info.closed_loop));
  }
  const Auditor& auditor = fleet.auditor();
  out += fmt::format(R"(  "violation_count": {},)"
                     "\n",
                     auditor.violation_count());
  out += "  \"violations\": [";
  for (std::size_t i = 0; i < auditor.violations().size(); ++i) {
    const Violation& v = auditor.violations()[i];
    out += fmt::format(
        R"({}{{"kind": "{}", "at_s": {:.3f}, "detail": "{}", "exchange": "{}"}})",
        i ? ",\n    " : "\n    ", to_string(v.kind),
        std::chrono::duration<double>(v.at - fleet.start()).count(), escaped(v.detail),
        escaped(v.exchange));
  }
  out += auditor.violations().empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

std::string report_text(const Fleet& fleet, const RunInfo& info) {
  const Stats& s = fleet.stats();
  const Distribution renew = s.renew_fraction.summary();
  const Distribution rebind = s.rebind_fraction.summary();
  std::string out;
  out += fmt::format("transport: {} — {}\n", info.transport, info.transport_note);
  out += fmt::format("clients {}  leases {}  offers {}  reboots {}\n", s.clients_started, s.leases,
                     s.offers, s.reboots);
  out += fmt::format("renewals {} (at lease fraction p50 {:.3f}, p99 {:.3f}; {} started)\n",
                     s.renewals, renew.p50, renew.p99, s.renew_started);
  out += fmt::format("rebinds {} (at lease fraction p50 {:.3f}, p99 {:.3f}; {} started)\n",
                     s.rebinds, rebind.p50, rebind.p99, s.rebind_started);
  out += fmt::format(
      "expirations {}  releases {}  declines {}  vanished {}  naks {}  timeouts {}  gave up {}\n",
      s.expirations, s.releases, s.declines, s.vanished, s.naks, s.retransmissions, s.gave_up);
  out += fmt::format("packets sent {}  received {}  dropped (injected) {}  unicast blocked {}",
                     s.packets_sent, s.packets_received, s.replies_dropped, s.unicast_blocked);
  if (info.receive_drops) out += fmt::format("  lost in our full receive queue {}", *info.receive_drops);
  out += "\n";
  for (std::size_t i = 0; i < kExchangeCount; ++i) {
    const auto exchange = static_cast<Exchange>(i);
    if (!has_replies(exchange) || s.latency_ms[i].count() == 0) continue;
    const Distribution p = s.latency_ms[i].summary();
    out += fmt::format(
        "latency {:<15} n={:<8} p50 {:.3f}  p90 {:.3f}  p99 {:.3f}  p99.9 {:.3f}  max {:.3f}  "
        "mean {:.3f} ms\n",
        latency_name(exchange), p.count, p.p50, p.p90, p.p99, p.p999, p.max, p.mean);
  }
  const double packets = static_cast<double>(s.packets_sent + s.packets_received);
  out += fmt::format("elapsed {:.2f} s  cpu {:.2f} s  packets per cpu-second {:.0f}\n",
                     info.elapsed_s, info.cpu_s, info.cpu_s > 0 ? packets / info.cpu_s : 0.0);
  if (info.closed_loop) out += closed_loop_text(*info.closed_loop);
  const Auditor& auditor = fleet.auditor();
  out += fmt::format("violations: {}\n", auditor.violation_count());
  for (const Violation& v : auditor.violations()) {
    out += fmt::format("  {}: {}\n    shown by: {}\n", to_string(v.kind), v.detail, v.exchange);
  }
  return out;
}

std::string closed_loop_json(const ClosedLoop& loop) {
  const ClosedLoopPlan& plan = loop.plan();
  std::string out = fmt::format(
      R"({{"start_rate_per_s": {}, "factor": {}, "step_s": {:.3f}, "deadline_ms": {}, "max_miss_fraction": {}, "max_steps": {}, "steps": [)",
      plan.start_rate_per_s, plan.factor, std::chrono::duration<double>(plan.step).count(),
      plan.deadline.count(), plan.max_miss_fraction, plan.max_steps);
  const auto& steps = loop.steps();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepResult& step = steps[i];
    out += fmt::format(
        R"({}{{"rate": {:.3f}, "clients": {}, "completed": {}, "completed_per_s": {:.3f}, "replies_missed": {}, "miss_fraction": {:.5f}, "passed": {}}})",
        i ? ", " : "", step.rate_per_s, step.clients, step.completed, step.completed_per_s,
        step.replies_missed, step.miss_fraction, step.passed ? "true" : "false");
  }
  const auto sustainable = loop.sustainable_dora_per_s();
  out += fmt::format(R"(], "sustainable_dora_per_s": {}, "stopped_by": "{}"}})",
                     sustainable ? fmt::format("{:.3f}", *sustainable) : std::string("null"),
                     to_string(loop.stop_reason()));
  return out;
}

std::string closed_loop_text(const ClosedLoop& loop) {
  const ClosedLoopPlan& plan = loop.plan();
  std::string out = fmt::format(
      "closed loop: steps of {:.1f} s, x{} per step, a reply later than {} ms is a miss, a step "
      "fails above {:.2f} % missed\n",
      std::chrono::duration<double>(plan.step).count(), plan.factor, plan.deadline.count(),
      plan.max_miss_fraction * 100);
  for (const StepResult& step : loop.steps()) {
    out += fmt::format(
        "  step rate {:10.1f}/s  clients {:7}  completed {:10.1f}/s  missed {:6.2f} % {}\n",
        step.rate_per_s, step.clients, step.completed_per_s, step.miss_fraction * 100,
        step.passed ? "pass" : "FAIL");
  }
  const auto sustainable = loop.sustainable_dora_per_s();
  out += sustainable ? fmt::format("sustainable: {:.1f} DORA/s", *sustainable)
                     : std::string("sustainable: none (the first step failed)");
  out += fmt::format(" (stopped by {})\n", to_string(loop.stop_reason()));
  return out;
}

std::string progress_line(const Fleet& fleet, double elapsed_s) {
  const auto states = fleet.state_counts();
  const Stats& s = fleet.stats();
  std::string line = fmt::format("{:7.1f}s", elapsed_s);
  for (std::size_t i = 0; i < kClientStateCount; ++i) {
    if (states[i] == 0) continue;
    line += fmt::format(" {} {}", to_string(static_cast<ClientState>(i)), states[i]);
  }
  line += fmt::format(
      " | leases {} renew {} rebind {} | {:.0f} pkt/s | violations {}", s.leases, s.renewals,
      s.rebinds,
      elapsed_s > 0 ? static_cast<double>(s.packets_sent + s.packets_received) / elapsed_s : 0.0,
      fleet.auditor().violation_count());
  return line;
}

}  // namespace landlord::sim
