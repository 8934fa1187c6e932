// The durability machine on the event loop (its rules are tested in tests/unit/durability):
// the reply waits on the loop, answers from the store's worker thread come back to the loop
// in order, a committer that cannot take a batch drops its reply, and a retry goes out.
#include "landlord/server/commit_pipeline.hpp"

#include <deque>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

using durability::Verdict;
using store::WriteResult;

// Takes submissions and lets the test decide, one by one, how each commit ends.
class ScriptedCommitter final : public Committer {
 public:
  struct Submission {
    std::vector<lease::Lease> records;
    std::function<void(CommitResult)> done;
  };
  bool submit(std::span<const lease::Lease> records,
              std::function<void(CommitResult)> done) override {
    if (refuse_next) {
      refuse_next = false;
      return false;
    }
    // Kept past `done`'s call by take(): a copy, the lent records are the machine's.
    submissions.push_back({{records.begin(), records.end()}, std::move(done)});
    return true;
  }
  void succeed(WriteResult every = WriteResult::Written) {
    Submission next = take();
    next.done(std::vector<WriteResult>(next.records.size(), every));
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

lease::Lease record(std::uint8_t host) {
  lease::Lease lease;
  lease.address = Ipv4{198, 18, 0, host};
  lease.state = lease::LeaseState::Bound;
  lease.lease_time = std::chrono::seconds{30};
  return lease;
}

class CommitPipelineTest : public ::testing::Test {
 protected:
  // One outcome with one record; its Origin's ingress index says which it was.
  void propose(std::uint8_t host) {
    engine::Outcome outcome{std::nullopt, {record(host)}, {engine::EventKind::Grant, {}, ""}};
    durability::Origin origin;
    origin.ingress_index = host;
    EXPECT_TRUE(pipeline.propose(outcome, origin));
  }
  void settle() {
    io.restart();
    io.poll();
  }

  boost::asio::io_context io;
  ScriptedCommitter committer;
  engine::Engine engine{config::Config{}};
  Clock clock;
  std::vector<std::pair<std::uint32_t, Verdict>> released;
  // The retry back-off is an hour here, so nothing depends on timing: the test says when.
  CommitPipeline pipeline{io, committer, engine, clock,
                          [this](const durability::Release& release) {
                            released.emplace_back(release.origin.ingress_index, release.verdict);
                          },
                          durability::Options{std::chrono::hours{1}, std::chrono::hours{2}}};
};

TEST_F(CommitPipelineTest, TheReplyWaitsUntilTheRecordsAreWritten) {
  propose(100);
  pipeline.drive();
  settle();
  EXPECT_TRUE(released.empty()) << "nothing may be acknowledged before the commit completes";
  ASSERT_EQ(committer.submissions.size(), 1u);
  committer.succeed();
  EXPECT_TRUE(released.empty()) << "answers run on the event loop";
  settle();
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].second, Verdict::Send);
  EXPECT_EQ(pipeline.counters().records_written, 1u);
}

TEST_F(CommitPipelineTest, ABurstOfCompletionsFromTheWorkerThreadRunsInOrderOnTheLoop) {
  for (int i = 0; i < 50; ++i) {
    propose(static_cast<std::uint8_t>(i + 1));
    pipeline.drive();  // one batch each
  }
  ASSERT_EQ(committer.submissions.size(), 50u);
  std::thread first([this] {
    for (int i = 0; i < 30; ++i) committer.succeed();
  });
  first.join();
  EXPECT_TRUE(released.empty()) << "completions run on the event loop, not on the worker";
  settle();
  EXPECT_EQ(released.size(), 30u);
  std::thread second([this] {
    for (int i = 0; i < 20; ++i) committer.succeed();
  });
  second.join();
  settle();
  ASSERT_EQ(released.size(), 50u);
  for (std::uint32_t i = 0; i < 50; ++i) EXPECT_EQ(released[i].first, i + 1);
  EXPECT_EQ(pipeline.machine().batches_in_flight(), 0u);
  EXPECT_EQ(pipeline.counters().records_written, 50u);
}

TEST_F(CommitPipelineTest, AFullQueueDropsTheReplyButKeepsTheRecordForTheRetry) {
  committer.refuse_next = true;
  propose(100);
  pipeline.drive();
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].second, Verdict::Unavailable);
  EXPECT_EQ(pipeline.counters().not_taken, 1u);
  EXPECT_EQ(pipeline.machine().backlog_size(), 1u);
  pipeline.retry_now();
  ASSERT_EQ(committer.submissions.size(), 1u);
  committer.succeed();
  settle();
  EXPECT_EQ(pipeline.machine().backlog_size(), 0u);
}

TEST_F(CommitPipelineTest, AStoreErrorStopsAcknowledgingUntilARetryIsWritten) {
  propose(100);
  pipeline.drive();
  committer.fail();
  settle();
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].second, Verdict::Unavailable);
  propose(101);
  pipeline.drive();
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[1].second, Verdict::Unavailable);
  EXPECT_TRUE(committer.submissions.empty()) << "not tried alone while the store fails";
  pipeline.retry_now();
  ASSERT_EQ(committer.submissions.size(), 1u);
  EXPECT_EQ(committer.submissions.front().records.size(), 2u);
  committer.succeed();
  settle();
  EXPECT_TRUE(pipeline.machine().healthy());
  propose(102);
  pipeline.drive();
  committer.succeed();
  settle();
  ASSERT_EQ(released.size(), 3u);
  EXPECT_EQ(released[2].second, Verdict::Send);
}

}  // namespace
}  // namespace landlord::server
