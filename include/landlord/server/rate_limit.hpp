#pragma once
// A log line that may repeat at packet rate (malformed input, unroutable replies, a failing
// store) is written at most once per interval, with a count of the ones held back. The caller
// says when it is (Clock::steady()): the logger reads no clock, so its rule is tested with any
// time (tests/unit/server/rate_limit_test.cpp).
#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

namespace landlord::server {

class RateLimitedLog {
 public:
  using Steady = std::chrono::steady_clock;

  explicit RateLimitedLog(std::chrono::milliseconds interval = std::chrono::seconds{5})
      : interval_(interval) {}

  // Whether a line may be written at `now`: the lines held back since the last one written
  // (0 or more), or nullopt when this one is held back too (and counted).
  std::optional<std::uint64_t> admit(Steady::time_point now) {
    if (now - last_ < interval_) {
      ++suppressed_;
      return std::nullopt;
    }
    last_ = now;
    return std::exchange(suppressed_, 0);
  }

  template <typename... Args>
  void log(Steady::time_point now, spdlog::level::level_enum level, fmt::format_string<Args...> format,
           Args&&... args) {
    const auto held_back = admit(now);
    if (!held_back) return;
    const std::string line = fmt::format(format, std::forward<Args>(args)...);
    if (*held_back > 0) {
      spdlog::log(level, "{} (and {} more like it)", line, *held_back);
    } else {
      spdlog::log(level, "{}", line);
    }
  }

 private:
  std::chrono::milliseconds interval_;
  Steady::time_point last_{};
  std::uint64_t suppressed_ = 0;
};

}  // namespace landlord::server
