#pragma once
// What every simulated client puts in its requests beyond RFC 2131's minimum, so a server's
// classes, PXE and vendor options can be exercised (perfdhcp's -o): extra options, its own
// parameter request list (option 55) and a requested lease time (option 51). Shared by all
// clients of a run; parsed from the command line as values, never thrown.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"

namespace landlord::sim {

struct ExtraOption {
  std::uint8_t code = 0;
  std::vector<std::uint8_t> value;
};

struct RequestOptions {
  std::vector<ExtraOption> extra;               // on every request, in this order
  std::vector<std::uint8_t> parameter_request_list;  // option 55; empty: the client's default
  std::optional<std::uint32_t> lease_time_s;    // option 51 in DISCOVER and REQUEST
};

// "CODE:TYPE:VALUE": CODE 1-254; TYPE text, hex (0a0b0c, 0a:0b:0c), u8, u16, u32, ipv4 (one
// or more, comma-separated). The codes the client sets itself (50, 51, 53, 54, 55, 61, 82) are
// refused with the flag that sets them.
Expected<ExtraOption, std::string> parse_extra_option(std::string_view text);

// "1,3,6,51": option codes 1-254, at least one, no repeats.
Expected<std::vector<std::uint8_t>, std::string> parse_parameter_request_list(
    std::string_view text);

// A requested lease time (option 51): a duration in whole seconds, from 1 s to 0xfffffffe s.
Expected<std::uint32_t, std::string> parse_lease_time_s(std::string_view text);

}  // namespace landlord::sim
