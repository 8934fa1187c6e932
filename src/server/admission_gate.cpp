#include "admission_gate.hpp"

#include <algorithm>
#include <string>

#include <spdlog/spdlog.h>

#include "landlord/base/hex.hpp"

namespace landlord::server {
namespace {

engine::Admission::Holds holds(engine::Engine& engine, lease::LeaseState state) {
  return [&engine, state](Ipv4 address, const ClientKey& client) {
    const auto record = engine.find(address);
    return record && record->state == state && record->client == client;
  };
}

}  // namespace

bool chaddr_is_sender(const HardwareAddress& chaddr, const Mac& frame_source) {
  const auto bytes = chaddr.bytes();
  return std::equal(bytes.begin(), bytes.end(), frame_source.begin(), frame_source.end());
}

AdmissionGate::AdmissionGate(const config::Config& config, engine::Engine& engine)
    : config_(&config),
      engine_(engine),
      limits_(config, holds(engine, lease::LeaseState::Offered), holds(engine, lease::LeaseState::Bound)) {}

void AdmissionGate::reconfigure(const config::Config& config) {
  config_ = &config;
  limits_.reconfigure(config);
  open_frame_sources(config);
}

// The frames' source addresses: what verify-chaddr checks, and who a direct request's sender
// is for the limits per source (source-offers, source-leases).
void AdmissionGate::open_frame_sources(const config::Config& config) {
  const bool wanted = !config.server.interfaces.empty() &&
                      std::any_of(config.subnets.begin(), config.subnets.end(), [](const config::Subnet& subnet) {
                        const config::Admission& admission = subnet.admission;
                        return admission.verify_chaddr || admission.source_offers > 0 || admission.source_leases > 0;
                      });
  if (!wanted || frames_) return;
  auto opened = FrameSources::open();
  if (!opened) {
    spdlog::warn("admission needs the frames' source addresses but {}: chaddr is not checked against the frame, "
                 "and a direct sender is told by its chaddr",
                 opened.error());
    return;
  }
  frames_ = std::move(*opened);
}

void AdmissionGate::frames_arrived(const std::unordered_set<std::uint32_t>& served) {
  if (frames_) frames_->drain(served);
}

std::optional<engine::Outcome> AdmissionGate::admit(const wire::Message& request, const Datagram& datagram,
                                                    const engine::Ingress& ingress, const Link* link,
                                                    const std::unordered_set<std::uint32_t>& served,
                                                    const Clock& clock) {
  const auto type = request.type();
  if (type == wire::MessageType::Discover &&
      waited_too_long(datagram, clock.realtime_ns(), config_->server.discover_max_wait)) {
    ++counters_.discover_shed;
    shed_log_.log(clock.steady(), spdlog::level::warn,
                  "shed a DISCOVER from {} that waited {} ms in the receive queue (discover-max-wait): "
                  "the server is behind",
                  request.hardware_address().to_string(), (clock.realtime_ns() - datagram.queued_at_ns) / 1'000'000);
    return std::nullopt;
  }
  const engine::RequestFacts facts = engine_.request_facts(request, ingress);
  std::optional<Mac> frame_source;
  if (frames_ && request.giaddr.is_zero() && ingress.to_broadcast && served.contains(datagram.interface_index)) {
    frame_source = frames_->take(datagram.interface_index, request.xid, request.hardware_address());
    if (!frame_source) ++counters_.frames_unseen;
  }
  if (frame_source && facts.subnet_id != 0 && config_->subnets[facts.subnet_id - 1].admission.verify_chaddr &&
      !chaddr_is_sender(request.hardware_address(), *frame_source)) {
    ++counters_.chaddr_mismatch;
    mismatch_log_.log(clock.steady(), spdlog::level::warn,
                      "dropped a {} with chaddr {} sent from {} on {}: not the sender's own address "
                      "(admission.verify-chaddr of subnet {})",
                      wire::to_string(*type), request.hardware_address().to_string(), to_colon_hex(*frame_source),
                      link != nullptr ? link->name : "?", facts.subnet_id);
    return std::nullopt;
  }
  const engine::Applicant applicant = engine::applicant_of(request, ingress, frame_source);
  engine::Admitted admitted = engine::handle_admitted(engine_, limits_, facts, request, ingress, applicant, clock.now());
  if (!admitted.refusal) return std::move(admitted.outcome);
  refused_log_.log(clock.steady(), spdlog::level::warn,
                   "refused a new address to {} (sent from {}, {}{}) in subnet {}: {} limit (admission)",
                   request.hardware_address().to_string(),
                   frame_source ? to_colon_hex(*frame_source) : std::string{"?"},
                   request.giaddr.is_zero() ? "link " + std::string{link != nullptr ? link->name : "?"}
                                            : "relay " + request.giaddr.to_string(),
                   applicant.circuit_id.empty() ? std::string{} : ", circuit-id " + to_hex(applicant.circuit_id),
                   facts.subnet_id, engine::to_string(*admitted.refusal));
  return std::nullopt;
}

}  // namespace landlord::server
