#include "landlord/server/commit_pipeline.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace landlord::server {

CommitPipeline::CommitPipeline(boost::asio::io_context& io, Committer& committer,
                               engine::Engine& engine, const Clock& clock, Released released,
                               durability::Options options)
    : io_(io),
      committer_(committer),
      engine_(engine),
      clock_(clock),
      released_(std::move(released)),
      machine_(options),
      retry_timer_(io) {}

void CommitPipeline::drive() {
  // A batch the committer cannot take is answered at once, and what that releases comes out
  // of the next pass: loop until the machine has nothing more.
  const TimePoint now = clock_.now();
  while (machine_.has_ready(now)) {
    machine_.ready(now, ready_);
    for (const durability::Notice& notice : ready_.notices) log_notice(notice);
    for (const durability::Release& release : ready_.released) released_(release);
    for (const durability::Batch& batch : ready_.batches) {
      const std::uint64_t id = batch.id;
      const std::size_t records = batch.records.size();
      const bool accepted = committer_.submit(
          batch.records,
          [this, id](CommitResult result) { complete(id, std::move(result)); });
      if (!accepted) {
        machine_.not_taken(id, now);
        queue_full_log_.log(
            clock_.steady(),
            spdlog::level::warn,
            "store commit queue full: {} records not taken ({}); their replies are not sent, the "
            "records wait for a retry. The store is not failing: records come faster than it "
            "commits them ({} batches refused so far)",
            records, batch.retry ? "a retry of waiting records" : "new outcomes",
            machine_.counters().not_taken);
      }
    }
  }
  arm_retry_timer();
}

void CommitPipeline::retry_now() {
  machine_.retry_now();
  drive();
}

void CommitPipeline::complete(std::uint64_t batch, CommitResult result) {
  bool first = false;
  {
    std::lock_guard lock(completed_mutex_);
    first = completed_.empty();
    completed_.push_back(Completed{batch, std::move(result)});
  }
  if (first) boost::asio::post(io_, [this] { run_completed(); });
}

void CommitPipeline::run_completed() {
  {
    std::lock_guard lock(completed_mutex_);
    std::swap(completed_, running_);
  }
  const TimePoint now = clock_.now();
  for (Completed& completed : running_) {
    machine_.committed(completed.batch, std::move(completed.result), engine_, now);
  }
  running_.clear();
  drive();
}

void CommitPipeline::arm_retry_timer() {
  const auto at = machine_.next_retry();
  if (!at || (armed_retry_ && *armed_retry_ <= *at)) return;
  armed_retry_ = at;
  retry_timer_.expires_at(clock_.to_steady(*at));
  retry_timer_.async_wait([this](const boost::system::error_code& error) {
    if (error) return;  // re-armed earlier
    armed_retry_.reset();
    drive();
  });
}

void CommitPipeline::log_notice(const durability::Notice& notice) {
  if (notice.kind == durability::NoticeKind::StoreRecovered) {
    spdlog::warn("store recovered: {} waiting records written; acknowledging again",
                 notice.records);
    return;
  }
  // A failing disk fails every commit: one line per few seconds says it all.
  failure_log_.log(clock_.steady(), spdlog::level::err,
                   "store commit failed: {}; not acknowledging grants or extensions until the "
                   "store accepts writes; {} records waiting, retrying",
                   notice.message, notice.records);
}

}  // namespace landlord::server
