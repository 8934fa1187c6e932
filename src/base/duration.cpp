#include "landlord/base/duration.hpp"

#include <array>
#include <charconv>
#include <cstdint>

namespace landlord {
namespace {

struct Unit {
  std::string_view name;
  std::int64_t milliseconds;
};
// Longest names first so "ms" is not read as "m" followed by junk.
constexpr std::array<Unit, 5> kUnits{{
    {"ms", 1}, {"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1'000},
}};

// Ten years: longer than any sane lease, and far from int64 overflow in milliseconds.
constexpr std::int64_t kMaxDurationMs = std::int64_t{10} * 366 * 86'400'000;

constexpr std::string_view kDurationHint = "use an integer and a unit: 90s, 10m, 12h, 7d";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string too_long(std::string_view text) {
  return std::string{"duration '"} + std::string{text} + "' is too long (at most 3660d)";
}

}  // namespace

Expected<Duration, std::string> parse_duration(std::string_view text) {
  if (text.empty()) return unexpected(std::string{"empty duration; "} + std::string{kDurationHint});
  std::int64_t total_ms = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    if (!is_digit(rest.front())) {
      return unexpected(std::string{"expected a number at '"} + std::string{rest} + "'; " +
                        std::string{kDurationHint});
    }
    std::int64_t count = 0;
    const auto [after_number, error] = std::from_chars(rest.data(), rest.data() + rest.size(), count);
    if (error != std::errc{} || count > kMaxDurationMs) return unexpected(too_long(text));
    rest.remove_prefix(static_cast<std::size_t>(after_number - rest.data()));
    if (rest.empty()) {
      return unexpected(std::string{"'"} + std::string{text} +
                        "' has no unit (is it seconds or milliseconds?); " + std::string{kDurationHint});
    }
    const Unit* unit = nullptr;
    for (const auto& candidate : kUnits) {
      if (rest.starts_with(candidate.name)) {
        unit = &candidate;
        break;
      }
    }
    if (unit == nullptr) {
      std::size_t unit_length = 0;
      while (unit_length < rest.size() && !is_digit(rest[unit_length])) ++unit_length;
      return unexpected(std::string{"unknown unit '"} + std::string{rest.substr(0, unit_length)} +
                        "'; " + std::string{kDurationHint});
    }
    rest.remove_prefix(unit->name.size());
    if (count > kMaxDurationMs / unit->milliseconds) return unexpected(too_long(text));
    total_ms += count * unit->milliseconds;
    if (total_ms > kMaxDurationMs) return unexpected(too_long(text));
  }
  return Duration{total_ms};
}

std::string format_duration(Duration duration) {
  std::int64_t remaining_ms = duration.count();
  if (remaining_ms == 0) return "0s";
  std::string text;
  if (remaining_ms < 0) {
    text += '-';
    remaining_ms = -remaining_ms;
  }
  for (const auto& unit : {kUnits[1], kUnits[2], kUnits[3], kUnits[4], kUnits[0]}) {
    const auto count = remaining_ms / unit.milliseconds;
    if (count == 0) continue;
    text += std::to_string(count);
    text += unit.name;
    remaining_ms -= count * unit.milliseconds;
  }
  return text;
}

}  // namespace landlord
