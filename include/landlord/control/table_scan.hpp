#pragma once
// Whole-table reads for the control API (lease4-get-all, -get-page, statistic-get-all, /metrics,
// lookups by client), done in pieces so that they never starve packet handling: at most
// kScanPiece records are read per turn of the event loop, and only one piece per turn however
// many scans are running (they take turns), so a datagram waits for at most one piece.
//
// Consistency: each record is seen as it was when its piece was read. A record that exists
// for the whole scan is seen exactly once; one created or removed during the scan may be seen or
// not, and an address whose record went away and came back in another table position may be
// seen twice (the lease-list commands keep the later copy, so every address appears once).
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>

#include "landlord/control/daemon.hpp"

namespace landlord::control {

inline constexpr std::size_t kScanPiece = 4096;

class TableScanner {
 public:
  using Visit = std::function<void(const lease::Lease&)>;
  explicit TableScanner(Daemon& daemon, std::size_t piece = kScanPiece);

  // Calls `visit` for every record, a piece per turn, then `done`, all on the event loop.
  void scan(Visit visit, std::function<void()> done);
  // Drops the scans in progress (the service stopping): their `done` never runs.
  void cancel();
  std::size_t running() const;

  struct State;  // shared with the turn posted to the loop

 private:
  std::shared_ptr<State> state_;
};

}  // namespace landlord::control
