// GET /metrics as text: the names, labels and values, and promtool's verdict on it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "fake_daemon.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;

TEST(Metrics, HistogramBucketsAreCumulative) {
  Histogram histogram{{0.001, 0.01, 0.1}};
  for (double value : {0.0005, 0.001, 0.005, 0.5}) histogram.observe(value);
  const auto snapshot = histogram.snapshot();
  EXPECT_EQ(snapshot.cumulative, (std::vector<std::uint64_t>{2, 3, 3, 4}));
  EXPECT_EQ(snapshot.count, 4u);
  EXPECT_DOUBLE_EQ(snapshot.sum, 0.5065);
}

std::string scrape(FakeDaemon& daemon, Metrics& metrics) { return render_metrics(daemon, metrics, {2, 1, 0}, count_table(daemon)); }

TEST(Metrics, PoolGaugesFollowTheLeaseTable) {
  FakeDaemon daemon;
  Metrics metrics;
  ASSERT_EQ(daemon.ask(R"({"command": "lease4-add", "arguments": {"ip-address": "198.18.0.150", "hw-address": "02:00:00:00:00:01"}})")["result"], kSuccess);
  metrics.request_to_ack_seconds.observe(0.002);
  const std::string text = scrape(daemon, metrics);
  for (const char* line : {
           "landlord_pool_addresses{subnet_id=\"1\",subnet=\"198.18.0.0/24\",pool=\"198.18.0.100-198.18.0.199\"} 100\n",
           "landlord_pool_free_addresses{subnet_id=\"1\",subnet=\"198.18.0.0/24\",pool=\"198.18.0.100-198.18.0.199\"} 99\n",
           "landlord_pool_leases{subnet_id=\"1\",subnet=\"198.18.0.0/24\",pool=\"198.18.0.100-198.18.0.199\",state=\"bound\"} 1\n",
           "landlord_pool_leases{subnet_id=\"2\",subnet=\"198.18.2.0/24\",pool=\"198.18.2.10-198.18.2.19\",state=\"bound\"} 0\n",
           "landlord_packets_dropped_total{reason=\"no_route\"} 3\n",
           "landlord_packets_dropped_total{reason=\"receive_queue_overflow\"} 5\n",
           "landlord_leases{subnet_id=\"1\",subnet=\"198.18.0.0/24\",state=\"bound\"} 1\n",
           "landlord_leases{subnet_id=\"2\",subnet=\"198.18.2.0/24\",state=\"bound\"} 0\n",
           "landlord_store_healthy 1\n",
           "landlord_store_commit_failures_total{reason=\"full\"} 2\n",
           "landlord_store_commit_failures_total{reason=\"read_only\"} 7\n",
           "landlord_store_commit_failures_total{reason=\"io\"} 0\n",
           "landlord_store_down_renewals_answered_total 4\n",
           "landlord_store_down_reboots_answered_total 6\n",
           "landlord_store_checkpoint_failures_total{reason=\"read_only\"} 9\n",
           "landlord_store_checkpoint_failures_total{reason=\"io\"} 1\n",
           "# TYPE landlord_store_checkpoint_failures_total counter\n",
           "landlord_store_reopened_total 2\n",
           "landlord_store_commit_queue_full_total 8\n",
           "# TYPE landlord_reboots_left_to_peers_total counter\n",
           "landlord_reboots_left_to_peers_total{reason=\"peer_holds_lease\"} 0\n",
           "landlord_reboots_left_to_peers_total{reason=\"peer_owns_client\"} 0\n",
           "landlord_packets_received_total 42\n",
           "landlord_request_to_ack_seconds_bucket{le=\"0.0025\"} 1\n",
           "landlord_request_to_ack_seconds_bucket{le=\"0.001\"} 0\n",
           "landlord_request_to_ack_seconds_count 1\n",
           "landlord_control_connections 2\n",
           "# TYPE landlord_lease_events_total counter\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in\n" << text;
  }
  daemon.now_ += std::chrono::minutes{31};  // past T1 (50% of 1h)
  EXPECT_NE(scrape(daemon, metrics).find("state=\"past_t1\"} 1\n"), std::string::npos);
}

TEST(Metrics, PoolGaugesArePerPool) {
  FakeDaemon daemon{R"(store: {type: memory}
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.109, 198.18.0.200-198.18.0.203]
)"};
  Metrics metrics;
  for (const char* lease : {R"("198.18.0.201", "hw-address": "02:00:00:00:00:01")",
                            R"("198.18.0.202", "hw-address": "02:00:00:00:00:02")",
                            R"("198.18.0.105", "hw-address": "02:00:00:00:00:03")"}) {
    ASSERT_EQ(daemon.ask(std::string{R"({"command": "lease4-add", "arguments": {"ip-address": )"} + lease + "}}")["result"],
              kSuccess);
  }
  const std::string text = scrape(daemon, metrics);
  const std::string first = "subnet_id=\"1\",subnet=\"198.18.0.0/24\",pool=\"198.18.0.100-198.18.0.109\"";
  const std::string second = "subnet_id=\"1\",subnet=\"198.18.0.0/24\",pool=\"198.18.0.200-198.18.0.203\"";
  for (const std::string& line : {
           "landlord_pool_addresses{" + first + "} 10\n", "landlord_pool_addresses{" + second + "} 4\n",
           "landlord_pool_free_addresses{" + first + "} 9\n", "landlord_pool_free_addresses{" + second + "} 2\n",
           "landlord_pool_leases{" + first + ",state=\"bound\"} 1\n",
           "landlord_pool_leases{" + second + ",state=\"bound\"} 2\n",
           "landlord_pool_leases{" + second + ",state=\"offered\"} 0\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in\n" << text;
  }
  // Kea's pool statistics carry the same figures.
  const auto statistics = daemon.ask(R"({"command": "statistic-get-all"})")["arguments"];
  EXPECT_EQ(statistics["subnet[1].pool[1].total-addresses"][0][0], 4);
  EXPECT_EQ(statistics["subnet[1].pool[1].assigned-addresses"][0][0], 2);
  EXPECT_EQ(statistics["subnet[1].pool[0].free-addresses"][0][0], 9);
  EXPECT_EQ(statistics["pkt4-no-route"][0][0], 3);
  EXPECT_EQ(statistics["pkt4-receive-queue-overflow"][0][0], 5);
}

TEST(Metrics, PromtoolAcceptsTheOutput) {
  FakeDaemon daemon;
  Metrics metrics;
  metrics.commit_seconds.observe(0.0004);
  metrics.commit_batch_records.observe(12);
  const auto path = std::filesystem::temp_directory_path() / ("landlord-metrics-" + std::to_string(::getpid()) + ".txt");
  std::ofstream{path} << scrape(daemon, metrics);
  ASSERT_EQ(std::system("command -v promtool >/dev/null"), 0) << "promtool missing: tools/install-deps installs prometheus";
  const std::string command = "promtool check metrics < " + path.string() + " > " + path.string() + ".out 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream output{path.string() + ".out"};
  const std::string said{std::istreambuf_iterator<char>{output}, {}};
  EXPECT_EQ(status, 0) << said;
  EXPECT_EQ(said, "");  // no lint warnings either
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".out");
}

}  // namespace
}  // namespace landlord::control
