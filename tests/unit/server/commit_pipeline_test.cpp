#include "landlord/server/commit_pipeline.hpp"

#include <deque>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

using store::WriteResult;

// Takes submissions and lets the test decide, one by one, how each commit ends.
class ScriptedCommitter final : public Committer {
 public:
  struct Submission {
    std::vector<lease::Lease> records;
    std::function<void(CommitResult)> done;
  };
  bool submit(std::vector<lease::Lease> records, std::function<void(CommitResult)> done) override {
    if (refuse_next) {
      refuse_next = false;
      return false;
    }
    submissions.push_back({std::move(records), std::move(done)});
    return true;
  }
  void succeed(std::optional<WriteResult> every = WriteResult::Written) {
    Submission next = take();
    next.done(std::vector<WriteResult>(next.records.size(), *every));
  }
  void fail() {
    Submission next = take();
    next.done(unexpected(store::StoreError{store::StoreError::Kind::Io, "disk on fire"}));
  }
  Submission take() {
    EXPECT_FALSE(submissions.empty());
    Submission next = std::move(submissions.front());
    submissions.pop_front();
    return next;
  }
  std::deque<Submission> submissions;
  bool refuse_next = false;
};

lease::Lease record(std::uint8_t host, std::int64_t granted_ms = 0) {
  lease::Lease lease;
  lease.address = Ipv4{198, 18, 0, host};
  lease.state = lease::LeaseState::Bound;
  lease.granted_at = time_from_unix_ms(granted_ms);
  lease.lease_time = std::chrono::seconds{30};
  return lease;
}

class CommitPipelineTest : public ::testing::Test {
 protected:
  void submit(std::vector<lease::Lease> records) {
    statuses.push_back(std::nullopt);
    const std::size_t slot = statuses.size() - 1;
    pipeline.submit(std::move(records),
                    [this, slot](CommitStatus status) { statuses[slot] = status; });
  }
  void settle() {
    io.restart();
    io.poll();
  }
  // The retry timer is an hour here, so nothing depends on timing: the test says when.
  void retry() {
    pipeline.retry_now();
    settle();
  }

  boost::asio::io_context io;
  ScriptedCommitter committer;
  CommitPipeline pipeline{io, committer, std::chrono::hours{1}, std::chrono::hours{2}};
  std::vector<std::optional<CommitStatus>> statuses;
};

TEST_F(CommitPipelineTest, TheReplyWaitsUntilTheRecordsAreWritten) {
  submit({record(100)});
  settle();
  EXPECT_FALSE(statuses[0]) << "nothing may be acknowledged before the commit completes";
  EXPECT_EQ(pipeline.in_flight(), 1u);
  committer.succeed();
  settle();
  EXPECT_EQ(statuses[0], CommitStatus::Durable);
  EXPECT_EQ(pipeline.in_flight(), 0u);
  EXPECT_EQ(pipeline.counters().records_written, 1u);
}

TEST_F(CommitPipelineTest, ABurstOfCompletionsFromTheWorkerThreadRunsInOrderOnTheLoop) {
  std::vector<int> completed;
  for (int i = 0; i < 50; ++i) {
    pipeline.submit({record(static_cast<std::uint8_t>(i + 1))},
                    [&completed, i](CommitStatus status) {
                      EXPECT_EQ(status, CommitStatus::Durable);
                      completed.push_back(i);
                    });
  }
  // The store's worker completes a whole batch at once, from its own thread; a second burst
  // arrives after the loop has taken the first.
  std::thread first([this] {
    for (int i = 0; i < 30; ++i) committer.succeed();
  });
  first.join();
  EXPECT_TRUE(completed.empty()) << "completions run on the event loop, not on the worker";
  settle();
  EXPECT_EQ(completed.size(), 30u);
  std::thread second([this] {
    for (int i = 0; i < 20; ++i) committer.succeed();
  });
  second.join();
  settle();
  std::vector<int> expected(50);
  for (int i = 0; i < 50; ++i) expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(completed, expected);
  EXPECT_EQ(pipeline.in_flight(), 0u);
  EXPECT_EQ(pipeline.counters().records_written, 50u);
}

TEST_F(CommitPipelineTest, AStaleTokenSuppressesTheReplyAndIsNotRetried) {
  submit({record(100)});
  committer.succeed(WriteResult::StaleToken);
  settle();
  EXPECT_EQ(statuses[0], CommitStatus::StaleToken);
  EXPECT_EQ(pipeline.backlog_size(), 0u);
  EXPECT_TRUE(pipeline.healthy());
  retry();
  EXPECT_TRUE(committer.submissions.empty());
}

TEST_F(CommitPipelineTest, AStoreErrorStopsAcknowledgingAndRetriesUntilWritten) {
  submit({record(100)});
  committer.fail();
  settle();
  EXPECT_EQ(statuses[0], CommitStatus::Unavailable);
  EXPECT_FALSE(pipeline.healthy());

  // While the store fails, a new grant is not acknowledged and not even tried alone...
  submit({record(101)});
  settle();
  EXPECT_EQ(statuses[1], CommitStatus::Unavailable);
  EXPECT_EQ(pipeline.backlog_size(), 2u);

  // ...but both records go out with the next retry, and again after a failed one.
  retry();
  ASSERT_EQ(committer.submissions.size(), 1u);
  EXPECT_EQ(committer.submissions.front().records.size(), 2u);
  committer.fail();
  settle();
  EXPECT_FALSE(pipeline.healthy());
  retry();
  ASSERT_EQ(committer.submissions.size(), 1u);
  committer.succeed();
  settle();
  EXPECT_TRUE(pipeline.healthy());
  EXPECT_EQ(pipeline.backlog_size(), 0u);
  EXPECT_EQ(pipeline.counters().records_written, 2u);

  submit({record(102)});
  committer.succeed();
  settle();
  EXPECT_EQ(statuses[2], CommitStatus::Durable);
}

TEST_F(CommitPipelineTest, ALaterWriteForTheSameAddressWinsOverAFailedEarlierOne) {
  submit({record(100, 1000)});
  submit({record(100, 2000)});
  committer.fail();     // the first commit fails...
  committer.succeed();  // ...the second, already queued, is written
  settle();
  EXPECT_EQ(statuses[0], CommitStatus::Unavailable);
  EXPECT_EQ(statuses[1], CommitStatus::Durable);
  EXPECT_EQ(pipeline.backlog_size(), 0u) << "the older record must not be retried over the newer";
  EXPECT_TRUE(pipeline.healthy());
}

TEST_F(CommitPipelineTest, AFullQueueDropsTheReplyButKeepsTheRecord) {
  committer.refuse_next = true;
  submit({record(100)});
  settle();
  EXPECT_EQ(statuses[0], CommitStatus::Unavailable);
  EXPECT_EQ(pipeline.counters().queue_full, 1u);
  retry();
  ASSERT_EQ(committer.submissions.size(), 1u);
  committer.succeed();
  settle();
  EXPECT_EQ(pipeline.backlog_size(), 0u);
}

}  // namespace
}  // namespace landlord::server
