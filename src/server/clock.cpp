#include "landlord/server/clock.hpp"

namespace landlord::server {

Clock::Clock()
    : Clock(time_from_unix_ms(std::chrono::duration_cast<Duration>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count()),
            Steady::now()) {}

}  // namespace landlord::server
