#pragma once
// The text forms of config values, without YAML: the loader uses them, and so can a command
// line (`--listen 127.0.0.1:6767`). Each error is a message fragment the caller places.
#include <cstdint>
#include <string>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/config/config.hpp"

namespace landlord::config {

// The one duration grammar (base/duration.hpp, shared with the simulator): "90s", "10m",
// "1h30m", "250ms"; a bare number is refused.
Expected<Duration, std::string> parse_duration(std::string_view text);
std::string format_duration(Duration duration);  // the shortest form parse_duration reads back

// T1/T2: "50%", "87.5%" (strictly between 0% and 100%) or a duration ("30m").
Expected<RenewalTime, std::string> parse_renewal_time(std::string_view text);
std::string format_renewal_time(const RenewalTime& renewal);

// "0.0.0.0:67", or an address alone ("127.0.0.1") which takes `default_port`. Port 1-65535.
Expected<Endpoint, std::string> parse_endpoint(std::string_view text, std::uint16_t default_port);
std::string format_endpoint(const Endpoint& endpoint);

// "198.18.0.100-198.18.0.199" (inclusive, spaces around '-' allowed) or a CIDR block
// "198.18.0.128/25" meaning all of its addresses.
Expected<AddressRange, std::string> parse_range(std::string_view text);
std::string format_range(const AddressRange& range);

}  // namespace landlord::config
