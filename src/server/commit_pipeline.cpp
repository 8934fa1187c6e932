#include "landlord/server/commit_pipeline.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace landlord::server {

CommitPipeline::CommitPipeline(boost::asio::io_context& io, Committer& committer,
                               std::chrono::milliseconds retry_first,
                               std::chrono::milliseconds retry_max)
    : io_(io),
      committer_(committer),
      retry_timer_(io),
      retry_first_(retry_first),
      retry_max_(retry_max),
      retry_delay_(retry_first) {}

void CommitPipeline::submit(std::vector<lease::Lease> records, Done done) {
  const std::uint64_t sequence = next_sequence_++;
  if (!healthy_) {
    // Do not ACK while the store is failing; keep the records so they are written later.
    keep_for_retry(sequence, records);
    ++counters_.replies_dropped_store_down;
    boost::asio::post(io_, [done = std::move(done)] { done(CommitStatus::Unavailable); });
    return;
  }
  // The committer gets its own copy: on failure the records wait in the backlog.
  std::vector<lease::Lease> copy = records;
  const std::uint32_t slot = hold(InFlight{sequence, std::move(records), std::move(done)});
  const bool accepted = committer_.submit(
      std::move(copy), [this, slot](CommitResult result) { complete(slot, std::move(result)); });
  if (accepted) {
    ++in_flight_;
    return;
  }
  // Overload, not a failing store: drop this reply, keep its records for the retry.
  ++counters_.queue_full;
  ++counters_.replies_dropped_store_down;
  InFlight& entry = in_flight_slots_[slot];
  keep_for_retry(sequence, entry.records);
  boost::asio::post(io_, [done = std::move(entry.done)] { done(CommitStatus::Unavailable); });
  entry.records.clear();
  entry.done = nullptr;
  free_slots_.push_back(slot);
}

void CommitPipeline::complete(std::uint32_t slot, CommitResult result) {
  bool first = false;
  {
    std::lock_guard lock(completed_mutex_);
    first = completed_.empty();
    completed_.push_back(Completed{slot, std::move(result)});
  }
  if (first) boost::asio::post(io_, [this] { run_completed(); });
}

void CommitPipeline::run_completed() {
  {
    std::lock_guard lock(completed_mutex_);
    std::swap(completed_, running_);
  }
  for (Completed& completed : running_) {
    --in_flight_;
    InFlight& entry = in_flight_slots_[completed.slot];
    on_committed(entry.sequence, entry.records, std::move(completed.result), entry.done);
    entry.records.clear();
    entry.done = nullptr;
    free_slots_.push_back(completed.slot);
  }
  running_.clear();
}

std::uint32_t CommitPipeline::hold(InFlight&& entry) {
  if (free_slots_.empty()) {
    in_flight_slots_.push_back(std::move(entry));
    return static_cast<std::uint32_t>(in_flight_slots_.size() - 1);
  }
  const std::uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  in_flight_slots_[slot] = std::move(entry);
  return slot;
}

void CommitPipeline::on_committed(std::uint64_t sequence, const std::vector<lease::Lease>& records,
                                  CommitResult result, const Done& done) {
  if (!result) {
    ++counters_.store_failures;
    healthy_ = false;
    keep_for_retry(sequence, records);
    log_failure(result.error());
    ++counters_.replies_dropped_store_down;
    done(CommitStatus::Unavailable);
    return;
  }
  ++counters_.commits;
  bool stale = false;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const bool written = i < result->size() && (*result)[i] == store::WriteResult::Written;
    if (written) {
      ++counters_.records_written;
    } else {
      stale = true;
      ++counters_.stale_refusals;
    }
    // A record written now supersedes an older failed one still waiting for a retry.
    auto waiting = backlog_.find(records[i].address);
    if (waiting != backlog_.end() && waiting->second.sequence < sequence) backlog_.erase(waiting);
  }
  // A commit that went through proves the store writes again; what still waits goes next.
  if (!healthy_ && backlog_.empty()) {
    healthy_ = true;
    retry_delay_ = retry_first_;
  }
  done(stale ? CommitStatus::StaleToken : CommitStatus::Durable);
}

void CommitPipeline::keep_for_retry(std::uint64_t sequence,
                                    const std::vector<lease::Lease>& records) {
  for (const lease::Lease& record : records) {
    auto [entry, inserted] = backlog_.try_emplace(record.address, Pending{sequence, record});
    if (!inserted && entry->second.sequence < sequence) entry->second = Pending{sequence, record};
  }
  schedule_retry();
}

void CommitPipeline::schedule_retry() {
  if (retry_scheduled_ || retry_in_flight_ || backlog_.empty()) return;
  retry_scheduled_ = true;
  retry_timer_.expires_after(retry_delay_);
  retry_timer_.async_wait([this](const boost::system::error_code& error) {
    retry_scheduled_ = false;
    if (!error) retry();
  });
}

void CommitPipeline::retry_now() {
  if (retry_scheduled_) {
    retry_timer_.cancel();
    retry_scheduled_ = false;
  }
  retry();
}

void CommitPipeline::retry() {
  if (retry_in_flight_ || backlog_.empty()) return;
  retry_in_flight_ = true;
  ++in_flight_;
  auto records = std::make_shared<std::vector<lease::Lease>>();
  auto shared_sequences = std::make_shared<std::vector<std::uint64_t>>();
  for (const auto& [address, pending] : backlog_) {
    records->push_back(pending.record);
    shared_sequences->push_back(pending.sequence);
  }
  const bool accepted =
      committer_.submit(*records, [this, records, shared_sequences](CommitResult result) {
        boost::asio::post(io_, [this, records, shared_sequences, result = std::move(result)] {
          const auto& sequences = *shared_sequences;
          --in_flight_;
          retry_in_flight_ = false;
          if (!result) {
            ++counters_.store_failures;
            log_failure(result.error());
            retry_delay_ = std::min(retry_delay_ * 2, retry_max_);
            schedule_retry();
            return;
          }
          ++counters_.commits;
          for (std::size_t i = 0; i < records->size(); ++i) {
            const bool written = i < result->size() && (*result)[i] == store::WriteResult::Written;
            written ? ++counters_.records_written : ++counters_.stale_refusals;
            // Leave entries that a newer submit replaced while this retry was in flight.
            auto entry = backlog_.find((*records)[i].address);
            if (entry != backlog_.end() && entry->second.sequence == sequences[i])
              backlog_.erase(entry);
          }
          if (backlog_.empty()) {
            if (!healthy_) {
              spdlog::warn("store recovered: {} waiting records written; acknowledging again",
                           records->size());
            }
            healthy_ = true;
            retry_delay_ = retry_first_;
            failures_since_log_ = 0;
          } else {
            retry_delay_ = retry_first_;
            schedule_retry();
          }
        });
      });
  if (!accepted) {
    --in_flight_;
    retry_in_flight_ = false;
    schedule_retry();
  }
}

void CommitPipeline::log_failure(const store::StoreError& error) {
  // A failing disk fails every commit: one line per few seconds says it all.
  ++failures_since_log_;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_failure_log_ < std::chrono::seconds{5}) return;
  last_failure_log_ = now;
  spdlog::error(
      "store commit failed ({} failures since last report): {}; not acknowledging grants or "
      "extensions until the store accepts writes; {} records waiting, retrying",
      failures_since_log_, error.message, backlog_.size());
  failures_since_log_ = 0;
}

}  // namespace landlord::server
