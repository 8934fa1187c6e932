#pragma once
// A log line that may repeat at packet rate (malformed input, unroutable replies, a failing
// store) is written at most once per interval, with a count of the ones held back.
#include <chrono>
#include <cstdint>
#include <utility>

#include <spdlog/spdlog.h>

namespace landlord::server {

class RateLimitedLog {
 public:
  explicit RateLimitedLog(std::chrono::milliseconds interval = std::chrono::seconds{5})
      : interval_(interval) {}

  template <typename... Args>
  void log(spdlog::level::level_enum level, fmt::format_string<Args...> format, Args&&... args) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < interval_) {
      ++suppressed_;
      return;
    }
    last_ = now;
    const std::string line = fmt::format(format, std::forward<Args>(args)...);
    if (suppressed_ > 0) {
      spdlog::log(level, "{} (and {} more like it)", line, suppressed_);
    } else {
      spdlog::log(level, "{}", line);
    }
    suppressed_ = 0;
  }

 private:
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_{};
  std::uint64_t suppressed_ = 0;
};

}  // namespace landlord::server
