#pragma once
// A shared (PostgreSQL) store, as the daemon follows it (view_sync.hpp feeds it from its
// thread, on the event loop): whether this server's view of the others' leases is current,
// whether its clock agrees with the store's, and which peers hold a session. While either is
// not so, requests are not answered (accepts(): counted here); each change is logged here.
// With a store of its own the view is always current and the clock always agrees.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/server/clock_agreement.hpp"
#include "landlord/server/rate_limit.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::server {

class SharedView {
 public:
  // `shared`: the store is shared with other servers; `max_skew`: store.max-clock-skew.
  SharedView(bool shared, Duration max_skew) : clock_(shared, max_skew) {}

  // Whether a request may be answered now; a refused one is counted (dropped_view_stale,
  // dropped_clock_skew).
  bool accepts() {
    if (!view_current_) {  // a shared store we cannot read: our view may miss others' grants
      ++dropped_view_stale_;
      return false;
    }
    if (!clock_.agrees()) {  // our lease ends might not be the other servers' (clock_agreement.hpp)
      ++dropped_clock_skew_;
      return false;
    }
    return true;
  }

  // A poll of the others' changes failed / worked again (`learned`: records learned in all).
  void failed(const store::StoreError& error, RateLimitedLog::Steady::time_point now);
  void recovered(std::uint64_t learned);
  // A reading of this server's clock against the store's: what it changed, then logged by
  // log_clock_change (the caller tells systemd in between, as before).
  ClockAgreement::Change clock_read(Duration offset) { return clock_.read(offset); }
  void log_clock_change(ClockAgreement::Change change, Duration offset, Duration round_trip) const;
  // The peers with a session on the store, and whether this server holds its own presence.
  void peers_seen(engine::Engine& engine, const std::vector<Ipv4>& up, bool held, std::optional<Ipv4> server_id);

  const ClockAgreement& clock() const { return clock_; }
  bool view_current() const { return view_current_; }
  std::uint64_t sync_failures() const { return sync_failures_; }
  std::uint64_t dropped_view_stale() const { return dropped_view_stale_; }
  std::uint64_t dropped_clock_skew() const { return dropped_clock_skew_; }

 private:
  ClockAgreement clock_;  // with the shared store's: unknown until the first reading
  bool view_current_ = true;
  bool own_presence_held_ = true;  // the last peers_seen(): a refusal is logged once
  std::uint64_t sync_failures_ = 0, dropped_view_stale_ = 0, dropped_clock_skew_ = 0;
  RateLimitedLog view_log_;
};

}  // namespace landlord::server
