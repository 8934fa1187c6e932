#include "landlord/store/commit_queue.hpp"

#include <pthread.h>

#include <algorithm>

namespace landlord::store {
namespace {
// An empty submission still holds a slot, so the limit bounds submissions too.
std::size_t queue_cost(std::span<const lease::Lease> records) {
  return std::max<std::size_t>(1, records.size());
}
// A transaction's fixed cost (statements, WAL append, fsync, wake-ups: ~100-150 us of CPU on
// a virtio disk) is a small share of each DORA's when it carries this many records: a linger
// ends when they are queued, or at batch_linger, whichever comes first.
constexpr std::size_t kLingerTarget = 32;
// A linger is taken only when at least this many records are expected within batch_linger
// (2,000 records/s for the default 8 ms): fewer, and the wait would buy little, so a light
// load is committed at once.
constexpr double kLingerCompany = 16;
}  // namespace

CommitQueue::CommitQueue(LeaseStore& store, CommitQueueOptions options, CommitObserver observer)
    : store_(store), options_(options), observer_(std::move(observer)), worker_([this] { run(); }) {
  LANDLORD_ASSERT(options_.batch_max > 0);
  LANDLORD_ASSERT(options_.capacity_records > 0);
}

CommitQueue::~CommitQueue() { shutdown(); }

bool CommitQueue::submit(std::vector<lease::Lease> records, Completion done) {
  Submission submission{std::move(records), {}, std::move(done), {}};
  submission.records = submission.owned;
  return enqueue(std::move(submission));
}

bool CommitQueue::submit_lent(std::span<const lease::Lease> records, Completion done) {
  return enqueue(Submission{{}, records, std::move(done), {}});
}

bool CommitQueue::enqueue(Submission submission) {
  for (const auto& record : submission.records) {
    LANDLORD_ASSERT(record.state != lease::LeaseState::Offered);  // offers are never persisted
  }
  const std::size_t cost = queue_cost(submission.records);
  submission.arrived = std::chrono::steady_clock::now();
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    // A submission larger than the whole queue is taken when nothing else waits: refused
    // whatever the queue held, it could never be taken, and its caller would retry it forever.
    if (stopping_ || (pending_records_ > 0 && pending_records_ + cost > options_.capacity_records)) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    arrivals_.note(submission.arrived, cost);
    pending_.push_back(std::move(submission));
    // The move kept the buffer an owned submission's span points into.
    LANDLORD_ASSERT(pending_.back().owned.empty() ||
                    pending_.back().records.data() == pending_.back().owned.data());
    pending_records_ += cost;
    // A worker waiting for a fuller batch is not woken for each record only to wait again.
    wake = sleeping_ && pending_records_ >= wake_at_;
    if (wake) sleeping_ = false;
  }
  submissions_.fetch_add(1, std::memory_order_relaxed);
  if (wake) work_ready_.wake();
  return true;
}

bool CommitQueue::lingering() const {
  const double budget = std::chrono::duration<double>(options_.batch_linger).count();
  return budget > 0 && arrivals_.per_second() * budget >= kLingerCompany;
}

std::size_t CommitQueue::linger_records() const {
  return std::min(kLingerTarget, options_.batch_max);
}

CommitQueue::Wait CommitQueue::commit_at(std::chrono::steady_clock::time_point now,
                                         bool previous_batch_full) const {
  if (stopping_ || pending_records_ >= options_.batch_max) return {now, options_.batch_max};
  // Sustained load: a fuller batch costs this wait once and saves fsyncs after.
  if (previous_batch_full) return {now + options_.batch_wait, options_.batch_max};
  // Records come fast: the oldest waits from its arrival until the linger's company is queued,
  // batch_linger at most, and the transaction's fixed cost is shared with those behind it.
  if (lingering()) return {pending_.front().arrived + options_.batch_linger, linger_records()};
  return {now, options_.batch_max};
}

void CommitQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    sleeping_ = false;
  }
  work_ready_.wake();
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
}

CommitQueueCounters CommitQueue::counters() const {
  CommitQueueCounters counters;
  counters.submissions = submissions_.load(std::memory_order_relaxed);
  counters.rejected = rejected_.load(std::memory_order_relaxed);
  counters.commits = commits_.load(std::memory_order_relaxed);
  counters.records = records_.load(std::memory_order_relaxed);
  counters.errors = errors_.load(std::memory_order_relaxed);
  counters.last_batch_records = last_batch_records_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  counters.queued_records = pending_records_;
  return counters;
}

void CommitQueue::sleep_until_queued(std::unique_lock<std::mutex>& lock, std::size_t records,
                                     std::optional<std::chrono::steady_clock::time_point> deadline) {
  wake_at_ = records;
  while (pending_records_ < records && !stopping_ &&
         (!deadline || std::chrono::steady_clock::now() < *deadline)) {
    sleeping_ = true;
    const std::uint32_t ticket = work_ready_.ticket();
    lock.unlock();
    work_ready_.wait(ticket, deadline);
    lock.lock();
    sleeping_ = false;
  }
}

void CommitQueue::run() {
  pthread_setname_np(pthread_self(), "store-commit");  // top -H, perf --per-thread
  bool previous_batch_full = false;
  std::vector<Submission> batch;  // reused: its capacity stays
  std::unique_lock lock(mutex_);
  for (;;) {
    bool ticked = false;
    if (pending_.empty() && !stopping_) {
      if (lingering()) {
        // Records come fast, so the next is due within the linger: rather than be woken by it
        // (a futex call on the event loop's side, one on ours) and then wait for its company,
        // sleep until the company is queued or a linger from now and take whatever came.
        // Nothing came: sleep until woken.
        sleep_until_queued(lock, linger_records(),
                           std::chrono::steady_clock::now() + options_.batch_linger);
        ticked = !pending_.empty();
      }
      sleep_until_queued(lock, 1, std::nullopt);
    }
    if (pending_.empty()) return;  // stopping, and everything queued is committed
    const auto now = std::chrono::steady_clock::now();
    if (const auto wait = commit_at(now, previous_batch_full); !ticked && wait.until > now) {
      sleep_until_queued(lock, wait.records, wait.until);
    }
    batch.clear();
    std::size_t record_count = 0;
    std::size_t cost = 0;
    while (!pending_.empty() && (batch.empty() || record_count + pending_.front().records.size() <=
                                                      options_.batch_max)) {
      record_count += pending_.front().records.size();
      cost += queue_cost(pending_.front().records);
      batch.push_back(std::move(pending_.front()));
      pending_.pop_front();
    }
    pending_records_ -= cost;
    lock.unlock();
    commit_batch(batch, record_count);
    batch.clear();  // the completions go before the lock is taken again
    previous_batch_full = record_count >= options_.batch_max;
    lock.lock();
  }
}

void CommitQueue::commit_batch(std::vector<Submission>& batch, std::size_t record_count) {
  if (record_count == 0) {  // only empty submissions: nothing to make durable
    for (auto& submission : batch) submission.done(std::vector<WriteResult>{});
    return;
  }
  // One submission (every commit at a light load) is written from where it is; several are
  // joined in a buffer kept across transactions.
  std::span<const lease::Lease> records = batch.front().records;
  if (batch.size() > 1) {
    joined_.clear();
    joined_.reserve(record_count);
    for (auto& submission : batch) {
      if (submission.owned.empty()) {
        joined_.insert(joined_.end(), submission.records.begin(), submission.records.end());
      } else {
        std::move(submission.owned.begin(), submission.owned.end(), std::back_inserter(joined_));
      }
    }
    records = joined_;
  }
  const auto started = std::chrono::steady_clock::now();
  auto committed = store_.commit(records);
  if (committed && observer_) observer_(record_count, std::chrono::steady_clock::now() - started);
  last_batch_records_.store(record_count, std::memory_order_relaxed);
  if (!committed) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    for (auto& submission : batch) submission.done(unexpected(committed.error()));
    return;
  }
  // One result per record given, in order: each submission gets its own share.
  LANDLORD_ASSERT(committed->size() == record_count);
  commits_.fetch_add(1, std::memory_order_relaxed);
  records_.fetch_add(record_count, std::memory_order_relaxed);
  if (batch.size() == 1) {
    batch.front().done(std::move(*committed));
    return;
  }
  auto result = committed->begin();
  for (auto& submission : batch) {
    const auto count = static_cast<std::ptrdiff_t>(submission.records.size());
    submission.done(std::vector<WriteResult>(result, result + count));
    result += count;
  }
}

}  // namespace landlord::store
