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
#include "setting_table.hpp"
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
  cli::GivenSettings given;
  const std::string scenario = scenario_argument(argc, argv);
  if (!scenario.empty()) {
    if (auto read = cli::read_scenario(scenario, given); !read) {
      std::cerr << "landlord-sim: " << read.error() << "\n";
      return kExitUsage;
    }
  }

  Workload& w = settings.workload;
  ClosedLoopPlan& plan = settings.closed_loop_plan;
  bool settings_table = false;
  cli::FlagValues flags;
  CLI::App app{"landlord-sim: RFC 2131 client fleet simulator and server auditor"};
  app.set_version_flag("--version", landlord::version_line("landlord-sim"));
  app.add_option("--scenario", "scenario YAML file (flags given here override it)");
  app.add_flag("--settings-table", settings_table,
               "print every setting (flag, scenario key, default) as a markdown table");
  flags.declare(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help is a success; any other parse error is a usage error: exit 2, not CLI11's own code.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : kExitUsage;
  }
  if (settings_table) {
    std::fputs(cli::settings_markdown().c_str(), stdout);
    return 0;
  }
  flags.take_into(app, given);
  auto problems = cli::apply_given(given, settings);
  if (problems.empty()) problems = cli::check_settings(settings);
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
  if (settings.closed_loop) {
    plan.start_rate_per_s = w.arrival_rate_per_s;
    if (settings.clients_given) plan.max_clients = w.clients;
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
  if (settings.closed_loop) loop.emplace(plan, fleet, clock.now());

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
  if (settings.check_option82 && !transport->relay_agent_info().empty()) {
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
