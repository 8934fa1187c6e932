#include "landlord/server/clock.hpp"

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

TEST(Clock, NowIsWallAtStartPlusSteadyElapsed) {
  const auto steady_start = Clock::Steady::now();
  const Clock clock{time_from_unix_ms(1'700'000'000'000), steady_start};
  EXPECT_EQ(unix_ms(clock.at(steady_start + std::chrono::seconds{90})), 1'700'000'090'000);
}

TEST(Clock, DeadlinesConvertBackToTheSteadyClock) {
  const auto steady_start = Clock::Steady::now();
  const Clock clock{time_from_unix_ms(1'700'000'000'000), steady_start};
  const TimePoint deadline = time_from_unix_ms(1'700'000'030'000);
  EXPECT_EQ(clock.to_steady(deadline), steady_start + std::chrono::seconds{30});
  EXPECT_EQ(clock.at(clock.to_steady(deadline)), deadline);
}

TEST(Clock, SystemClockStartIsCloseToTheWallClock) {
  const Clock clock;
  const auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  EXPECT_LT(std::abs(unix_ms(clock.now()) - wall_ms), 1000);
}

}  // namespace
}  // namespace landlord::server
