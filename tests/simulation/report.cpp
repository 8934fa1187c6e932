// The report's text, and the environment variables a developer sets to sweep or replay.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "simulator.hpp"

namespace landlord::simulation {

double SimulationReport::virtual_hours_per_wall_second() const {
  const double hours = std::chrono::duration<double, std::ratio<3600>>(virtual_time).count();
  return wall_seconds > 0 ? hours / wall_seconds : 0;
}

std::string SimulationReport::summary() const {
  std::string text = fmt::format(
      "seed={} virtual={:.2f} h wall={:.2f} s ({:.1f} virtual h/s) digest={:016x}\n"
      "  fleet: clients={} leases={} renewals={} rebinds={} naks={} expirations={} releases={} "
      "declines={} vanished={} reboots={} gave_up={} retransmissions={} unicast_blocked={}\n"
      "  engine: discovers={} offers={} grants={} renewals={} rebinds={} naks={} declines={} "
      "releases={} expirations={} ignored={} pool_exhausted={}\n"
      "  server: crashes={} commits={} failed_commits={} records={} lost_to_crashes={} "
      "lost_while_down={} "
      "undeliverable={} out_of_order_refusals={} answered_from_durable={} "
      "reboots_answered_from_durable={} audits={} "
      "agreement_checks={}\n"
      "  rival: grants={} lost_races={} fenced={} learned={}\n"
      "  network: to_server sent={} dropped={} duplicated={}; to_clients sent={} dropped={} "
      "duplicated={}\n"
      "  violations: auditor={} server={}",
      seed, std::chrono::duration<double, std::ratio<3600>>(virtual_time).count(), wall_seconds,
      virtual_hours_per_wall_second(), digest, fleet.clients_started, fleet.leases, fleet.renewals,
      fleet.rebinds, fleet.naks, fleet.expirations, fleet.releases, fleet.declines, fleet.vanished,
      fleet.reboots, fleet.gave_up, fleet.retransmissions, fleet.unicast_blocked, engine.discovers,
      engine.offers, engine.grants, engine.renewals, engine.rebinds, engine.naks, engine.declines,
      engine.releases, engine.expirations, engine.ignored, engine.pool_exhausted, crashes, commits,
      failed_commits, records_committed, lost_to_crashes, lost_while_down, undeliverable,
      out_of_order_refusals, answered_from_durable, reboots_answered_from_durable, audits,
      agreement_checks, rival_grants, rival_lost_races, rival_fenced, engine.learned, to_server.sent, to_server.dropped, to_server.duplicated, to_clients.sent,
      to_clients.dropped, to_clients.duplicated, auditor_violation_count, finding_count);
  for (const sim::Violation& violation : auditor_violations) {
    text += fmt::format("\n  auditor {} at +{} ms: {}", to_string(violation.kind),
                        (violation.at - kSimulationEpoch).count(), violation.detail);
  }
  for (const Finding& finding : findings) {
    text += fmt::format("\n  server {} at +{} ms: {}", finding.rule,
                        (finding.at - kSimulationEpoch).count(), finding.detail);
  }
  return text;
}

std::optional<Ipv4> trace_address_from_environment() {
  const char* text = std::getenv("LANDLORD_SIM_TRACE");
  if (text == nullptr || *text == '\0') return std::nullopt;
  return Ipv4::parse(text);
}

namespace {

// An environment variable as a whole decimal number; unset or empty is nullopt. A typo or a
// trailing word is an error, not a zero that would quietly run no seeds.
Expected<std::optional<std::uint64_t>, std::string> number_from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::optional<std::uint64_t>{};
  std::uint64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc{} || stop != end) {
    return unexpected(fmt::format("{}={} is not a whole number", name, text));
  }
  return std::optional<std::uint64_t>{value};
}

}  // namespace

Expected<std::vector<std::uint64_t>, std::string> seeds_from_environment(std::size_t default_count) {
  const auto one = number_from_environment("LANDLORD_SIM_SEED");
  if (!one) return unexpected(one.error());
  if (*one) return std::vector<std::uint64_t>{**one};
  const auto many = number_from_environment("LANDLORD_SIM_SEEDS");
  if (!many) return unexpected(many.error());
  const std::uint64_t count = many->value_or(default_count);
  if (count == 0) return unexpected(std::string("LANDLORD_SIM_SEEDS=0 would run no seed"));
  const auto from = number_from_environment("LANDLORD_SIM_FIRST_SEED");
  if (!from) return unexpected(from.error());
  const std::uint64_t first = from->value_or(1);
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = 0; i < count; ++i) seeds.push_back(first + i);
  return seeds;
}

}  // namespace landlord::simulation
