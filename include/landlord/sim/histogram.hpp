#pragma once
// Distributions in bounded memory, for runs of any length: a log-bucketed histogram in the
// layout of HdrHistogram. A value is counted in whole units of `resolution` (1 µs for
// latencies in ms, a millionth for lease fractions). Below 256 units every unit has its own
// bucket; above, each power of two is split into 128 buckets, so a bucket is at most 1/128 of
// its lower bound wide. A percentile is reported as its bucket's midpoint: within
// kRelativeError (1/256, 0.39 %) of the exact nearest-rank percentile, plus half a unit for
// the rounding to units. Count, mean, min and max are exact. Memory: 8 bytes per bucket up to
// the largest value seen (under 36 KB for latencies up to 18 minutes), however many samples.
#include <cstdint>
#include <vector>

namespace landlord::sim {

struct Distribution {
  std::uint64_t count = 0;
  double mean = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

class Histogram {
 public:
  static constexpr unsigned kExactBits = 8;  // 256 exact buckets, then 128 per power of two
  static constexpr double kRelativeError = 1.0 / 256;

  explicit Histogram(double resolution) : resolution_(resolution) {}

  void record(double value);  // a negative value (or NaN) counts as 0
  void merge(const Histogram& other);  // same resolution
  void clear();

  std::uint64_t count() const { return count_; }
  double resolution() const { return resolution_; }
  double mean() const;
  double min() const;
  double max() const;
  // The nearest-rank percentile, `quantile` in [0, 1]; 0 when empty.
  double percentile(double quantile) const;
  Distribution summary() const;

  // Non-empty buckets in value order, for charts (a CDF, a histogram of lease fractions).
  struct Bucket {
    double low = 0, high = 0;  // [low, high) in value units
    std::uint64_t count = 0;
  };
  std::vector<Bucket> buckets() const;

  std::size_t memory_bytes() const { return sizeof(*this) + counts_.capacity() * sizeof(std::uint64_t); }

 private:
  static std::size_t index_of(std::uint64_t units);
  static std::uint64_t low_of(std::size_t index);
  static std::uint64_t high_of(std::size_t index);
  double representative(std::size_t index) const;

  double resolution_;
  std::vector<std::uint64_t> counts_;  // grown to the largest index seen
  std::uint64_t count_ = 0;
  std::uint64_t min_units_ = 0, max_units_ = 0;
  double sum_ = 0;  // of the values as recorded, for an exact mean
};

}  // namespace landlord::sim
