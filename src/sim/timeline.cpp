#include "landlord/sim/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace landlord::sim {

namespace {

PeriodLatency period_latency(const Histogram& histogram) {
  PeriodLatency out;
  out.count = histogram.count();
  if (out.count == 0) return out;
  out.p50 = histogram.percentile(0.50);
  out.p99 = histogram.percentile(0.99);
  out.max = histogram.max();
  return out;
}

// Two neighbouring periods as one: counts add up, the state is the later one's; the latency
// p50 is the count-weighted mean of the two and p99 the larger (a bound, not a percentile).
PeriodLatency merged(const PeriodLatency& a, const PeriodLatency& b) {
  PeriodLatency out;
  out.count = a.count + b.count;
  if (out.count == 0) return out;
  out.p50 = (a.p50 * static_cast<double>(a.count) + b.p50 * static_cast<double>(b.count)) /
            static_cast<double>(out.count);
  out.p99 = std::max(a.p99, b.p99);
  out.max = std::max(a.max, b.max);
  return out;
}

TimelineSample merged(const TimelineSample& a, const TimelineSample& b) {
  TimelineSample out = b;
  out.length_s = a.length_s + b.length_s;
  out.leases += a.leases;
  out.renewals += a.renewals;
  out.rebinds += a.rebinds;
  out.naks += a.naks;
  out.expirations += a.expirations;
  out.timeouts += a.timeouts;
  out.replies_dropped += a.replies_dropped;
  out.unicast_blocked += a.unicast_blocked;
  out.request_ack = merged(a.request_ack, b.request_ack);
  out.renew_ack = merged(a.renew_ack, b.renew_ack);
  out.unicast_block_active = a.unicast_block_active || b.unicast_block_active;
  return out;
}

}  // namespace

Timeline::Timeline(Fleet& fleet) : fleet_(fleet), previous_(counters_of(fleet.stats())) {
  fleet_.observe_latencies(this);
}

Timeline::~Timeline() { fleet_.observe_latencies(nullptr); }

Timeline::Counters Timeline::counters_of(const Stats& s) {
  return {s.leases,          s.renewals,       s.rebinds,
          s.naks,            s.expirations,    s.retransmissions,
          s.replies_dropped, s.unicast_blocked};
}

void Timeline::on_latency(Exchange exchange, double latency_ms) {
  if (exchange == Exchange::Request) request_ack_.record(latency_ms);
  if (exchange == Exchange::Renew) renew_ack_.record(latency_ms);
}

const TimelineSample& Timeline::sample(double at_s) {
  const Counters now = counters_of(fleet_.stats());
  TimelineSample s;
  s.at_s = at_s;
  s.length_s = at_s - previous_at_s_;
  s.states = fleet_.state_counts();
  s.leases = now.leases - previous_.leases;
  s.renewals = now.renewals - previous_.renewals;
  s.rebinds = now.rebinds - previous_.rebinds;
  s.naks = now.naks - previous_.naks;
  s.expirations = now.expirations - previous_.expirations;
  s.timeouts = now.timeouts - previous_.timeouts;
  s.replies_dropped = now.replies_dropped - previous_.replies_dropped;
  s.unicast_blocked = now.unicast_blocked - previous_.unicast_blocked;
  s.addresses_held = fleet_.bound_now();
  s.violations = fleet_.auditor().violation_count();
  s.request_ack = period_latency(request_ack_);
  s.renew_ack = period_latency(renew_ack_);
  if (const auto& block = fleet_.workload().block_unicast) {
    const double from_s = std::chrono::duration<double>(block->from).count();
    const double until_s = from_s + std::chrono::duration<double>(block->length).count();
    s.unicast_block_active = previous_at_s_ < until_s && at_s > from_s;
  }
  previous_ = now;
  previous_at_s_ = at_s;
  request_ack_.clear();
  renew_ack_.clear();
  samples_.push_back(s);
  if (samples_.size() > kKeptSamples) thin();
  return samples_.back();
}

// Halves the kept series by merging neighbours; the newest sample stays as it is when the
// count is odd.
void Timeline::thin() {
  std::vector<TimelineSample> halved;
  halved.reserve(samples_.size() / 2 + 1);
  std::size_t i = 0;
  for (; i + 1 < samples_.size(); i += 2) halved.push_back(merged(samples_[i], samples_[i + 1]));
  if (i < samples_.size()) halved.push_back(samples_[i]);
  samples_ = std::move(halved);
}

std::string timeline_csv_header() {
  std::string line = "time_s";
  for (std::size_t i = 0; i < kClientStateCount; ++i) {
    std::string name{to_string(static_cast<ClientState>(i))};
    std::replace(name.begin(), name.end(), '-', '_');
    line += ",clients_" + name;
  }
  line +=
      ",leases_per_s,renewals_per_s,rebinds_per_s,naks,expirations,timeouts,replies_dropped,"
      "unicast_blocked,addresses_held,violations,request_ack_count,request_ack_p50_ms,"
      "request_ack_p99_ms,request_ack_max_ms,renew_ack_count,renew_ack_p50_ms,renew_ack_p99_ms,"
      "renew_ack_max_ms,unicast_block_active\n";
  return line;
}

std::string timeline_csv_line(const TimelineSample& s) {
  const double length = s.length_s > 0 ? s.length_s : 1;
  const auto per_s = [&](std::size_t count) { return static_cast<double>(count) / length; };
  std::string line = fmt::format("{:.3f}", s.at_s);
  for (const std::size_t count : s.states) line += fmt::format(",{}", count);
  // An empty latency cell means no exchange of that kind completed in the period.
  const auto latency = [](const PeriodLatency& l) {
    if (l.count == 0) return std::string(",0,,,");
    return fmt::format(",{},{:.3f},{:.3f},{:.3f}", l.count, l.p50, l.p99, l.max);
  };
  line += fmt::format(",{:.3f},{:.3f},{:.3f},{},{},{},{},{},{},{}", per_s(s.leases),
                      per_s(s.renewals), per_s(s.rebinds), s.naks, s.expirations, s.timeouts,
                      s.replies_dropped, s.unicast_blocked, s.addresses_held, s.violations);
  line += latency(s.request_ack);
  line += latency(s.renew_ack);
  line += fmt::format(",{}\n", s.unicast_block_active ? 1 : 0);
  return line;
}

}  // namespace landlord::sim
