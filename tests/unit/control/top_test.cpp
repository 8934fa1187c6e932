// landlordctl top's arithmetic: two scrapes of /metrics into rates, quantiles and pool rows.
#include "landlord/control/top.hpp"

#include <gtest/gtest.h>

#include "fake_daemon.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {
namespace {

Scrape parsed(std::string_view text) {
  auto scrape = parse_metrics(text);
  EXPECT_TRUE(scrape) << scrape.error();
  return scrape ? *scrape : Scrape{};
}

TEST(Top, ParsesTheTextFormat) {
  const Scrape scrape = parsed(
      "# HELP x y\n# TYPE x counter\nx 3\nx_total{type=\"a\",b=\"q\\\"uote\"} 2.5\n"
      "h_bucket{le=\"+Inf\"} 7 1700000000000\n");
  ASSERT_EQ(scrape.size(), 3u);
  EXPECT_EQ(scrape[1].labels.at("b"), "q\"uote");
  EXPECT_EQ(sum_of(scrape, "x_total", {{"type", "a"}}), 2.5);
  EXPECT_EQ(sum_of(scrape, "h_bucket"), 7);
  EXPECT_FALSE(parse_metrics("x{a=\"1\" 2\n"));
  const auto bad = parse_metrics("ok 1\nx abc\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "metrics line 2: 'abc' is not a number");
}

TEST(Top, CountersBecomeRatesOverTheInterval) {
  const Scrape before = parsed(
      "landlord_messages_received_total{type=\"discover\"} 10\n"
      "landlord_messages_sent_total{type=\"ack\"} 100\n"
      "landlord_lease_events_total{event=\"renew\"} 50\n"
      "landlord_packets_dropped_total{reason=\"malformed\"} 1\n");
  const Scrape after = parsed(
      "landlord_messages_received_total{type=\"discover\"} 30\n"
      "landlord_messages_sent_total{type=\"ack\"} 140\n"
      "landlord_lease_events_total{event=\"renew\"} 58\n"
      "landlord_packets_dropped_total{reason=\"malformed\"} 3\n"
      "landlord_packets_dropped_total{reason=\"receive_queue_overflow\"} 4\n");
  const TopFrame frame = make_frame(before, after, 2.0);
  EXPECT_EQ(frame.messages[0], (std::pair<std::string, double>{"DISCOVER", 10}));
  EXPECT_EQ(frame.messages[3], (std::pair<std::string, double>{"ACK", 20}));
  EXPECT_EQ(frame.leases[1], (std::pair<std::string, double>{"renew", 4}));
  EXPECT_EQ(frame.dropped_per_s, 3);
  EXPECT_FALSE(frame.request_to_ack_p50_s);  // no ACK in the interval: no latency
  // A daemon restarted in between: its counters start again from 0.
  EXPECT_EQ(make_frame(after, before, 1.0).messages[0].second, 10);
}

TEST(Top, LatencyQuantilesAreThoseOfTheInterval) {
  // 100 observations before (all <= 1 ms); then 10 more: 5 in (1, 2.5] ms, 5 in (2.5, 5] ms.
  const Scrape before = parsed(
      "h_bucket{le=\"0.001\"} 100\nh_bucket{le=\"0.0025\"} 100\nh_bucket{le=\"0.005\"} 100\nh_bucket{le=\"+Inf\"} 100\n");
  const Scrape after = parsed(
      "h_bucket{le=\"0.001\"} 100\nh_bucket{le=\"0.0025\"} 105\nh_bucket{le=\"0.005\"} 110\nh_bucket{le=\"+Inf\"} 110\n");
  EXPECT_DOUBLE_EQ(*interval_quantile(before, after, "h", 0.5), 0.0025);
  EXPECT_DOUBLE_EQ(*interval_quantile(before, after, "h", 0.9), 0.0025 + 0.0025 * 4 / 5);
  EXPECT_FALSE(interval_quantile(after, after, "h", 0.5));
  // Beyond the last finite bound: that bound.
  const Scrape slow = parsed("h_bucket{le=\"0.001\"} 0\nh_bucket{le=\"+Inf\"} 3\n");
  EXPECT_DOUBLE_EQ(*interval_quantile(Scrape{}, slow, "h", 0.99), 0.001);
}

// The rows come from the daemon's own /metrics page, so the names top reads are the ones
// render_metrics writes.
TEST(Top, PoolRowsFromTheDaemonsMetrics) {
  testing::FakeDaemon daemon;
  Metrics metrics;
  ASSERT_EQ(daemon.ask(R"({"command": "lease4-add", "arguments": {"ip-address": "198.18.2.11", "hw-address": "02:00:00:00:00:01"}})")["result"], kSuccess);
  const Scrape before = parsed(render_metrics(daemon, metrics, {}, count_table(daemon)));
  metrics.request_to_ack_seconds.observe(0.0004);
  metrics.commit_seconds.observe(0.002);
  metrics.commit_seconds.observe(0.004);
  const Scrape after = parsed(render_metrics(daemon, metrics, {}, count_table(daemon)));
  const TopFrame frame = make_frame(before, after, 1.0);
  ASSERT_EQ(frame.pools.size(), 2u);
  EXPECT_EQ(frame.pools[1].pool, "198.18.2.10-198.18.2.19");
  EXPECT_EQ(frame.pools[1].subnet, "198.18.2.0/24");
  EXPECT_EQ(frame.pools[1].total, 10);
  EXPECT_EQ(frame.pools[1].free, 9);
  EXPECT_EQ(frame.pools[1].bound, 1);
  EXPECT_DOUBLE_EQ(*frame.commit_mean_s, 0.003);
  EXPECT_TRUE(frame.request_to_ack_p50_s);
  EXPECT_TRUE(frame.store_healthy);
  const std::string text = render_frame(frame, 100);
  EXPECT_NE(text.find("198.18.2.10-198.18.2.19    198.18.2.0/24  [#.........]  10.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("commit mean 3.00 ms"), std::string::npos) << text;
}

}  // namespace
}  // namespace landlord::control
