#pragma once
// Base64 (RFC 4648 §4) as BIND writes TSIG secrets and DHCID RDATA in presentation form.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace landlord::ddns {

std::string base64_encode(std::span<const std::uint8_t> bytes);
// Strict: padded to a multiple of 4, only the alphabet and '=' at the end; spaces and tabs
// between groups are skipped (zone files split long values). nullopt on anything else.
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text);

}  // namespace landlord::ddns
