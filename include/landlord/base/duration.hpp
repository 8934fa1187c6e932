#pragma once
// The one duration grammar, for the config file and the simulator alike: one or more
// <integer><unit> groups, unit one of ms, s, m, h, d: "90s", "10m", "7d", "1h30m", "250ms". A
// bare number is refused: "2" could mean seconds or milliseconds.
#include <string>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/base/time.hpp"

namespace landlord {

Expected<Duration, std::string> parse_duration(std::string_view text);

// The shortest form parse_duration reads back: "1h30m", "250ms", "0s".
std::string format_duration(Duration duration);

}  // namespace landlord
