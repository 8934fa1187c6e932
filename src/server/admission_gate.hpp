#pragma once
// The server's admission step: what happens to a parsed, served request before the engine
// decides it. The one home of the admission pipeline, in this order:
//   1. discover-max-wait: a DISCOVER that waited too long in the receive queue is shed (the
//      kernel's receive timestamp against Clock::realtime_ns, ingress.hpp waited_too_long);
//   2. the frame's source: for a direct broadcast on a served link, the source address of the
//      Ethernet frame that carried it (FrameSources), when the server sees frames;
//   3. admission.verify-chaddr: a request whose chaddr is not that source is dropped;
//   4. the pool starvation limits (engine/admission.hpp: rates, lease caps, outstanding
//      offers), then the engine (engine::handle_admitted).
// A rule that needs only the request and the lease table belongs in engine/admission.cpp (the
// simulation and the transcripts run it too); only a rule that needs a fact of the I/O (a
// timestamp, a frame) belongs here. Each drop is counted and logged (rate-limited) here.
#include <array>
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "frame_sources.hpp"
#include "landlord/config/config.hpp"
#include "landlord/engine/admission.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock.hpp"
#include "landlord/server/ingress.hpp"
#include "landlord/server/links.hpp"
#include "landlord/server/rate_limit.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::server {

// Whether a request's chaddr is the address of the frame that carried it (verify-chaddr).
bool chaddr_is_sender(const HardwareAddress& chaddr, const Mac& frame_source);

struct GateCounters {
  std::uint64_t chaddr_mismatch = 0;  // dropped: chaddr not the frame's source (verify-chaddr)
  std::uint64_t discover_shed = 0;    // DISCOVERs dropped for waiting past discover-max-wait
  std::uint64_t frames_unseen = 0;    // direct broadcasts whose frame was not seen (unchecked)
};

class AdmissionGate {
 public:
  // `engine` is asked whether it still holds an offer or lease (engine::Admission::Holds).
  AdmissionGate(const config::Config& config, engine::Engine& engine);

  // SIGHUP: the new limits, and the frames opened if a subnet now needs them.
  void reconfigure(const config::Config& config);
  // Opens the frame socket when a subnet verifies chaddr or limits per source and the server
  // serves links directly; logs why not when it cannot (the checks are then skipped).
  void open_frame_sources(const config::Config& config);
  // The frames that carried the datagrams just read were queued before them (frame_sources.hpp).
  void frames_arrived(const std::unordered_set<std::uint32_t>& served);

  // The engine's outcome for an admitted request; nullopt when it was dropped (counted, logged).
  // The clock is read only as far as the request needs it: a DISCOVER's wait by realtime_ns,
  // the engine's time by now, a log line's by steady.
  std::optional<engine::Outcome> admit(const wire::Message& request, const Datagram& datagram,
                                       const engine::Ingress& ingress, const Link* link,
                                       const std::unordered_set<std::uint32_t>& served, const Clock& clock);

  const GateCounters& counters() const { return counters_; }
  const engine::AdmissionCounters& limit_counters() const { return limits_.counters(); }

 private:
  const config::Config* config_;
  engine::Engine& engine_;
  engine::Admission limits_;
  std::optional<FrameSources> frames_;  // when a subnet needs them and CAP_NET_RAW allows
  GateCounters counters_;
  RateLimitedLog shed_log_, mismatch_log_, refused_log_;
};

}  // namespace landlord::server
