#include "landlord/ddns/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace landlord::ddns {
namespace {

struct ModeEntry {
  ConflictMode mode;
  const char* text;
};
constexpr ModeEntry kModes[] = {
    {ConflictMode::kCheckWithDhcid, "check-with-dhcid"},
    {ConflictMode::kNoCheckWithDhcid, "no-check-with-dhcid"},
    {ConflictMode::kCheckExistsWithDhcid, "check-exists-with-dhcid"},
    {ConflictMode::kNoCheckWithoutDhcid, "no-check-without-dhcid"},
};

}  // namespace

const char* conflict_mode_text(ConflictMode mode) {
  for (const auto& entry : kModes) {
    if (entry.mode == mode) return entry.text;
  }
  return "?";
}

std::optional<ConflictMode> conflict_mode_from_text(std::string_view text) {
  for (const auto& entry : kModes) {
    if (text == entry.text) return entry.mode;
  }
  return std::nullopt;
}

std::optional<ServerAddress> parse_server_address(std::string_view text) {
  ServerAddress server;
  const auto colon = text.find(':');
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (error != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535) {
      return std::nullopt;
    }
    server.port = static_cast<std::uint16_t>(value);
    text = text.substr(0, colon);
  }
  const auto address = Ipv4::parse(text);
  if (!address) return std::nullopt;
  server.address = *address;
  return server;
}

std::uint32_t ttl_for_lease(const TtlPolicy& policy, Duration lease_time) {
  if (policy.fixed_s) return *policy.fixed_s;
  const double seconds =
      std::floor(std::chrono::duration<double>(lease_time).count() * policy.lease_fraction);
  const double clamped = std::clamp(seconds, static_cast<double>(policy.min_s), static_cast<double>(policy.max_s));
  return static_cast<std::uint32_t>(clamped);
}

Expected<void, std::string> validate(const Settings& settings) {
  if (settings.forward_zone.is_root()) return unexpected(std::string("forward-zone: the root is not a zone"));
  const auto in_addr_arpa = Name::from_text("in-addr.arpa.");
  for (const auto& zone : settings.reverse_zones) {
    if (!zone.is_within(*in_addr_arpa) || zone == *in_addr_arpa) {
      return unexpected("reverse-zone '" + zone.to_text() + "' is not below in-addr.arpa");
    }
  }
  if (settings.ttl.lease_fraction <= 0 || settings.ttl.lease_fraction > 1) {
    return unexpected(std::string("ttl: the lease fraction must be in (0, 1]"));
  }
  if (settings.ttl.min_s > settings.ttl.max_s) return unexpected(std::string("ttl: min above max"));
  if (settings.max_attempts == 0 || settings.max_in_flight == 0 || settings.max_queued == 0) {
    return unexpected(std::string("attempts, in-flight and queue limits must be at least 1"));
  }
  if (settings.exchange_timeout <= Duration::zero() || settings.first_retry <= Duration::zero() ||
      settings.max_retry < settings.first_retry) {
    return unexpected(std::string("timeouts must be positive and max-retry at least first-retry"));
  }
  if (settings.key && settings.key->secret.empty()) return unexpected(std::string("key: empty secret"));
  return {};
}

}  // namespace landlord::ddns
