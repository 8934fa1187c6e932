#pragma once
// Expiry times as the foreign files write them, checked before any arithmetic: a negative time,
// one past the year 9999, or a calendar date that does not exist is refused with its line
// rather than wrapped, overflowed or normalised by timegm into another date.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "landlord/base/time.hpp"
#include "text_lines.hpp"

namespace landlord::migrate {

inline constexpr std::int64_t kLastUnixSecond = 253'402'300'799;  // 9999-12-31 23:59:59 UTC

// Unix seconds as a time, when 0 <= seconds <= kLastUnixSecond.
inline std::optional<TimePoint> time_from_unix_seconds(std::int64_t seconds) {
  if (seconds < 0 || seconds > kLastUnixSecond) return std::nullopt;
  return time_from_unix_ms(seconds * 1000);
}

// "YYYY/MM/DD" and "HH:MM:SS" (UTC, as dhcpd writes `ends`), years 1970-9999.
inline std::optional<TimePoint> time_from_utc(std::string_view date, std::string_view time) {
  const auto parts = [](std::string_view text, char separator) -> std::optional<std::array<std::int64_t, 3>> {
    const auto fields = split(text, separator);
    if (fields.size() != 3) return std::nullopt;
    std::array<std::int64_t, 3> values{};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto value = parse_integer(fields[i]);
      if (!value || *value < 0 || fields[i].size() > 4) return std::nullopt;
      values[i] = *value;
    }
    return values;
  };
  const auto day = parts(date, '/');
  const auto clock = parts(time, ':');
  if (!day || !clock) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{static_cast<int>((*day)[0])},
                                        std::chrono::month{static_cast<unsigned>((*day)[1])},
                                        std::chrono::day{static_cast<unsigned>((*day)[2])}};
  if (!ymd.ok() || (*day)[0] < 1970 || (*clock)[0] > 23 || (*clock)[1] > 59 || (*clock)[2] > 60) {
    return std::nullopt;
  }
  const std::int64_t days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  return time_from_unix_seconds(days * 86400 + (*clock)[0] * 3600 + (*clock)[1] * 60 + (*clock)[2]);
}

}  // namespace landlord::migrate
