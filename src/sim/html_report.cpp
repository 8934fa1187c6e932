#include "landlord/sim/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "landlord/sim/svg_chart.hpp"

namespace landlord::sim {

namespace {

constexpr std::size_t kFractionBins = 100;

struct StateStyle {
  ClientState state;
  const char* name;
  const char* colour;
};
// Figure 5's states in the order a lease lives them; INIT-REBOOT and REBOOTING drawn together.
constexpr std::array<StateStyle, 7> kStateStyles = {{
    {ClientState::Init, "INIT", "#9e9e9e"},
    {ClientState::Selecting, "SELECTING", "#f2c744"},
    {ClientState::Requesting, "REQUESTING", "#f28e2b"},
    {ClientState::Rebooting, "REBOOTING", "#b07aa1"},
    {ClientState::Bound, "BOUND", "#59a14f"},
    {ClientState::Renewing, "RENEWING", "#4e79a7"},
    {ClientState::Rebinding, "REBINDING", "#e15759"},
}};

Chart make_chart(std::string id, std::string title, std::string x_label, std::string y_label,
                 ChartKind kind = ChartKind::Lines) {
  Chart chart;
  chart.id = std::move(id);
  chart.title = std::move(title);
  chart.x_label = std::move(x_label);
  chart.y_label = std::move(y_label);
  chart.kind = kind;
  return chart;
}

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

std::size_t state_count(const TimelineSample& s, ClientState state) {
  std::size_t count = s.states[static_cast<std::size_t>(state)];
  if (state == ClientState::Rebooting) count += s.states[static_cast<std::size_t>(ClientState::InitReboot)];
  return count;
}

// The injected faults, as bands on every chart over time.
std::vector<ChartBand> fault_bands(const Fleet& fleet, double run_s) {
  std::vector<ChartBand> bands;
  const Workload& w = fleet.workload();
  if (w.drop_replies > 0) {
    bands.push_back({0, run_s, fmt::format("{:.1f} % of replies dropped (--drop-replies)",
                                           w.drop_replies * 100)});
  }
  if (w.block_unicast) {
    const double from = seconds(w.block_unicast->from);
    bands.push_back({from, from + seconds(w.block_unicast->length),
                     "renewals blocked (--block-unicast)"});
  }
  return bands;
}

ChartSeries series_over_time(const std::vector<TimelineSample>& samples, std::string name,
                             std::string colour,
                             const std::function<std::optional<double>(const TimelineSample&)>& value) {
  ChartSeries series{std::move(name), std::move(colour), {}, {}};
  for (const TimelineSample& s : samples) {
    // Nothing measured in a period: a gap in the line, not a line drawn across it.
    series.x.push_back(s.at_s);
    series.y.push_back(value(s).value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  return series;
}

double per_second(std::size_t count, const TimelineSample& s) {
  return s.length_s > 0 ? static_cast<double>(count) / s.length_s : 0;
}

// A lease-fraction histogram re-binned into 100 linear bins over [0, 1].
ChartSeries fraction_bins(const Histogram& fractions, std::string name, std::string colour) {
  ChartSeries series{std::move(name), std::move(colour), {}, {}};
  std::vector<double> bins(kFractionBins, 0);
  for (const auto& bucket : fractions.buckets()) {
    const double middle = (bucket.low + bucket.high) / 2;
    const auto bin = std::min<std::size_t>(
        kFractionBins - 1, static_cast<std::size_t>(std::max(0.0, middle) * kFractionBins));
    bins[bin] += static_cast<double>(bucket.count);
  }
  for (std::size_t i = 0; i < kFractionBins; ++i) {
    series.x.push_back(static_cast<double>(i) / kFractionBins);
    series.y.push_back(bins[i]);
  }
  return series;
}

// The cumulative share of exchanges answered within each latency (ms, log scale).
ChartSeries latency_cdf(const Histogram& latencies, std::string name, std::string colour) {
  ChartSeries series{std::move(name), std::move(colour), {}, {}};
  if (latencies.count() == 0) return series;
  std::uint64_t seen = 0;
  for (const auto& bucket : latencies.buckets()) {
    seen += bucket.count;
    series.x.push_back(std::max(bucket.high, latencies.resolution()));
    series.y.push_back(static_cast<double>(seen) / static_cast<double>(latencies.count()));
  }
  return series;
}

std::string row(std::string_view label, std::string_view key, const std::string& value) {
  return fmt::format(R"(<tr><th>{}</th><td data-key="{}">{}</td></tr>)", html_escaped(label),
                     key, html_escaped(value));
}

std::string summary_table(const Fleet& fleet, const RunInfo& info) {
  const Stats& s = fleet.stats();
  const auto count = [](std::size_t n) { return fmt::format("{}", n); };
  std::string out = R"(<table id="summary"><tbody>)";
  out += row("clients", "clients", count(s.clients_started));
  out += row("leases acquired (ACK in REQUESTING/REBOOTING)", "leases_acquired", count(s.leases));
  out += row("renewals (ACK in RENEWING)", "renewals.count", count(s.renewals));
  out += row("rebinds (ACK in REBINDING)", "rebinds.count", count(s.rebinds));
  out += row("renewal lease fraction p50", "renewals.lease_fraction_p50",
             fmt::format("{:.4f}", s.renew_fraction.percentile(0.5)));
  out += row("rebind lease fraction p50", "rebinds.lease_fraction_p50",
             fmt::format("{:.4f}", s.rebind_fraction.percentile(0.5)));
  out += row("expirations", "expirations", count(s.expirations));
  out += row("NAKs", "naks", count(s.naks));
  out += row("timeouts (retransmissions)", "timeouts", count(s.retransmissions));
  out += row("packets sent", "packets.sent", count(s.packets_sent));
  out += row("packets received", "packets.received", count(s.packets_received));
  out += row("replies dropped (injected)", "packets.replies_dropped", count(s.replies_dropped));
  out += row("renewals blocked (injected)", "packets.unicast_blocked", count(s.unicast_blocked));
  out += row("violations", "violation_count", count(fleet.auditor().violation_count()));
  out += row("elapsed (s)", "elapsed_s", fmt::format("{:.1f}", info.elapsed_s));
  out += "</tbody></table>\n";
  return out;
}

std::string latency_table(const Stats& s) {
  std::string out =
      R"(<table id="latency"><thead><tr><th>exchange (ms)</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr></thead><tbody>)";
  const std::array<std::pair<Exchange, const char*>, 5> rows = {{
      {Exchange::Discover, "discover_offer"},
      {Exchange::Request, "request_ack"},
      {Exchange::Reboot, "reboot"},
      {Exchange::Renew, "renew"},
      {Exchange::Rebind, "rebind"},
  }};
  for (const auto& [exchange, key] : rows) {
    const Distribution d = s.latency_ms[static_cast<std::size_t>(exchange)].summary();
    out += fmt::format(
        R"(<tr><th>{0}</th><td data-key="latency_ms.{0}.count">{1}</td><td>{2:.3f}</td><td data-key="latency_ms.{0}.p50">{3:.3f}</td><td>{4:.3f}</td><td data-key="latency_ms.{0}.p99">{5:.3f}</td><td>{6:.3f}</td><td>{7:.3f}</td></tr>)",
        key, d.count, d.mean, d.p50, d.p90, d.p99, d.p999, d.max);
  }
  out += "</tbody></table>\n";
  return out;
}

std::string violations_section(const Fleet& fleet) {
  const Auditor& auditor = fleet.auditor();
  std::string out = fmt::format(R"(<h2>Violations: <span data-key="violations">{}</span></h2>)",
                                auditor.violation_count());
  if (auditor.violations().empty()) {
    return out + "<p>The auditor found nothing wrong in the server's replies.</p>\n";
  }
  out += R"(<table id="violations"><thead><tr><th>at (s)</th><th>kind</th><th>what</th><th>the exchange that showed it</th></tr></thead><tbody>)";
  for (const Violation& v : auditor.violations()) {
    out += fmt::format("<tr><td>{:.3f}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                       seconds(v.at - fleet.start()), to_string(v.kind), html_escaped(v.detail),
                       html_escaped(v.exchange));
  }
  out += "</tbody></table>\n";
  if (auditor.violation_count() > auditor.violations().size()) {
    out += fmt::format("<p>Only the first {} are listed.</p>\n", auditor.violations().size());
  }
  return out;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.45 sans-serif; margin: 24px auto; max-width: 960px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 2px 10px; text-align: left; }
td { font-variant-numeric: tabular-nums; } tbody tr:nth-child(odd) { background: #f4f4f4; }
svg.chart { width: 100%; height: auto; background: #fff; border: 1px solid #ddd; margin: 6px 0; }
svg .grid { stroke: #eee; } svg .axis { stroke: #555; }
svg text { font: 11px sans-serif; fill: #333; } svg .title { font-size: 14px; font-weight: bold; }
svg .label { font-size: 12px; } svg polyline { fill: none; stroke-width: 1.8; }
svg .band rect { fill: #e15759; opacity: 0.12; } svg .band text { fill: #a33; }
svg .marker line { stroke: #222; stroke-dasharray: 4 3; } svg .marker text { font-weight: bold; }
code { font-size: 12px; }
)";

}  // namespace

std::string report_html(const Fleet& fleet, const RunInfo& info, const Timeline& timeline) {
  const Stats& s = fleet.stats();
  const Workload& w = fleet.workload();
  const auto& samples = timeline.samples();
  const double run_s = samples.empty() ? info.elapsed_s : samples.back().at_s;
  const std::vector<ChartBand> bands = fault_bands(fleet, run_s);
  const double t1 = s.granted_t1_fraction.count() ? s.granted_t1_fraction.percentile(0.5) : 0.5;
  const double t2 = s.granted_t2_fraction.count() ? s.granted_t2_fraction.percentile(0.5) : 0.875;

  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<title>landlord-sim report</title><style>";
  out += kStyle;
  out += "</style></head><body>\n<h1>landlord-sim report</h1>\n";
  out += fmt::format(
      "<p>Transport <b>{}</b> ({}); seed {}; {} clients arriving at {}/s; run of {:.1f} s.</p>\n",
      html_escaped(info.transport), html_escaped(info.transport_note), info.seed, w.clients,
      w.arrival_rate_per_s, info.elapsed_s);
  out += fmt::format(
      "<p>Each client holds its lease in BOUND until T1 (here at <b>{:.3f}</b> of the lease), then "
      "asks its own server to extend it by unicast (RENEWING). If no ACK comes by T2 (<b>{:.3f}</b>)"
      " it broadcasts to any server (REBINDING); at the end of the lease it starts over from "
      "INIT. Shaded: the faults this run injected.</p>\n",
      t1, t2);
  out += summary_table(fleet, info);

  Chart states = make_chart("chart-states", "Clients by state", "time (s)", "clients", ChartKind::StackedArea);
  for (const StateStyle& style : kStateStyles) {
    states.series.push_back(series_over_time(samples, style.name, style.colour,
                                             [&](const TimelineSample& t) -> std::optional<double> {
                                               return static_cast<double>(state_count(t, style.state));
                                             }));
  }
  states.bands = bands;
  states.x_min = 0;
  out += render_svg(states);

  Chart rates = make_chart("chart-rates", "Renewals and rebinds per second", "time (s)", "per second");
  rates.series.push_back(series_over_time(samples, "new leases", "#59a14f", [](const TimelineSample& t) {
    return std::optional<double>(per_second(t.leases, t));
  }));
  rates.series.push_back(series_over_time(samples, "renewals", "#4e79a7", [](const TimelineSample& t) {
    return std::optional<double>(per_second(t.renewals, t));
  }));
  rates.series.push_back(series_over_time(samples, "rebinds", "#e15759", [](const TimelineSample& t) {
    return std::optional<double>(per_second(t.rebinds, t));
  }));
  rates.bands = bands;
  rates.x_min = 0;
  out += render_svg(rates);

  Chart fractions = make_chart("chart-lease-fraction", "When in the lease each renewal and rebind began",
                  "fraction of the lease elapsed", "exchanges", ChartKind::Bars);
  fractions.series.push_back(fraction_bins(s.renew_fraction, "renewals", "#4e79a7"));
  fractions.series.push_back(fraction_bins(s.rebind_fraction, "rebinds", "#e15759"));
  fractions.markers = {{t1, fmt::format("T1 {:.3f}", t1)}, {t2, fmt::format("T2 {:.3f}", t2)}};
  fractions.x_min = 0;
  fractions.x_max = 1;
  out += render_svg(fractions);

  Chart latency = make_chart("chart-latency", "Latency over time (per period)", "time (s)", "ms");
  const auto latency_series = [&](const char* name, const char* colour, auto pick) {
    return series_over_time(samples, name, colour, [pick](const TimelineSample& t) {
      const PeriodLatency& l = pick(t);
      return l.count ? std::optional<double>(l.p99) : std::nullopt;
    });
  };
  const auto latency_p50 = [&](const char* name, const char* colour, auto pick) {
    return series_over_time(samples, name, colour, [pick](const TimelineSample& t) {
      const PeriodLatency& l = pick(t);
      return l.count ? std::optional<double>(l.p50) : std::nullopt;
    });
  };
  const auto request = [](const TimelineSample& t) -> const PeriodLatency& { return t.request_ack; };
  const auto renew = [](const TimelineSample& t) -> const PeriodLatency& { return t.renew_ack; };
  latency.series.push_back(latency_p50("REQUEST→ACK p50", "#f28e2b", request));
  latency.series.push_back(latency_series("REQUEST→ACK p99", "#b6581a", request));
  latency.series.push_back(latency_p50("RENEW→ACK p50", "#4e79a7", renew));
  latency.series.push_back(latency_series("RENEW→ACK p99", "#1f3f66", renew));
  latency.bands = bands;
  latency.x_min = 0;
  out += render_svg(latency);

  Chart cdf = make_chart("chart-latency-cdf", "Latency CDF (whole run)", "ms (log scale)",
            "share answered within");
  cdf.log_x = true;
  cdf.y_max = 1;
  cdf.series.push_back(latency_cdf(s.latency_ms[static_cast<std::size_t>(Exchange::Request)],
                                   "REQUEST→ACK", "#f28e2b"));
  cdf.series.push_back(latency_cdf(s.latency_ms[static_cast<std::size_t>(Exchange::Renew)],
                                   "RENEW→ACK", "#4e79a7"));
  out += render_svg(cdf);
  out += latency_table(s);

  Chart pool = make_chart("chart-pool", "Pool use as the clients saw it", "time (s)", "addresses");
  pool.series.push_back(series_over_time(samples, "addresses held by our clients", "#59a14f",
                                         [](const TimelineSample& t) {
                                           return std::optional<double>(t.addresses_held);
                                         }));
  pool.series.push_back(series_over_time(samples, "NAKs per second", "#e15759",
                                         [](const TimelineSample& t) {
                                           return std::optional<double>(per_second(t.naks, t));
                                         }));
  pool.bands = bands;
  pool.x_min = 0;
  out += render_svg(pool);

  out += "<h2>Injected faults</h2><ul id=\"faults\">";
  if (bands.empty()) out += "<li>none</li>";
  for (const ChartBand& band : bands) {
    out += fmt::format("<li>{:.1f} s – {:.1f} s: {}</li>", band.from, band.to,
                       html_escaped(band.label));
  }
  out += fmt::format(
      "</ul><p>{} replies dropped, {} renewals blocked.</p>\n", s.replies_dropped,
      s.unicast_blocked);
  out += violations_section(fleet);
  out += "</body></html>\n";
  return out;
}

}  // namespace landlord::sim
