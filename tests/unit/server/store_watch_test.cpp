// StoreWatch: what the store counts beside its commits reaches the log when it is counted, not
// at the next commit (issue #16: a checkpoint failing after the last commit of a quiet period
// showed on /metrics only), at most one checkpoint line per interval and none lost.
#include "landlord/server/store_watch.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace landlord::server {
namespace {

// A store whose health the test sets, reporting each change from a thread of its own, as
// SqliteLeaseStore's checkpoint thread does. It commits nothing: the watch never asks it to.
class CountingStore final : public store::LeaseStore {
 public:
  Expected<std::vector<store::WriteResult>, store::StoreError> commit(
      std::span<const lease::Lease>) override {
    return unexpected(store::StoreError{store::StoreError::Kind::Other, "not used"});
  }
  Expected<void, store::StoreError> load(const std::function<void(lease::Lease&&)>&) override {
    return {};
  }
  store::StoreHealth health() const override {
    std::lock_guard lock(mutex_);
    return health_;
  }
  std::string last_checkpoint_error() const override {
    std::lock_guard lock(mutex_);
    return last_;
  }
  void on_health_change(std::function<void()> changed) override {
    std::lock_guard lock(mutex_);
    listener_ = std::move(changed);
  }
  // Counts a failed checkpoint on another thread and reports it there.
  void fail_checkpoint(const std::string& message) {
    std::thread([&] {
      std::lock_guard lock(mutex_);
      ++health_.checkpoint_failures[static_cast<std::size_t>(store::StoreError::Kind::ReadOnly)];
      last_ = message;
      if (listener_) listener_();
    }).join();
  }
  void reopen() {
    std::lock_guard lock(mutex_);
    ++health_.reopened;
    if (listener_) listener_();
  }
  bool listened() const {
    std::lock_guard lock(mutex_);
    return static_cast<bool>(listener_);
  }

 private:
  mutable std::mutex mutex_;
  store::StoreHealth health_;
  std::string last_;
  std::function<void()> listener_;
};

class StoreWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>(
        "store_watch_test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_));
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }

  // Runs the loop until the log has `count` lines containing `text`, for at most `limit`.
  bool run_until(std::size_t count, const std::string& text, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (lines_with(text) < count && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds{10});
    }
    return lines_with(text) >= count;
  }
  std::size_t lines_with(const std::string& text) {
    spdlog::default_logger()->flush();
    std::istringstream lines(log_.str());
    std::size_t found = 0;
    for (std::string line; std::getline(lines, line);) found += line.find(text) != std::string::npos;
    return found;
  }
  std::string last_line_with(const std::string& text) {
    std::istringstream lines(log_.str());
    std::string last;
    for (std::string line; std::getline(lines, line);) {
      if (line.find(text) != std::string::npos) last = line;
    }
    return last;
  }

  boost::asio::io_context io_;
  CountingStore store_;
  std::ostringstream log_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(StoreWatchTest, AFailureCountedWithNoCommitAfterItIsLogged) {
  StoreWatch watch{io_, store_, "lease store /srv/leases.db", std::chrono::milliseconds{200}};
  store_.fail_checkpoint("lease store /srv/leases.db: checkpointing the WAL: read-only");
  ASSERT_TRUE(run_until(1, "store checkpoint failed", std::chrono::seconds{5})) << log_.str();
  const std::string line = last_line_with("store checkpoint failed");
  EXPECT_NE(line.find("checkpointing the WAL: read-only"), std::string::npos) << line;
  EXPECT_NE(line.find("(1 failed checkpoints so far)"), std::string::npos) << line;
}

TEST_F(StoreWatchTest, FailuresWithinTheIntervalAreLoggedInOneLineAtItsEnd) {
  const auto interval = std::chrono::milliseconds{300};
  StoreWatch watch{io_, store_, "lease store /srv/leases.db", interval};
  store_.fail_checkpoint("first");
  ASSERT_TRUE(run_until(1, "store checkpoint failed", std::chrono::seconds{5})) << log_.str();
  const auto first_logged = std::chrono::steady_clock::now();
  store_.fail_checkpoint("second");
  store_.fail_checkpoint("third");
  // Not at once (rate-limited), but by the end of the interval, with the count of all three.
  io_.restart();
  io_.run_for(std::chrono::milliseconds{50});
  EXPECT_EQ(lines_with("store checkpoint failed"), 1u) << log_.str();
  ASSERT_TRUE(run_until(2, "store checkpoint failed", std::chrono::seconds{5})) << log_.str();
  EXPECT_GE(std::chrono::steady_clock::now() - first_logged, interval - std::chrono::milliseconds{60});
  const std::string line = last_line_with("store checkpoint failed");
  EXPECT_NE(line.find("third"), std::string::npos) << line;
  EXPECT_NE(line.find("(3 failed checkpoints so far)"), std::string::npos) << line;
  // Nothing new: no further line.
  io_.restart();
  io_.run_for(2 * interval);
  EXPECT_EQ(lines_with("store checkpoint failed"), 2u) << log_.str();
}

TEST_F(StoreWatchTest, AReopenedStoreIsLoggedOnce) {
  StoreWatch watch{io_, store_, "lease store /srv/leases.db"};
  store_.reopen();
  ASSERT_TRUE(run_until(1, "opened again", std::chrono::seconds{5})) << log_.str();
  EXPECT_NE(last_line_with("opened again").find("lease store /srv/leases.db opened again"),
            std::string::npos)
      << log_.str();
  io_.restart();
  io_.run_for(std::chrono::milliseconds{50});
  EXPECT_EQ(lines_with("opened again"), 1u);
}

TEST_F(StoreWatchTest, TheWatchStopsListeningWhenItGoes) {
  {
    StoreWatch watch{io_, store_, "lease store /srv/leases.db"};
    EXPECT_TRUE(store_.listened());
  }
  EXPECT_FALSE(store_.listened());
}

}  // namespace
}  // namespace landlord::server
