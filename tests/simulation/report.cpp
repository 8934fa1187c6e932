// The report's text, and the environment variables a developer sets to sweep or replay.
#include <fmt/format.h>

#include <cstdlib>

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
      "undeliverable={} audits={} agreement_checks={}\n"
      "  network: to_server sent={} dropped={} duplicated={}; to_clients sent={} dropped={} "
      "duplicated={}\n"
      "  violations: auditor={} server={}",
      seed, std::chrono::duration<double, std::ratio<3600>>(virtual_time).count(), wall_seconds,
      virtual_hours_per_wall_second(), digest, fleet.clients_started, fleet.leases, fleet.renewals,
      fleet.rebinds, fleet.naks, fleet.expirations, fleet.releases, fleet.declines, fleet.vanished,
      fleet.reboots, fleet.gave_up, fleet.retransmissions, fleet.unicast_blocked, engine.discovers,
      engine.offers, engine.grants, engine.renewals, engine.rebinds, engine.naks, engine.declines,
      engine.releases, engine.expirations, engine.ignored, engine.pool_exhausted, crashes, commits,
      failed_commits, records_committed, lost_to_crashes, lost_while_down, undeliverable, audits,
      agreement_checks, to_server.sent, to_server.dropped, to_server.duplicated, to_clients.sent,
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

std::vector<std::uint64_t> seeds_from_environment(std::size_t default_count) {
  if (const char* one = std::getenv("LANDLORD_SIM_SEED"); one != nullptr && *one != '\0') {
    return {std::strtoull(one, nullptr, 10)};
  }
  std::size_t count = default_count;
  if (const char* many = std::getenv("LANDLORD_SIM_SEEDS"); many != nullptr && *many != '\0') {
    count = std::strtoull(many, nullptr, 10);
  }
  std::uint64_t first = 1;
  if (const char* from = std::getenv("LANDLORD_SIM_FIRST_SEED"); from != nullptr && *from != '\0') {
    first = std::strtoull(from, nullptr, 10);
  }
  std::vector<std::uint64_t> seeds;
  for (std::size_t i = 0; i < count; ++i) seeds.push_back(first + i);
  return seeds;
}

}  // namespace landlord::simulation
