#include "landlord/control/top.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace landlord::control {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && (is_space(text.front()) || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (is_space(text.back()) || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// `k="v",k2="v2"` up to the closing brace; returns the rest of the line after it.
Expected<std::string_view, std::string> parse_labels(std::string_view text,
                                                     std::map<std::string, std::string>& labels) {
  for (;;) {
    text = trim(text);
    if (text.empty()) return unexpected(std::string{"unterminated labels"});
    if (text.front() == '}') return text.substr(1);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos || equals + 1 >= text.size() || text[equals + 1] != '"') {
      return unexpected(std::string{"a label without =\"value\""});
    }
    const std::string key{trim(text.substr(0, equals))};
    std::string value;
    std::size_t at = equals + 2;
    for (; at < text.size() && text[at] != '"'; ++at) {
      if (text[at] == '\\' && at + 1 < text.size()) {
        ++at;
        value += text[at] == 'n' ? '\n' : text[at];
      } else {
        value += text[at];
      }
    }
    if (at >= text.size()) return unexpected(std::string{"an unterminated label value"});
    labels[key] = std::move(value);
    text = trim(text.substr(at + 1));
    if (!text.empty() && text.front() == ',') text.remove_prefix(1);
  }
}

Expected<Sample, std::string> parse_line(std::string_view line) {
  Sample sample;
  const auto name_end = line.find_first_of("{ \t");
  if (name_end == 0 || name_end == std::string_view::npos) return unexpected(std::string{"no value"});
  sample.name = std::string{line.substr(0, name_end)};
  std::string_view rest = line.substr(name_end);
  if (rest.front() == '{') {
    auto after = parse_labels(rest.substr(1), sample.labels);
    if (!after) return unexpected(after.error());
    rest = *after;
  }
  rest = trim(rest);
  const std::string value{rest.substr(0, rest.find_first_of(" \t"))};  // a timestamp may follow
  char* end = nullptr;
  sample.value = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size()) {
    return unexpected("'" + value + "' is not a number");
  }
  return sample;
}

bool matches(const Sample& sample, const std::map<std::string, std::string>& match) {
  return std::all_of(match.begin(), match.end(), [&](const auto& pair) {
    const auto found = sample.labels.find(pair.first);
    return found != sample.labels.end() && found->second == pair.second;
  });
}

// A counter's increase per second; a counter that went down (a restarted daemon) counts from 0.
double rate(const Scrape& before, const Scrape& after, std::string_view name,
            const std::map<std::string, std::string>& match, double interval_s) {
  const double now = sum_of(after, name, match);
  const double then = sum_of(before, name, match);
  const double increase = now >= then ? now - then : now;
  return interval_s > 0 ? increase / interval_s : 0;
}

std::string label_of(const Sample& sample, const std::string& key) {
  const auto found = sample.labels.find(key);
  return found == sample.labels.end() ? std::string{} : found->second;
}

std::string milliseconds(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.2f} ms", *seconds * 1000) : std::string{"-"};
}

std::string bar(double used_fraction, std::size_t width) {
  const auto filled = static_cast<std::size_t>(std::lround(std::clamp(used_fraction, 0.0, 1.0) * static_cast<double>(width)));
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

}  // namespace

Expected<Scrape, std::string> parse_metrics(std::string_view text) {
  Scrape scrape;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    auto sample = parse_line(line);
    if (!sample) return unexpected("metrics line " + std::to_string(line_number) + ": " + sample.error());
    scrape.push_back(std::move(*sample));
  }
  return scrape;
}

double sum_of(const Scrape& scrape, std::string_view name, const std::map<std::string, std::string>& match) {
  double sum = 0;
  for (const Sample& sample : scrape) {
    if (sample.name == name && matches(sample, match)) sum += sample.value;
  }
  return sum;
}

std::optional<double> interval_quantile(const Scrape& before, const Scrape& after, std::string_view name,
                                        double q) {
  const std::string bucket_name = std::string{name} + "_bucket";
  std::vector<std::pair<double, double>> buckets;  // (upper bound, observations up to it)
  for (const Sample& sample : after) {
    if (sample.name != bucket_name) continue;
    const std::string le = label_of(sample, "le");
    const double bound = le == "+Inf" ? std::numeric_limits<double>::infinity() : std::strtod(le.c_str(), nullptr);
    buckets.emplace_back(bound, sample.value - sum_of(before, bucket_name, {{"le", le}}));
  }
  std::sort(buckets.begin(), buckets.end());
  if (buckets.empty() || buckets.back().second <= 0) return std::nullopt;
  const double rank = q * buckets.back().second;
  double lower = 0, below = 0;
  for (const auto& [upper, count] : buckets) {
    if (count >= rank) {
      if (std::isinf(upper)) return lower;  // beyond the last finite bound: that bound, as Prometheus
      return lower + (upper - lower) * (count > below ? (rank - below) / (count - below) : 1);
    }
    lower = upper;
    below = count;
  }
  return lower;
}

TopFrame make_frame(const Scrape& before, const Scrape& after, double interval_s) {
  TopFrame frame;
  frame.interval_s = interval_s;
  const auto per_s = [&](std::string_view name, const std::map<std::string, std::string>& match) {
    return rate(before, after, name, match, interval_s);
  };
  frame.messages = {
      {"DISCOVER", per_s("landlord_messages_received_total", {{"type", "discover"}})},
      {"REQUEST", per_s("landlord_messages_received_total", {{"type", "request"}})},
      {"OFFER", per_s("landlord_messages_sent_total", {{"type", "offer"}})},
      {"ACK", per_s("landlord_messages_sent_total", {{"type", "ack"}})},
      {"NAK", per_s("landlord_messages_sent_total", {{"type", "nak"}})},
  };
  for (const char* event : {"grant", "renew", "rebind", "release", "decline", "expire"}) {
    frame.leases.emplace_back(event, per_s("landlord_lease_events_total", {{"event", event}}));
  }
  frame.leases.emplace_back("shortened", per_s("landlord_leases_shortened_total", {}));
  frame.dropped_per_s = per_s("landlord_packets_dropped_total", {});
  frame.request_to_ack_p50_s = interval_quantile(before, after, "landlord_request_to_ack_seconds", 0.5);
  frame.request_to_ack_p99_s = interval_quantile(before, after, "landlord_request_to_ack_seconds", 0.99);
  const double commits = sum_of(after, "landlord_commit_duration_seconds_count") -
                         sum_of(before, "landlord_commit_duration_seconds_count");
  if (commits > 0) {
    frame.commit_mean_s = (sum_of(after, "landlord_commit_duration_seconds_sum") -
                           sum_of(before, "landlord_commit_duration_seconds_sum")) / commits;
  }
  frame.store_healthy = sum_of(after, "landlord_store_healthy") > 0;
  frame.store_backlog = sum_of(after, "landlord_store_backlog_records");
  for (const Sample& sample : after) {
    if (sample.name != "landlord_pool_addresses") continue;
    const std::map<std::string, std::string> pool{{"subnet_id", label_of(sample, "subnet_id")},
                                                  {"pool", label_of(sample, "pool")}};
    const auto state = [&](const char* name) {
      auto match = pool;
      match["state"] = name;
      return sum_of(after, "landlord_pool_leases", match);
    };
    frame.pools.push_back({label_of(sample, "pool"), label_of(sample, "subnet"), sample.value,
                           sum_of(after, "landlord_pool_free_addresses", pool), state("bound"),
                           state("offered"), state("declined"),
                           sum_of(after, "landlord_pool_lease_shortened", pool) > 0});
  }
  return frame;
}

std::string render_frame(const TopFrame& frame, std::size_t width) {
  std::string out;
  const auto line = [&](std::string_view label, const std::vector<std::pair<std::string, double>>& rates) {
    fmt::format_to(std::back_inserter(out), "{:<12}", label);
    for (const auto& [name, value] : rates) fmt::format_to(std::back_inserter(out), "{} {:.1f}  ", name, value);
    out += '\n';
  };
  fmt::format_to(std::back_inserter(out), "landlord top: rates over the last {:.1f} s\n", frame.interval_s);
  line("messages/s", frame.messages);
  line("leases/s", frame.leases);
  fmt::format_to(std::back_inserter(out), "{:<12}REQUEST->ACK p50 {}  p99 {}  commit mean {}\n", "latency",
                 milliseconds(frame.request_to_ack_p50_s), milliseconds(frame.request_to_ack_p99_s),
                 milliseconds(frame.commit_mean_s));
  fmt::format_to(std::back_inserter(out), "{:<12}{}, backlog {:.0f} records; dropped {:.1f}/s\n\n", "store",
                 frame.store_healthy ? "healthy" : "NOT ACCEPTING WRITES", frame.store_backlog,
                 frame.dropped_per_s);
  std::size_t pool_width = 4, subnet_width = 6;
  for (const PoolRow& pool : frame.pools) {
    pool_width = std::max(pool_width, pool.pool.size());
    subnet_width = std::max(subnet_width, pool.subnet.size());
  }
  // What is left of `width` for the bar, within 10..40 columns.
  const std::size_t fixed = pool_width + subnet_width + 2 + 2 + 2 + 7 + 2 + 7 + 8 + 9 + 7 + 10;
  const std::size_t bar_width = std::clamp<std::size_t>(width > fixed ? width - fixed : 0, 10, 40);
  fmt::format_to(std::back_inserter(out), "{:<{}}  {:<{}}  {:<{}}  {:>6}  {:>7}  {:>8}  {:>6}  {}\n", "POOL",
                 pool_width, "SUBNET", subnet_width, "USED", bar_width + 2 + 7, "BOUND", "OFFERED", "DECLINED",
                 "FREE", "LEASE");
  for (const PoolRow& pool : frame.pools) {
    const double used = pool.total > 0 ? (pool.total - pool.free) / pool.total : 0;
    fmt::format_to(std::back_inserter(out), "{:<{}}  {:<{}}  {} {:>5.1f}%  {:>6.0f}  {:>7.0f}  {:>8.0f}  {:>6.0f}  {}\n",
                   pool.pool, pool_width, pool.subnet, subnet_width, bar(used, bar_width), used * 100,
                   pool.bound, pool.offered, pool.declined, pool.free, pool.lease_shortened ? "SHORTENED" : "normal");
  }
  return out;
}

}  // namespace landlord::control
