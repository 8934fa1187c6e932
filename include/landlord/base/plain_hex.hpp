#pragma once
// Hex without separators ("0a1b2c"): how the logs show option 82's opaque sub-options (a
// circuit-id, a remote-id), which are not addresses. Hardware addresses and client ids use
// colon hex (hex.hpp).
#include <cstdint>
#include <span>
#include <string>

namespace landlord {

// Lower-case, two digits per byte, nothing between them; "" for no bytes.
std::string to_plain_hex(std::span<const std::uint8_t> bytes);

}  // namespace landlord
