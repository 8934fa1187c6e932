#pragma once
// A time as an operator reads it in the import report: "2033-05-18 03:33:20 UTC".
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "landlord/base/time.hpp"

namespace landlord::migrate {

inline std::string utc_text(TimePoint time) {
  const auto since_epoch = std::chrono::floor<std::chrono::seconds>(time.time_since_epoch());
  const std::chrono::sys_seconds at{since_epoch};
  const auto day = std::chrono::floor<std::chrono::days>(at);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss clock{at - day};
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     clock.hours().count(), clock.minutes().count(), clock.seconds().count());
}

}  // namespace landlord::migrate
