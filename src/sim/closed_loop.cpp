#include "landlord/sim/closed_loop.hpp"

#include <algorithm>
#include <cmath>

namespace landlord::sim {

namespace {

double seconds(Duration duration) { return std::chrono::duration<double>(duration).count(); }

std::int64_t nanoseconds(Duration duration) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(duration).count();
}

// Every expected reply is decided by then: a REQUEST goes out at most 2 × deadline after the
// DISCOVER (else its ACK is already a miss) and is judged a deadline later.
Duration step_limit(const ClosedLoopPlan& plan) { return plan.step + 3 * plan.deadline; }
// Room for a late wake-up: a step planned to end by the run's end is judged before it.
constexpr Duration kStepMargin = std::chrono::seconds(1);

}  // namespace

std::string_view to_string(ClosedLoopStop stop) {
  switch (stop) {
    case ClosedLoopStop::Running: return "interrupted";
    case ClosedLoopStop::MissThreshold: return "miss-threshold";
    case ClosedLoopStop::Steps: return "max-steps";
    case ClosedLoopStop::Duration: return "duration";
    case ClosedLoopStop::Clients: return "max-clients";
  }
  return "?";
}

// Replies not yet decided count as missed, so a step cut short is judged pessimistically.
StepTally tally_step(const Fleet& fleet, ClientIndex first, std::size_t count,
                     std::int64_t now_ns, Duration deadline) {
  const std::int64_t deadline_ns = nanoseconds(deadline);
  StepTally tally;
  const auto judge = [&](std::int64_t sent_ns, std::int64_t reply_ns) {
    if (reply_ns >= 0) {
      if (reply_ns - sent_ns > deadline_ns) ++tally.replies_missed;
      return;
    }
    ++tally.replies_missed;
    if (now_ns - sent_ns <= deadline_ns) tally.decided = false;  // it may still come in time
  };
  const std::size_t end = std::min<std::size_t>(first + count, fleet.client_count());
  if (end < first + count) {  // not all arrived yet
    tally.decided = false;
    tally.replies_missed += 2 * (first + count - end);
  }
  for (std::size_t i = first; i < end; ++i) {
    const DoraStamps& stamps = fleet.dora_stamps(static_cast<ClientIndex>(i));
    if (stamps.discover_ns < 0) {
      tally.replies_missed += 2;
      tally.decided = false;
      continue;
    }
    judge(stamps.discover_ns, stamps.offer_ns);
    if (stamps.ack_ns >= 0) ++tally.completed;
    if (stamps.request_ns >= 0) {
      judge(stamps.request_ns, stamps.ack_ns);
    } else {
      // No REQUEST yet: its ACK is missed once the OFFER itself is a deadline overdue.
      ++tally.replies_missed;
      if (now_ns - stamps.discover_ns <= 2 * deadline_ns) tally.decided = false;
    }
  }
  return tally;
}

ClosedLoop::ClosedLoop(const ClosedLoopPlan& plan, Fleet& fleet, TimePoint start)
    : plan_(plan),
      fleet_(fleet),
      end_(start + fleet.workload().duration),
      next_rate_per_s_(plan.start_rate_per_s) {}

std::size_t ClosedLoop::clients_for(double rate_per_s) const {
  return std::max<std::size_t>(
      1, static_cast<std::size_t>(std::llround(rate_per_s * seconds(plan_.step))));
}

std::size_t ClosedLoop::clients_needed() const {
  std::size_t total = 0;
  double rate = plan_.start_rate_per_s;
  for (std::size_t i = 0; i < plan_.max_steps; ++i, rate *= plan_.factor) {
    total += clients_for(rate);
  }
  return total;
}

std::optional<double> ClosedLoop::sustainable_dora_per_s() const {
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    if (it->passed) return it->completed_per_s;
  }
  return std::nullopt;
}

void ClosedLoop::begin_step(TimePoint now) {
  const std::size_t clients = clients_for(next_rate_per_s_);
  if (steps_.size() >= plan_.max_steps) {
    stop_ = ClosedLoopStop::Steps;
  } else if (plan_.max_clients > 0 && clients_used_ + clients > plan_.max_clients) {
    stop_ = ClosedLoopStop::Clients;
  } else if (now + step_limit(plan_) + kStepMargin > end_) {
    stop_ = ClosedLoopStop::Duration;
  }
  if (stop_ != ClosedLoopStop::Running) return;
  step_first_ = fleet_.add_arrivals(now, next_rate_per_s_, clients);
  step_clients_ = clients;
  step_arrivals_end_ = now + plan_.step;
  step_last_check_ = now;
  clients_used_ += clients;
  in_step_ = true;
}

void ClosedLoop::end_step(const StepTally& tally) {
  StepResult result;
  result.rate_per_s = next_rate_per_s_;
  result.clients = step_clients_;
  result.replies_missed = tally.replies_missed;
  result.completed = tally.completed;
  result.completed_per_s = static_cast<double>(tally.completed) / seconds(plan_.step);
  result.miss_fraction =
      static_cast<double>(tally.replies_missed) / static_cast<double>(2 * step_clients_);
  result.passed = result.miss_fraction <= plan_.max_miss_fraction;
  steps_.push_back(result);
  in_step_ = false;
  if (!result.passed) {
    stop_ = ClosedLoopStop::MissThreshold;
  } else {
    next_rate_per_s_ *= plan_.factor;
  }
}

void ClosedLoop::advance(TimePoint now, std::int64_t precise_ns, Sink& sink) {
  if (stop_ != ClosedLoopStop::Running) return;
  if (!in_step_) begin_step(now);
  if (stop_ != ClosedLoopStop::Running) return;
  fleet_.advance(now, precise_ns, sink);
  if (now < step_arrivals_end_) return;
  step_last_check_ = now;
  const StepTally tally =
      tally_step(fleet_, step_first_, step_clients_, precise_ns, plan_.deadline);
  if (!tally.decided && now < step_arrivals_end_ + 3 * plan_.deadline) return;
  end_step(tally);
  if (stop_ != ClosedLoopStop::Running) return;
  begin_step(now);
  if (stop_ == ClosedLoopStop::Running) fleet_.advance(now, precise_ns, sink);
}

// After the step's arrivals, look again every few milliseconds until its replies are decided.
std::optional<TimePoint> ClosedLoop::next_deadline() const {
  if (stop_ != ClosedLoopStop::Running) return std::nullopt;
  if (!in_step_) return step_last_check_;
  std::optional<TimePoint> next = fleet_.next_deadline();
  const TimePoint check = std::max(step_arrivals_end_, step_last_check_ + kRecheck);
  if (!next || check < *next) next = check;
  return next;
}

}  // namespace landlord::sim
