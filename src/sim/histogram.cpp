#include "landlord/sim/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "landlord/base/assert.hpp"

namespace landlord::sim {

namespace {
constexpr std::uint64_t kExact = std::uint64_t{1} << Histogram::kExactBits;  // 256
constexpr std::uint64_t kHalf = kExact / 2;                                  // 128 per octave
constexpr double kLargestUnits = 9.0e18;  // below 2^63: the conversion stays defined
}  // namespace

// Values below 256 units index themselves; above, the power of two picks a group of 128 and the
// next seven bits below the leading one pick the bucket in it.
std::size_t Histogram::index_of(std::uint64_t units) {
  if (units < kExact) return static_cast<std::size_t>(units);
  const auto shift = static_cast<unsigned>(std::bit_width(units)) - kExactBits;
  const std::uint64_t sub = units >> shift;  // in [128, 256)
  return static_cast<std::size_t>(kExact + (shift - 1) * kHalf + (sub - kHalf));
}

std::uint64_t Histogram::low_of(std::size_t index) {
  if (index < kExact) return index;
  const std::uint64_t shift = (index - kExact) / kHalf + 1;
  const std::uint64_t sub = (index - kExact) % kHalf + kHalf;
  return sub << shift;
}

std::uint64_t Histogram::high_of(std::size_t index) {
  if (index < kExact) return index + 1;
  const std::uint64_t shift = (index - kExact) / kHalf + 1;
  const std::uint64_t sub = (index - kExact) % kHalf + kHalf;
  return (sub + 1) << shift;
}

void Histogram::record(double value) {
  const double scaled = value / resolution_;
  // !(x > 0) catches NaN too.
  const auto units = !(scaled > 0) ? std::uint64_t{0}
                                   : static_cast<std::uint64_t>(
                                         std::llround(std::min(scaled, kLargestUnits)));
  const std::size_t index = index_of(units);
  if (index >= counts_.size()) counts_.resize(index + 1, 0);
  ++counts_[index];
  min_units_ = count_ == 0 ? units : std::min(min_units_, units);
  max_units_ = count_ == 0 ? units : std::max(max_units_, units);
  ++count_;
  sum_ += static_cast<double>(units) * resolution_;
}

void Histogram::merge(const Histogram& other) {
  LANDLORD_ASSERT(other.resolution_ == resolution_);
  if (other.count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_units_ = count_ == 0 ? other.min_units_ : std::min(min_units_, other.min_units_);
  max_units_ = count_ == 0 ? other.max_units_ : std::max(max_units_, other.max_units_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void Histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_units_ = max_units_ = 0;
  sum_ = 0;
}

double Histogram::mean() const { return count_ == 0 ? 0 : sum_ / static_cast<double>(count_); }
double Histogram::min() const { return static_cast<double>(min_units_) * resolution_; }
double Histogram::max() const { return static_cast<double>(max_units_) * resolution_; }

// A bucket's midpoint, but never outside what was seen: the extreme buckets report the exact
// minimum and maximum.
double Histogram::representative(std::size_t index) const {
  const double low = static_cast<double>(low_of(index));
  const double width = static_cast<double>(high_of(index) - low_of(index));
  const double middle = width <= 1 ? low : low + width / 2;
  return std::clamp(middle, static_cast<double>(min_units_), static_cast<double>(max_units_)) *
         resolution_;
}

double Histogram::percentile(double quantile) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(std::clamp(quantile, 0.0, 1.0) * static_cast<double>(count_));
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return representative(i);
  }
  return max();
}

Distribution Histogram::summary() const {
  Distribution d;
  d.count = count_;
  if (count_ == 0) return d;
  d.mean = mean();
  d.min = min();
  d.p50 = percentile(0.50);
  d.p90 = percentile(0.90);
  d.p99 = percentile(0.99);
  d.p999 = percentile(0.999);
  d.max = max();
  return d;
}

std::vector<Histogram::Bucket> Histogram::buckets() const {
  std::vector<Bucket> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    out.push_back({static_cast<double>(low_of(i)) * resolution_,
                   static_cast<double>(high_of(i)) * resolution_, counts_[i]});
  }
  return out;
}

}  // namespace landlord::sim
