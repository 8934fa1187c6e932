#include "landlord/server/clock_agreement.hpp"

#include <fmt/format.h>

#include "landlord/config/values.hpp"

namespace landlord::server {

std::string offset_text(Duration offset) {
  const bool behind = offset < Duration{0};
  return fmt::format("{} ms {}", (behind ? -offset : offset).count(), behind ? "behind" : "ahead of");
}

ClockAgreement::ClockAgreement(bool shared, Duration max_skew)
    : max_skew_(max_skew), state_(shared ? State::Unknown : State::Agrees), agreed_once_(!shared) {}

ClockAgreement::Change ClockAgreement::read(Duration offset) {
  offset_ = offset;
  const bool agrees = (offset < Duration{0} ? -offset : offset) <= max_skew_;
  const State before = state_;
  state_ = agrees ? State::Agrees : State::Disagrees;
  if (state_ == before) return Change::None;
  if (!agrees) return Change::Disagrees;
  const bool first = !agreed_once_;
  agreed_once_ = true;
  return first ? Change::FirstAgrees : Change::AgreesAgain;
}

Expected<void, std::string> ClockAgreement::may_end_leases() const {
  if (agrees()) return {};
  return unexpected(disagreement() + ": this server ends no lease until the clocks agree");
}

std::string ClockAgreement::disagreement() const {
  if (!offset_) return "this server has not compared its clock with the shared store's yet";
  return fmt::format("this server's clock is {} the shared store's, more than store.max-clock-skew {}",
                     offset_text(*offset_), config::format_duration(max_skew_));
}

}  // namespace landlord::server
