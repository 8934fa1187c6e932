// A subnet's `admission:` map: the pool starvation defences (config.hpp: Admission).
#include <charconv>
#include <cmath>

#include "landlord/config/keys.hpp"
#include "landlord/config/values.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr double kMaxRatePerSecond = 1e6;
constexpr std::uint64_t kMaxBurst = 1'000'000;
constexpr std::uint64_t kMaxLeaseCap = 1u << 24;  // the most addresses a server holds
constexpr Duration kMaxDiscoverWait = std::chrono::seconds{10};

// "5" or "5/s" a second, "30/m" a minute, "100/h" an hour; 0 turns the limit off.
Expected<double, std::string> parse_rate(std::string_view text) {
  const auto slash = text.find('/');
  const std::string_view number = text.substr(0, slash);
  double value = 0;
  const auto [end, failure] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || failure != std::errc{} || end != number.data() + number.size() ||
      !std::isfinite(value) || value < 0) {
    return unexpected("'" + std::string{text} + "' is not a rate (e.g. 5, 5/s, 30/m, 100/h)");
  }
  double per_second = value;
  if (slash != std::string_view::npos) {
    const std::string_view unit = text.substr(slash + 1);
    if (unit == "m") {
      per_second = value / 60;
    } else if (unit == "h") {
      per_second = value / 3600;
    } else if (unit != "s") {
      return unexpected("'" + std::string{text} + "': the unit after '/' is s, m or h");
    }
  }
  if (per_second > kMaxRatePerSecond) return unexpected("'" + std::string{text} + "' is over 1000000/s");
  return per_second;
}

std::uint32_t read_count(Reader& reader, const Field& field, std::uint64_t max, std::uint32_t fallback) {
  const auto value = reader.unsigned_integer(field, 0, max);
  return value ? static_cast<std::uint32_t>(*value) : fallback;
}

}  // namespace

Admission read_admission(Reader& reader, const Field& field) {
  Admission admission;
  const auto section = reader.section(field, keys::kAdmission);
  std::optional<YAML::Mark> client_burst, relay_burst, circuit_burst, source_leases;
  for (const Field& entry : section.fields) {
    const auto rate = [&](TokenRate& into) {
      if (const auto value = reader.parsed(entry, parse_rate)) into.rate = *value;
    };
    const auto burst = [&](TokenRate& into, std::optional<YAML::Mark>& mark) {
      into.burst = read_count(reader, entry, kMaxBurst, into.burst);
      mark = entry.mark();
    };
    if (entry.name == "verify-chaddr") {
      if (const auto value = reader.boolean(entry)) admission.verify_chaddr = *value;
    } else if (entry.name == "client-rate") {
      rate(admission.client);
    } else if (entry.name == "client-burst") {
      burst(admission.client, client_burst);
    } else if (entry.name == "relay-rate") {
      rate(admission.relay);
    } else if (entry.name == "relay-burst") {
      burst(admission.relay, relay_burst);
    } else if (entry.name == "circuit-rate") {
      rate(admission.circuit);
    } else if (entry.name == "circuit-burst") {
      burst(admission.circuit, circuit_burst);
    } else if (entry.name == "circuit-leases") {
      admission.circuit_leases = read_count(reader, entry, kMaxLeaseCap, 0);
    } else if (entry.name == "remote-leases") {
      admission.remote_leases = read_count(reader, entry, kMaxLeaseCap, 0);
    } else if (entry.name == "relay-leases") {
      admission.relay_leases = read_count(reader, entry, kMaxLeaseCap, 0);
    } else if (entry.name == "mac-prefix-length") {
      const auto value = reader.unsigned_integer(entry, 1, 15);
      if (value) admission.mac_prefix_length = static_cast<std::uint32_t>(*value);
    } else if (entry.name == "mac-prefix-leases") {
      admission.mac_prefix_leases = read_count(reader, entry, kMaxLeaseCap, 0);
    } else if (entry.name == "source-offers") {
      admission.source_offers = read_count(reader, entry, kMaxLeaseCap, admission.source_offers);
    } else if (entry.name == "source-leases") {
      admission.source_leases = read_count(reader, entry, kMaxLeaseCap, 0);
      source_leases = entry.mark();
    }
  }
  // A bucket that limits needs room for one request at least; a burst with no rate is a slip.
  const auto check = [&](const TokenRate& bucket, const std::optional<YAML::Mark>& mark, std::string_view name) {
    if (bucket.limits() && bucket.burst == 0) {
      reader.error(mark.value_or(section.mark),
                   "'" + std::string{name} + "-burst' must be at least 1 while '" + std::string{name} +
                       "-rate' limits: no request could pass");
    }
    if (!bucket.limits() && mark && bucket.burst > 0) {
      reader.error(*mark, "'" + std::string{name} + "-burst' without '" + std::string{name} +
                              "-rate' limits nothing; set the rate too");
    }
  };
  // The relay and circuit buckets have no default: their burst is the rate's, rounded up,
  // unless given.
  for (TokenRate* bucket : {&admission.relay, &admission.circuit}) {
    const bool burst_given = bucket == &admission.relay ? relay_burst.has_value() : circuit_burst.has_value();
    if (bucket->limits() && !burst_given) bucket->burst = static_cast<std::uint32_t>(std::max(1.0, std::ceil(bucket->rate)));
  }
  check(admission.client, client_burst, "client");
  check(admission.relay, relay_burst, "relay");
  check(admission.circuit, circuit_burst, "circuit");
  // One host's cap above its whole link's would never be the one reached.
  if (source_leases && admission.source_leases > 0 && admission.relay_leases > 0 &&
      admission.source_leases > admission.relay_leases) {
    reader.error(*source_leases, "'source-leases' " + std::to_string(admission.source_leases) +
                                     " is over 'relay-leases' " + std::to_string(admission.relay_leases) +
                                     ": one host's cap must be below its link's");
  }
  return admission;
}

std::optional<Duration> read_discover_max_wait(Reader& reader, const Field& field) {
  const auto wait = reader.parsed(field, parse_duration);
  if (!wait) return std::nullopt;
  if (wait->count() < 0 || *wait > kMaxDiscoverWait) {
    reader.error(field.mark(), "'discover-max-wait' must be 0s (never shed) to 10s: a client retransmits after ~4s");
    return std::nullopt;
  }
  return *wait;
}

}  // namespace landlord::config::detail
