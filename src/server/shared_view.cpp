#include "shared_view.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "landlord/config/values.hpp"

namespace landlord::server {

void SharedView::failed(const store::StoreError& error, RateLimitedLog::Steady::time_point now) {
  ++sync_failures_;
  if (view_current_) {
    spdlog::error("lost the shared store's changes: {}; not answering requests until the view "
                  "is reloaded",
                  error.message);
  } else {
    view_log_.log(now, spdlog::level::warn, "shared store still unreachable: {}", error.message);
  }
  view_current_ = false;
}

void SharedView::recovered(std::uint64_t learned) {
  view_current_ = true;
  spdlog::info("shared store reachable again: the view is reloaded ({} records learned in all); "
               "answering again",
               learned);
}

void SharedView::log_clock_change(ClockAgreement::Change change, Duration offset, Duration round_trip) const {
  switch (change) {
    case ClockAgreement::Change::None: break;
    case ClockAgreement::Change::Disagrees:
      spdlog::error("{}: not answering requests nor ending leases until the clocks agree (check "
                    "NTP on this host and the database's)",
                    clock_.disagreement());
      break;
    case ClockAgreement::Change::FirstAgrees:
      spdlog::info("this server's clock is {} the shared store's (round trip {} ms; "
                   "store.max-clock-skew {}): answering and ending leases",
                   offset_text(offset), round_trip.count(),
                   config::format_duration(clock_.max_skew()));
      break;
    case ClockAgreement::Change::AgreesAgain:
      spdlog::info("this server's clock agrees with the shared store's again ({}): answering again",
                   offset_text(offset));
      break;
  }
}

// Peers: who is up by their sessions with the shared store (view_sync.hpp, engine.hpp).
void SharedView::peers_seen(engine::Engine& engine, const std::vector<Ipv4>& up, bool held,
                            std::optional<Ipv4> server_id) {
  std::string listed;
  for (const Ipv4 peer : up) listed += (listed.empty() ? "" : ", ") + peer.to_string();
  spdlog::debug("servers connected to the shared store: {}", listed.empty() ? "none" : listed);
  for (const Ipv4 peer : engine.peers_up(up)) {
    if (std::find(up.begin(), up.end(), peer) == up.end()) {
      spdlog::warn("peer {} has no session with the shared store (stopped, killed or cut off): "
                   "answering its clients at once",
                   peer.to_string());
    } else {
      spdlog::info("peer {} is connected to the shared store: leaving its clients to it", peer.to_string());
    }
  }
  const std::string id = server_id ? server_id->to_string() : "none";
  if (!held && own_presence_held_) {
    spdlog::error("another session holds this server's presence on the shared store (server-id "
                  "{}): two servers with one server-id, or this server's previous session not "
                  "yet ended? Its peers cannot tell when it stops; asking again at every poll",
                  id);
  } else if (held && !own_presence_held_) {
    spdlog::info("this server holds its presence on the shared store again (server-id {})", id);
  }
  own_presence_held_ = held;
}

}  // namespace landlord::server
