#pragma once
// Whether this server's clock agrees with a shared store's (docs/lease-store.md, "Clocks"): the
// one rule for answering requests and ending leases by this server's clock. Beyond
// store.max-clock-skew the lease ends this server writes and the expiries it computes are not
// the other servers': it answers nobody and ends no lease until a reading agrees again.
// A shared store's agreement starts unknown and is treated as a disagreement until the change
// feed's first reading (ViewSync): a lease ended before then might be one the other servers
// still count as bound. A store of its own has no other clock to disagree with: it always agrees.
#include <optional>
#include <string>

#include "landlord/base/expected.hpp"
#include "landlord/base/time.hpp"

namespace landlord::server {

// "30000 ms behind" or "12 ms ahead of": how an offset (local minus the store's) reads in a log.
std::string offset_text(Duration offset);

class ClockAgreement {
 public:
  enum class State { Unknown, Agrees, Disagrees };
  // What a reading changed, for the caller's log and its reclaim of what ended meanwhile:
  // FirstAgrees the first time this server's clock agrees (it has answered nobody yet, even when
  // earlier readings disagreed), AgreesAgain after a disagreement that followed an agreement.
  enum class Change { None, FirstAgrees, Disagrees, AgreesAgain };

  // `shared`: the store is shared with other servers (PostgreSQL); otherwise it always agrees.
  ClockAgreement(bool shared, Duration max_skew);

  // A reading: this server's clock minus the store's.
  Change read(Duration offset);

  State state() const { return state_; }
  bool agrees() const { return state_ == State::Agrees; }
  std::optional<Duration> offset() const { return offset_; }
  Duration max_skew() const { return max_skew_; }

  // Whether this server may end leases by its own clock now, or why not (Daemon::may_end_leases).
  Expected<void, std::string> may_end_leases() const;
  // Why it does not agree: no reading yet, or "this server's clock is N ms behind the shared
  // store's, more than store.max-clock-skew 1s".
  std::string disagreement() const;

 private:
  Duration max_skew_;
  State state_;
  std::optional<Duration> offset_;  // the last reading
  bool agreed_once_;                 // since the start
};

}  // namespace landlord::server
