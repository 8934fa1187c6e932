// The bounded-memory histogram against exact nearest-rank percentiles over the same samples:
// every reported percentile within the stated relative error (plus half a unit of rounding),
// count/min/max/mean exact, and memory that does not grow with the number of samples.
#include "landlord/sim/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace landlord::sim {
namespace {

double exact_percentile(std::vector<double> samples, double quantile) {
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(quantile * static_cast<double>(samples.size())));
  return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

// The histogram's promise for one value: within 1/256 of it, plus half a unit.
void expect_within_error(double reported, double exact, double resolution, const char* what) {
  const double allowed = exact * Histogram::kRelativeError + resolution / 2 + 1e-12;
  EXPECT_LE(std::abs(reported - exact), allowed)
      << what << ": reported " << reported << ", exact " << exact << ", allowed " << allowed;
}

void check_against_exact(const std::vector<double>& samples, double resolution) {
  Histogram histogram(resolution);
  for (const double s : samples) histogram.record(s);
  ASSERT_EQ(histogram.count(), samples.size());
  for (const double q : {0.0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
    expect_within_error(histogram.percentile(q), exact_percentile(samples, q), resolution,
                        "percentile");
  }
  const Distribution d = histogram.summary();
  expect_within_error(d.max, *std::max_element(samples.begin(), samples.end()), resolution, "max");
  expect_within_error(d.min, *std::min_element(samples.begin(), samples.end()), resolution, "min");
  double sum = 0;
  for (const double s : samples) sum += s;
  EXPECT_NEAR(d.mean, sum / static_cast<double>(samples.size()), resolution / 2);
}

TEST(Histogram, LognormalLatenciesWithinTheStatedError) {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> latency_ms(0.0, 1.5);  // 0.01 ms .. seconds
  std::vector<double> samples(200'000);
  for (double& s : samples) s = latency_ms(random);
  check_against_exact(samples, 1e-3);
}

TEST(Histogram, UniformWideRangeWithinTheStatedError) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(0, 60'000);  // up to a minute in ms
  std::vector<double> samples(100'000);
  for (double& s : samples) s = value(random);
  check_against_exact(samples, 1e-3);
}

TEST(Histogram, LeaseFractionsNearTheTimers) {
  std::mt19937_64 random(3);
  std::normal_distribution<double> t1(0.5, 0.002), t2(0.875, 0.002);
  std::vector<double> samples;
  for (int i = 0; i < 50'000; ++i) samples.push_back(i % 4 == 0 ? t2(random) : t1(random));
  check_against_exact(samples, 1e-6);
}

TEST(Histogram, SmallValuesAreExact) {
  Histogram histogram(1.0);
  for (int v = 0; v < 256; ++v) histogram.record(v);
  for (int v = 1; v <= 256; ++v) {
    EXPECT_EQ(histogram.percentile(static_cast<double>(v) / 256), v - 1);
  }
}

TEST(Histogram, HostileValuesCountAsZero) {
  Histogram histogram(1e-3);
  histogram.record(-5);
  histogram.record(std::nan(""));
  histogram.record(1e300);  // clamped, not undefined behaviour
  EXPECT_EQ(histogram.count(), 3u);
  EXPECT_EQ(histogram.min(), 0);
  EXPECT_GT(histogram.max(), 1e15);
}

TEST(Histogram, EmptyReportsZeros) {
  const Histogram histogram(1e-3);
  const Distribution d = histogram.summary();
  EXPECT_EQ(d.count, 0u);
  EXPECT_EQ(d.p99, 0);
  EXPECT_EQ(histogram.percentile(0.5), 0);
  EXPECT_TRUE(histogram.buckets().empty());
}

// A soak's worth of samples costs no more memory than a thousand within the same range.
TEST(Histogram, MemoryDoesNotGrowWithSamples) {
  Histogram histogram(1e-3);
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> latency_ms(0.01, 1000);
  for (int i = 0; i < 1000; ++i) histogram.record(latency_ms(random));
  histogram.record(1000);
  const std::size_t after_thousand = histogram.memory_bytes();
  for (int i = 0; i < 5'000'000; ++i) histogram.record(latency_ms(random));
  EXPECT_EQ(histogram.memory_bytes(), after_thousand);
  EXPECT_LT(after_thousand, 40'000u);
}

TEST(Histogram, MergeEqualsRecordingBoth) {
  Histogram a(1e-3), b(1e-3), both(1e-3);
  for (int i = 1; i < 5000; ++i) {
    const double v = i * 0.37;
    (i % 3 ? a : b).record(v);
    both.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), both.count());
  for (const double q : {0.1, 0.5, 0.9, 0.99}) EXPECT_EQ(a.percentile(q), both.percentile(q));
  EXPECT_DOUBLE_EQ(a.mean(), both.mean());
}

TEST(Histogram, BucketsCoverEverySample) {
  Histogram histogram(1e-3);
  for (int i = 0; i < 10'000; ++i) histogram.record(i * 0.5);
  std::uint64_t total = 0;
  double previous_high = 0;
  for (const auto& bucket : histogram.buckets()) {
    EXPECT_GE(bucket.low, previous_high);
    EXPECT_LT(bucket.low, bucket.high);
    EXPECT_LE(bucket.high - bucket.low, std::max(bucket.low / 128, 1e-3) + 1e-9);
    previous_high = bucket.high;
    total += bucket.count;
  }
  EXPECT_EQ(total, 10'000u);
}

}  // namespace
}  // namespace landlord::sim
