// server::ViewSync against a throwaway PostgreSQL cluster (fixture `postgres`): what another
// server commits reaches this server's loop, woken by its NOTIFY (store.sync-notify) long before
// the fallback poll is due; and when the notification never comes (a writer that does not
// notify, a listener whose connection died), the poll still brings the row.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "landlord/server/view_sync.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "postgres_test_support.hpp"
#include "store_test_support.hpp"

namespace landlord::server {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using store::testing::bound_lease;

// One server's feed on its own loop thread; records when each address reached the loop.
class Feed {
 public:
  // `announce`: this feed holds `self`'s presence and reports who is up (Handlers::peers).
  Feed(const std::string& url, Duration interval, bool listen, Ipv4 self, bool announce = false) {
    auto feed = store::PostgresLeaseStore::open({.url = url, .writer = self});
    EXPECT_TRUE(feed.has_value()) << (feed ? "" : feed.error().message);
    if (!feed) return;
    auto cursor = (*feed)->now();
    EXPECT_TRUE(cursor.has_value());
    if (!cursor) return;
    sync_ = std::make_unique<ViewSync>(
        io_, std::move(*feed), std::move(*cursor), interval, listen, [] { return TimePoint{}; },
        ViewSync::Handlers{
            .changes =
                [this](std::vector<lease::Lease> records) {
                  std::lock_guard lock(mutex_);
                  for (const auto& record : records) seen_.emplace(record.address, Steady::now());
                },
            .failed = [this](const store::StoreError&) { ++failures_; },
            .recovered = [] {},
            .clock = {},
            .peers =
                [this](std::vector<Ipv4> up, bool held) {
                  std::lock_guard lock(mutex_);
                  up_ = std::move(up);
                  held_ = held;
                },
        },
        announce ? std::optional<Ipv4>(self) : std::nullopt);
    loop_ = std::thread([this] { io_.run(); });
  }
  ~Feed() {
    if (sync_) sync_->stop();
    work_.reset();
    if (loop_.joinable()) loop_.join();
  }
  bool running() const { return sync_ != nullptr; }
  ViewSync& sync() { return *sync_; }
  int failures() const { return failures_; }

  // Whether the servers reported up became `expected` (sorted) within `limit`, with this
  // feed's own presence held.
  bool up_becomes(const std::vector<Ipv4>& expected, Duration limit) {
    const auto until = Steady::now() + limit;
    while (Steady::now() < until) {
      {
        std::lock_guard lock(mutex_);
        if (up_ == expected && held_) return true;
      }
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }

  // When `address` reached the loop, waiting up to `limit` for it.
  std::optional<Steady::time_point> seen(Ipv4 address, Duration limit) {
    const auto until = Steady::now() + limit;
    while (Steady::now() < until) {
      {
        std::lock_guard lock(mutex_);
        if (auto found = seen_.find(address); found != seen_.end()) return found->second;
      }
      std::this_thread::sleep_for(1ms);
    }
    return std::nullopt;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  std::mutex mutex_;
  std::map<Ipv4, Steady::time_point> seen_;
  std::optional<std::vector<Ipv4>> up_;  // the last Handlers::peers
  bool held_ = false;
  std::atomic<int> failures_{0};
  std::unique_ptr<ViewSync> sync_;
  std::thread loop_;
};

class ViewSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!store::testing::postgres_server()) {
      GTEST_FAIL() << "LANDLORD_TEST_POSTGRES is not set: run through ctest (fixture postgres)";
    }
  }
  std::unique_ptr<store::PostgresLeaseStore> writer(
      bool notify, std::chrono::milliseconds notify_interval = store::PostgresOptions::kNotifyInterval) {
    auto opened = store::PostgresLeaseStore::open({.url = database_.url(),
                                                   .writer = Ipv4{198, 18, 0, 1},
                                                   .notify = notify,
                                                   .notify_interval = notify_interval});
    EXPECT_TRUE(opened.has_value()) << (opened ? "" : opened.error().message);
    return opened ? std::move(*opened) : nullptr;
  }
  static void wait_for_first_poll(ViewSync& sync) {
    for (int tries = 0; tries < 5000 && sync.polls() == 0; ++tries) std::this_thread::sleep_for(1ms);
  }

  store::testing::ScratchDatabase database_;
  const Ipv4 self_{198, 18, 0, 2};
};

// Who is up, by the database's sessions: a peer whose session ends (its process gone) is
// reported down within a few polls, and up again once it is back.
TEST_F(ViewSyncTest, APeerWhoseSessionEndsIsReportedDownAndUpAgainWhenItReturns) {
  const Ipv4 other{198, 18, 0, 1};
  Feed ours(database_.url(), 50ms, false, self_, true);
  ASSERT_TRUE(ours.running());
  {
    Feed theirs(database_.url(), 50ms, false, other, true);
    ASSERT_TRUE(theirs.running());
    EXPECT_TRUE(ours.up_becomes({other, self_}, 5s));
    EXPECT_TRUE(theirs.up_becomes({other, self_}, 5s));
  }  // its session ends with it
  EXPECT_TRUE(ours.up_becomes({self_}, 5s));
  Feed back(database_.url(), 50ms, false, other, true);
  EXPECT_TRUE(ours.up_becomes({other, self_}, 5s));
}

// A server that finds its id held by another session (here a second feed with the same id; in
// life a restarted server's previous backend that PostgreSQL has not ended yet) takes it at a
// poll after the other session ends, without a reconnect.
TEST_F(ViewSyncTest, AServerWhoseIdIsHeldTakesItOnceItIsFree) {
  auto earlier = std::make_unique<Feed>(database_.url(), 50ms, false, self_, true);
  ASSERT_TRUE(earlier->running());
  ASSERT_TRUE(earlier->up_becomes({self_}, 5s));
  Feed ours(database_.url(), 50ms, false, self_, true);
  ASSERT_TRUE(ours.running());
  EXPECT_FALSE(ours.up_becomes({self_}, 500ms)) << "two sessions hold one id";
  earlier.reset();
  EXPECT_TRUE(ours.up_becomes({self_}, 5s));
}

// The fallback poll is 10 s away; every one of 20 commits reaches the view within 1 s (a
// notification and one poll: a few ms on a calm machine), each by a notified poll.
TEST_F(ViewSyncTest, AnotherServersCommitReachesTheViewOnItsNotification) {
  auto other = writer(true);
  ASSERT_NE(other, nullptr);
  Feed feed{database_.url(), 10s, true, self_};
  ASSERT_TRUE(feed.running());
  wait_for_first_poll(feed.sync());
  std::vector<double> lags_ms;
  for (std::uint32_t index = 1; index <= 20; ++index) {
    const auto record = bound_lease(index, 1);
    auto written = other->commit(std::vector{record});
    const auto committed = Steady::now();
    ASSERT_TRUE(written.has_value()) << written.error().message;
    const auto seen = feed.seen(record.address, 5s);
    ASSERT_TRUE(seen.has_value()) << "commit " << index << " not in the view after 5 s";
    lags_ms.push_back(std::chrono::duration<double, std::milli>(*seen - committed).count());
    EXPECT_LT(*seen - committed, 1s) << "commit " << index;
  }
  std::sort(lags_ms.begin(), lags_ms.end());
  std::printf("lag from commit to the view: median %.1f ms, max %.1f ms\n", lags_ms[10], lags_ms[19]);
  EXPECT_GE(feed.sync().notified_polls(), 20u);
  EXPECT_LT(feed.sync().polls(), 60u);  // no polling loop: one poll per wake-up, about
}

// Ten commits back to back, well within the writer's notify interval (1 s here): only the
// first carries a NOTIFY, and the poll it wakes may come before the others commit. The last
// one still reaches the view within the interval and a little more, by the trailing NOTIFY, long
// before the fallback poll (10 s).
TEST_F(ViewSyncTest, TheLastCommitOfABurstReachesTheViewByTheTrailingNotification) {
  const auto interval = 1000ms;
  auto other = writer(true, interval);
  ASSERT_NE(other, nullptr);
  Feed feed{database_.url(), 10s, true, self_};
  ASSERT_TRUE(feed.running());
  wait_for_first_poll(feed.sync());
  const auto began = Steady::now();
  for (std::uint32_t index = 1; index <= 10; ++index) {
    ASSERT_TRUE(other->commit(std::vector{bound_lease(index, 1)}).has_value());
  }
  ASSERT_LT(Steady::now() - began, interval / 2) << "the burst is no burst on this machine now";
  const auto last = feed.seen(bound_lease(10).address, interval + 2s);
  ASSERT_TRUE(last.has_value()) << "the burst's last commit did not reach the view";
  EXPECT_LT(*last - began, interval + 1s);
  for (std::uint32_t index = 1; index <= 10; ++index) {
    EXPECT_TRUE(feed.seen(bound_lease(index).address, 100ms).has_value()) << index;
  }
  EXPECT_EQ(feed.sync().polls() - feed.sync().notified_polls(), 1u);  // the first only
}

// A writer that sends no NOTIFY (sync-notify off there: the notification is lost for good):
// the listening server still learns its commit, from the poll every 300 ms.
TEST_F(ViewSyncTest, ACommitWhoseNotificationIsLostIsCaughtByThePoll) {
  auto other = writer(false);
  ASSERT_NE(other, nullptr);
  Feed feed{database_.url(), 300ms, true, self_};
  ASSERT_TRUE(feed.running());
  wait_for_first_poll(feed.sync());
  const auto record = bound_lease(7, 1);
  ASSERT_TRUE(other->commit(std::vector{record}).has_value());
  const auto committed = Steady::now();
  const auto seen = feed.seen(record.address, 5s);
  ASSERT_TRUE(seen.has_value()) << "a commit without notification never reached the view";
  EXPECT_LT(*seen - committed, 2s);
  EXPECT_EQ(feed.sync().notified_polls(), 0u);
}

// The listener's connection is killed (a database restart): the wait fails at once, the feed
// reconnects, listens again and reloads; a commit made meanwhile (whose notification nobody
// may have heard) is in the view, and the next one wakes it again.
TEST_F(ViewSyncTest, AListenerWhoseConnectionDiedReloadsAndListensAgain) {
  auto other = writer(true);
  ASSERT_NE(other, nullptr);
  Feed feed{database_.url(), 10s, true, self_};
  ASSERT_TRUE(feed.running());
  wait_for_first_poll(feed.sync());
  database_.end_connections();
  // The writer's connection was killed too: its commit reconnects first.
  ASSERT_TRUE(other->commit(std::vector{bound_lease(1, 1)}).has_value());
  EXPECT_TRUE(feed.seen(bound_lease(1).address, 5s).has_value());
  const auto notified = feed.sync().notified_polls();
  ASSERT_TRUE(other->commit(std::vector{bound_lease(2, 1)}).has_value());
  const auto committed = Steady::now();
  const auto seen = feed.seen(bound_lease(2).address, 5s);
  ASSERT_TRUE(seen.has_value());
  EXPECT_LT(*seen - committed, 1s);
  EXPECT_GT(feed.sync().notified_polls(), notified);
}

}  // namespace
}  // namespace landlord::server
