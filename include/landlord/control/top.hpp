#pragma once
// `landlordctl top`: a live view built from two scrapes of GET /metrics taken some seconds
// apart. Counters become rates over that interval, the REQUEST->ACK histogram becomes
// quantiles of the interval (as Prometheus' histogram_quantile over a rate), the per-pool
// gauges become a table. Pure: parsing, arithmetic and text; the HTTP is landlordctl's.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"

namespace landlord::control {

// One sample of the Prometheus text format: name{labels} value.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};
using Scrape = std::vector<Sample>;

// The text format as GET /metrics writes it (comments skipped); an error names the bad line.
Expected<Scrape, std::string> parse_metrics(std::string_view text);

// The sum of the samples called `name` whose labels include every pair of `match`.
double sum_of(const Scrape& scrape, std::string_view name,
              const std::map<std::string, std::string>& match = {});

struct PoolRow {
  std::string pool, subnet;
  double total = 0, free = 0, bound = 0, offered = 0, declined = 0;
  bool lease_shortened = false;  // the pool's adaptive lease time is in force
};

struct TopFrame {
  double interval_s = 0;
  // Per second over the interval, in display order.
  std::vector<std::pair<std::string, double>> messages;  // DISCOVER, REQUEST, OFFER, ACK, NAK
  std::vector<std::pair<std::string, double>> leases;    // grant, renew, rebind, release, ...
  double dropped_per_s = 0;
  // REQUEST arrival to ACK leaving, commit included, over the interval; none without ACKs.
  std::optional<double> request_to_ack_p50_s, request_to_ack_p99_s;
  std::optional<double> commit_mean_s;  // one store transaction, mean over the interval
  bool store_healthy = true;
  double store_backlog = 0;
  std::vector<PoolRow> pools;
};

// `before` and `after` are scrapes `interval_s` apart (after the later one).
TopFrame make_frame(const Scrape& before, const Scrape& after, double interval_s);

// The frame as text `width` columns wide (a utilisation bar per pool).
std::string render_frame(const TopFrame& frame, std::size_t width = 100);

// The q-quantile (0 < q < 1) of the observations between two scrapes of histogram `name`,
// interpolated linearly inside the bucket as Prometheus does; none when nothing was observed.
std::optional<double> interval_quantile(const Scrape& before, const Scrape& after,
                                        std::string_view name, double q);

}  // namespace landlord::control
