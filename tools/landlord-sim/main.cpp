// landlord-sim: thousands of RFC 2131 clients in one process, playing whole lease lifecycles
// against a real DHCPv4 server and judging it from its replies. Wiring only: the client machine,
// fleet, auditor and transports live in src/sim.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <memory>
#include <optional>

#include "landlord/base/version.hpp"
#include "landlord/sim/report.hpp"
#include "landlord/sim/timeline.hpp"
#include "landlord/sim/transport.hpp"
#include "outputs.hpp"
#include "settings.hpp"

namespace {

using namespace landlord;
using namespace landlord::sim;

volatile bool g_stop = false;
extern "C" void on_signal(int) { g_stop = true; }

constexpr int kExitViolations = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnreachable = 3;

// --scenario is read before the flags so that flags given on the command line win.
std::string scenario_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--scenario" && i + 1 < argc) return argv[i + 1];
    if (arg.starts_with("--scenario=")) return std::string(arg.substr(11));
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  cli::Settings settings;
  const std::string scenario = scenario_argument(argc, argv);
  if (!scenario.empty()) {
    if (auto loaded = cli::load_scenario(scenario, settings); !loaded) {
      std::cerr << "landlord-sim: " << loaded.error() << "\n";
      return kExitUsage;
    }
  }

  Workload& w = settings.workload;
  std::string duration, stay, block_unicast, retransmit_base, renew_minimum, decline_wait;
  bool no_client_id = false;
  bool no_option82_check = false;
  bool& closed_loop = settings.closed_loop;
  ClosedLoopPlan& plan = settings.closed_loop_plan;
  std::string step, deadline, stats_every;
  cli::PerfdhcpFlags perfdhcp;
  CLI::App app{"landlord-sim: RFC 2131 client fleet simulator and server auditor"};
  app.set_version_flag("--version", landlord::version_line("landlord-sim"));
  app.add_option("--scenario", "scenario YAML file (flags given here override it)");
  app.add_option("--server", settings.server,
                 "relay mode: the server's ADDR[:PORT] (port 67 by default)");
  app.add_option("--bind", settings.bind, "relay mode: our ADDR[:PORT]; ADDR becomes giaddr");
  app.add_option("--interface", settings.interface,
                 "L2 mode: send Ethernet frames on this interface");
  // Checked as text first: a negative count must not wrap around into an unsigned one.
  app.add_option("--clients", w.clients, "number of clients")->check(CLI::NonNegativeNumber);
  app.add_option("--rate", w.arrival_rate_per_s, "new clients per second");
  app.add_option("--duration", duration, "length of the run (e.g. 60s, 5m)");
  app.add_option("--stay", stay,
                 "mean stay of departing/restarting clients (default: half the run)");
  app.add_option("--release", w.release_fraction, "fraction of clients that depart with RELEASE")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--vanish", w.vanish_fraction, "fraction that depart silently")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--decline", w.decline_fraction, "fraction that DECLINE their first address")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--restart-clients", w.restart_fraction,
                 "fraction that restart once (INIT-REBOOT)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--drop-replies", w.drop_replies, "fraction of server replies lost")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--block-unicast", block_unicast,
                 "FROM+LEN: RENEWING requests dropped in this window (e.g. 30s+60s)");
  app.add_option("--retransmit-base", retransmit_base,
                 "first retransmission delay (RFC: 4s; doubles to 16x, jitter 1/4)");
  app.add_option("--renew-min", renew_minimum,
                 "minimum RENEWING/REBINDING retransmission wait (RFC: 60s)");
  app.add_option("--decline-wait", decline_wait,
                 "wait after a DECLINE before restarting (RFC: 10s)");
  app.add_option("--seed", w.seed, "seed for MACs, xids, fates and jitter")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-client-id", no_client_id,
               "send no option 61: the server keys clients by chaddr");
  app.add_flag("--no-option82-check", no_option82_check,
               "relay mode: do not require replies to echo our option 82 (RFC 3046 §2.2)");
  app.add_flag("--closed-loop", closed_loop,
               "benchmark: fresh clients from --rate up, x--step-factor per step, until a step "
               "misses more than --max-miss of its replies; --duration caps it, --clients (if "
               "given) caps the clients over all steps");
  app.add_option("--step", step, "closed loop: arrivals of one step (default 5s)");
  app.add_option("--step-factor", plan.factor, "closed loop: rate factor per step (default 1.25)")
      ->check(CLI::Range(1.0001, 100.0));
  app.add_option("--deadline", deadline,
                 "closed loop: an OFFER or ACK later than this is a miss (default 1s)");
  app.add_option("--max-miss", plan.max_miss_fraction,
                 "closed loop: a step fails when more than this fraction of replies miss "
                 "(default 0.025)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-steps", plan.max_steps, "closed loop: at most this many steps (default 20)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--max-exchanges", w.limits.max_exchanges,
                 "stop after this many completed exchanges (OFFER, ACK or NAK received)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-drops", perfdhcp.max_drops,
                 "stop when more than N requests, or P% of packets sent, got no reply in time");
  app.add_option("--macs", perfdhcp.macs_path, "client MACs from this file, one per line");
  app.add_option("--base-mac", perfdhcp.base_mac, "client i gets this MAC + i");
  app.add_option("--option", perfdhcp.options,
                 "CODE:TYPE:VALUE added to every request (TYPE text, hex, u8, u16, u32, ipv4); "
                 "repeatable, e.g. 60:text:PXEClient")
      ->allow_extra_args(false);
  app.add_option("--prl", perfdhcp.prl, "parameter request list (option 55), e.g. 1,3,6,51");
  app.add_option("--request-lease-time", perfdhcp.request_lease_time,
                 "ask for this lease time (option 51), e.g. 1h");
  app.add_option("--report", settings.report_path, "write the JSON report here");
  app.add_option("--timeline", settings.timeline_path,
                 "write the run over time here as CSV, one line per --stats-every");
  app.add_option("--stats-every", stats_every,
                 "period of the timeline (default 1s); without --timeline, CSV lines on stdout");
  app.add_option("--html", settings.html_path, "write the HTML report (charts) here");
  app.add_option("--pcap", settings.pcap_path, "write the traffic seen to this pcap file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help is a success; any other parse error is a usage error: exit 2, not CLI11's own code.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : kExitUsage;
  }

  const auto set_duration = [](const std::string& text, Duration& out, const char* flag) {
    if (text.empty()) return true;
    const auto parsed = cli::parse_duration(text);
    if (!parsed)
      std::cerr << "landlord-sim: " << flag << ": " << parsed.error() << "\n";
    else
      out = *parsed;
    return parsed.has_value();
  };
  if (!set_duration(duration, w.duration, "--duration") || !set_duration(stay, w.stay, "--stay") ||
      !set_duration(retransmit_base, settings.retransmit_base, "--retransmit-base") ||
      !set_duration(renew_minimum, settings.renew_minimum, "--renew-min") ||
      !set_duration(decline_wait, settings.decline_wait, "--decline-wait") ||
      !set_duration(step, plan.step, "--step") ||
      !set_duration(deadline, plan.deadline, "--deadline") ||
      !set_duration(stats_every, settings.stats_every, "--stats-every")) {
    return kExitUsage;
  }
  settings.stats_every_given = !stats_every.empty();
  if (!block_unicast.empty()) {
    w.block_unicast = cli::parse_window(block_unicast);
    if (!w.block_unicast) {
      std::cerr << "landlord-sim: --block-unicast wants FROM+LEN, e.g. 30s+60s\n";
      return kExitUsage;
    }
  }
  if (no_client_id) w.send_client_id = false;
  auto problems = cli::check_settings(settings);
  for (auto& problem : cli::apply_perfdhcp_flags(perfdhcp, settings)) {
    problems.push_back(std::move(problem));
  }
  if (!problems.empty()) {
    for (const auto& problem : problems) std::cerr << "landlord-sim: " << problem << "\n";
    return kExitUsage;
  }
  // Opened now, so that a path that cannot be written stops the run before it starts.
  auto outputs = cli::Outputs::open(settings);
  if (!outputs) {
    std::cerr << "landlord-sim: " << outputs.error() << "\n";
    return kExitUsage;
  }
  w.timing = Timing::with_retransmit_base(settings.retransmit_base, settings.renew_minimum);
  w.timing.decline_restart = settings.decline_wait;
  if (closed_loop) {
    plan.start_rate_per_s = w.arrival_rate_per_s;
    if (settings.clients_given || app.count("--clients") > 0) plan.max_clients = w.clients;
    // A MAC list (or a base near the top) names only so many clients: the search stops there.
    if (!w.macs.empty() || w.base_mac) {
      const std::size_t names = !w.macs.empty() ? w.macs.size()
                                                : ClientMacs::counted_from(*w.base_mac).capacity();
      plan.max_clients = plan.max_clients == 0 ? names : std::min(plan.max_clients, names);
    }
    w.clients = 0;  // the steps bring their own
  }

  const RunClock clock;
  Fleet fleet(w, clock.now());
  std::optional<ClosedLoop> loop;
  if (closed_loop) loop.emplace(plan, fleet, clock.now());

  std::unique_ptr<Transport> transport;
  if (!settings.server.empty()) {
    const auto server = parse_endpoint(settings.server, 67);
    const auto bind = parse_endpoint(settings.bind, 0);
    if (!server || !bind) {
      std::cerr << "landlord-sim: --server/--bind want ADDR[:PORT]\n";
      return kExitUsage;
    }
    auto opened = open_relay_transport(*server, *bind);
    if (!opened) {
      std::cerr << "landlord-sim: " << opened.error() << "\n";
      return kExitUsage;
    }
    transport = std::move(*opened);
  } else {
    auto opened = open_packet_transport(
        settings.interface, [&fleet](Ipv4 address) { return fleet.holder_of(address); });
    if (!opened) {
      std::cerr << "landlord-sim: " << opened.error() << "\n";
      return kExitUsage;
    }
    transport = std::move(*opened);
  }
  if (!no_option82_check && !transport->relay_agent_info().empty()) {
    fleet.auditor().expect_relay_agent_info(transport->relay_agent_info());
  }
  std::unique_ptr<PcapWriter> pcap;
  if (!settings.pcap_path.empty()) {
    auto opened = PcapWriter::open(settings.pcap_path);
    if (!opened) {
      std::cerr << "landlord-sim: " << opened.error() << "\n";
      return kExitUsage;
    }
    pcap = std::move(*opened);
    transport->capture_to(pcap.get());
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const bool terminal = ::isatty(STDOUT_FILENO) != 0;
  const auto progress = [&](double elapsed_s) {
    std::string line = progress_line(fleet, elapsed_s);
    if (loop && loop->stop_reason() == ClosedLoopStop::Running) {
      line += fmt::format(" | step {} at {:.0f}/s", loop->steps().size() + 1,
                          loop->current_rate_per_s());
    }
    std::fputs(fmt::format("\r{}\x1b[K", line).c_str(), stdout);
    std::fflush(stdout);
  };
  std::optional<Timeline> timeline;
  if ((*outputs)->wants_timeline()) timeline.emplace(fleet);
  // Each period: the timeline's sample, then the terminal's line drawn again below it.
  const auto each_period = [&](double elapsed_s) {
    if (timeline) {
      if (terminal && (*outputs)->timeline_on_stdout()) std::fputs("\r\x1b[K", stdout);
      (*outputs)->write_sample(timeline->sample(elapsed_s));
    }
    if (terminal) progress(elapsed_s);
  };
  const auto periodic =
      terminal || timeline ? std::function<void(double)>(each_period) : nullptr;
  if (loop) {
    std::fputs(fmt::format("closed loop: up to {} fresh clients if all {} steps pass; the pool "
                           "must hold them all\n",
                           loop->clients_needed(), plan.max_steps)
                   .c_str(),
               stdout);
  }
  const RealtimeResult result =
      loop ? run_realtime(*loop, *transport, g_stop, periodic, settings.stats_every)
           : run_realtime(fleet, *transport, g_stop, periodic, settings.stats_every);
  if (terminal) std::fputs("\n", stdout);
  // The last, shorter period too, so the series reaches the end of the run.
  if (timeline && (timeline->samples().empty() ||
                   result.elapsed_s > timeline->samples().back().at_s + 0.001)) {
    (*outputs)->write_sample(timeline->sample(result.elapsed_s));
  }

  const RunInfo info{transport->name(), transport->note(), w.seed,
                     result.elapsed_s,  result.cpu_s,      loop ? &*loop : nullptr,
                     transport->receive_drops()};
  std::fputs(report_text(fleet, info).c_str(), stdout);
  if (const StopReason reason = fleet.stop_reason(clock.now());
      reason == StopReason::MaxExchanges || reason == StopReason::MaxDrops) {
    std::fputs(fmt::format("stopped by --{}\n", to_string(reason)).c_str(), stdout);
  }
  if (auto finished = (*outputs)->finish(fleet, info, timeline ? &*timeline : nullptr); !finished) {
    std::cerr << "landlord-sim: " << finished.error() << "\n";
    return kExitUsage;
  }
  if (!settings.html_path.empty()) {
    std::fputs(fmt::format("HTML report: {}\n", settings.html_path).c_str(), stdout);
  }
  if (fleet.auditor().violation_count() > 0) return kExitViolations;
  if (fleet.stats().packets_sent > 0 && fleet.stats().packets_received == 0) {
    std::cerr << "landlord-sim: no reply from the server to " << fleet.stats().packets_sent
              << " packets: unreachable\n";
    return kExitUnreachable;
  }
  return 0;
}
