#include "postgres_notifier.hpp"

namespace landlord::store::detail {

PostgresNotifier::PostgresNotifier(std::string url, std::string name, std::string sql,
                                   Duration interval, std::chrono::milliseconds timeout)
    : url_(std::move(url)),
      name_(std::move(name)),
      sql_(std::move(sql)),
      interval_(interval),
      timeout_(timeout),
      thread_([this] { run(); }) {}

PostgresNotifier::~PostgresNotifier() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool PostgresNotifier::claim() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  if (now - last_ < interval_) return false;
  last_ = now;
  carrying_ = true;
  return true;
}

void PostgresNotifier::finished(bool carried, bool committed) {
  {
    std::lock_guard lock(mutex_);
    if (carried) carrying_ = false;
    // A commit that failed acknowledged nothing (one of unknown outcome is the poll's), and
    // owes nothing; a debt before it stays.
    if (committed) {
      owed_ = !carried;
      if (carried) ++counts_.carried;
      owed_since_ = std::chrono::steady_clock::now();
    }
  }
  wake_.notify_one();  // a debt, or the end of a commit the notifier waited for
}

PostgresLeaseStore::NotificationCounts PostgresNotifier::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

void PostgresNotifier::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return owed_ || stopping_; });
    // Until an interval has passed since the last commit that owes one: while commits keep
    // coming, one of them carries the next NOTIFY (claim()) and pays the debt, and no NOTIFY
    // costs a transaction of its own. A stop sends what is owed at once: the listeners learn
    // this server's last commits now rather than at their fallback poll.
    // Nor while a commit that carries a NOTIFY is on its way: it pays the debt if it commits.
    while (owed_ && !stopping_) {
      if (carrying_) {
        wake_.wait(lock);
        continue;
      }
      const auto due = owed_since_ + interval_;
      if (std::chrono::steady_clock::now() >= due) break;
      wake_.wait_until(lock, due);
    }
    if (owed_) {
      owed_ = false;
      last_ = std::chrono::steady_clock::now();
      lock.unlock();
      const bool sent = send();
      lock.lock();
      if (sent) ++counts_.trailing;
    }
    if (stopping_) return;
  }
}

bool PostgresNotifier::send() {
  const Deadline deadline = std::chrono::steady_clock::now() + timeout_;
  if (connection_ == nullptr || !still_open(connection_.get())) {
    auto connected = connect(url_, name_, deadline);
    if (!connected) return false;
    connection_ = std::move(*connected);
  }
  auto notified = execute(connection_.get(), name_, sql_.c_str(), {}, PGRES_COMMAND_OK,
                          "notifying the other servers", deadline);
  if (!notified) connection_.reset();
  return notified.has_value();
}

}  // namespace landlord::store::detail
