#pragma once
// Colon-separated hex, shared by hardware addresses and client ids.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace landlord::detail {

std::string to_colon_hex(std::span<const std::uint8_t> bytes);
// Accepts "0a:1B:..." or "0a-1b-..." (two hex digits per byte); nullopt if malformed.
std::optional<std::vector<std::uint8_t>> parse_colon_hex(std::string_view text);

}  // namespace landlord::detail
