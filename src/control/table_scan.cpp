#include "landlord/control/table_scan.hpp"

#include <algorithm>
#include <utility>

namespace landlord::control {

struct TableScanner::State {
  struct Scan {
    Visit visit;
    std::function<void()> done;
    std::size_t next = 0, end = 0;  // table positions still to read
  };
  State(Daemon& served, std::size_t records) : daemon(served), piece(records) {}
  Daemon& daemon;
  std::size_t piece;
  std::deque<Scan> scans;
  bool turn_posted = false;
};

namespace {

using StatePtr = std::shared_ptr<TableScanner::State>;

void post_turn(const StatePtr& state);

// One piece of the scan at the front, which then goes to the back (or ends).
void take_turn(const StatePtr& state) {
  state->turn_posted = false;
  if (state->scans.empty()) return;
  auto scan = std::move(state->scans.front());
  state->scans.pop_front();
  const std::size_t until = std::min(scan.end, scan.next + state->piece);
  state->daemon.engine().for_each_lease_in(scan.next, until, scan.visit);
  scan.next = until;
  if (scan.next < scan.end) {
    state->scans.push_back(std::move(scan));
  } else {
    scan.done();  // may start another scan
  }
  post_turn(state);
}

void post_turn(const StatePtr& state) {
  if (state->turn_posted || state->scans.empty()) return;
  state->turn_posted = true;
  state->daemon.defer([state] { take_turn(state); });
}

}  // namespace

TableScanner::TableScanner(Daemon& daemon, std::size_t piece)
    : state_(std::make_shared<State>(daemon, std::max<std::size_t>(piece, 1))) {}

void TableScanner::scan(Visit visit, std::function<void()> done) {
  // The end is fixed now: records added later, in new table positions, are not waited for.
  state_->scans.push_back({std::move(visit), std::move(done), 0, state_->daemon.engine().lease_positions()});
  post_turn(state_);
}

void TableScanner::cancel() { state_->scans.clear(); }

std::size_t TableScanner::running() const { return state_->scans.size(); }

}  // namespace landlord::control
