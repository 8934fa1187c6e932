#pragma once
// Records per second over the last ~100 ms, for the commit queue's linger: each record counts
// 1/tau and the sum decays by e^(-t/tau). At 4,000 records/s it passes 2,000/s 70 ms after a
// pause, and a light load's stall with the burst that makes up for it leaves it about where it
// was: a 100 ms stall at 1,000/s and its 100 records read 1,370/s. (A moving average of the
// gap between records, each record one sample, read 30 ms of a stalled sender as a burst of
// fast ones, and a light load's ACKs then waited for company that was not coming.)
// Time comes from the caller: no clock here.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>

namespace landlord::store {

class ArrivalRate {
 public:
  static constexpr double kWindowSeconds = 0.1;

  void note(std::chrono::steady_clock::time_point now, std::size_t records) {
    const double elapsed = std::max(0.0, std::chrono::duration<double>(now - last_).count());
    per_second_ = per_second_ * std::exp(-elapsed / kWindowSeconds) +
                  static_cast<double>(records) / kWindowSeconds;
    last_ = now;
  }
  // As of the last note().
  double per_second() const { return per_second_; }

 private:
  std::chrono::steady_clock::time_point last_{};
  double per_second_ = 0;
};

}  // namespace landlord::store
