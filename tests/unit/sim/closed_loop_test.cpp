// The closed-loop search against scripted responders in virtual time: it must stop at the
// first step whose replies miss the deadline, and report what the step before completed.
#include "landlord/sim/closed_loop.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "landlord/sim/report.hpp"
#include "scripted_server.hpp"
#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;

Workload fresh_clients_only(Duration duration) {
  Workload workload;
  workload.clients = 0;  // the steps bring them
  workload.duration = duration;
  workload.seed = 5;
  return workload;
}

ClosedLoopPlan plan_from(double start_rate_per_s) {
  ClosedLoopPlan plan;
  plan.start_rate_per_s = start_rate_per_s;
  return plan;
}

struct Search {
  explicit Search(const ClosedLoopPlan& plan, Duration duration = 600s)
      : fleet(fresh_clients_only(duration), test::kEpoch), loop(plan, fleet, test::kEpoch) {}
  void run(ScriptedServer& server) { test::run_virtual(loop, server, test::kEpoch); }
  Fleet fleet;
  ClosedLoop loop;
};

// Rates 100, 125, 156.25, 195.3, 244.1, 305.2 new clients/s: two requests each, so the sixth
// step offers 610 requests/s, above the 550/s where this server turns slow (244/s: 488).
TEST(ClosedLoop, StopsAtTheFirstStepWhoseRepliesComeLate) {
  ScriptedServer server({.lease_s = 3600, .pool_size = 20'000});
  server.overload_above_per_s = 550;
  Search search(plan_from(100));
  search.run(server);

  const auto& steps = search.loop.steps();
  ASSERT_EQ(steps.size(), 6u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(steps[i].passed) << i;
    EXPECT_EQ(steps[i].replies_missed, 0u) << i;
    EXPECT_EQ(steps[i].completed, steps[i].clients) << i;
  }
  EXPECT_NEAR(steps[5].rate_per_s, 100 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25, 1e-9);
  EXPECT_FALSE(steps[5].passed);
  EXPECT_GT(steps[5].miss_fraction, 0.025);
  EXPECT_EQ(search.loop.stop_reason(), ClosedLoopStop::MissThreshold);
  // 244.14/s for 5 s: 1221 clients, all completed.
  EXPECT_EQ(steps[4].clients, 1221u);
  ASSERT_TRUE(search.loop.sustainable_dora_per_s());
  EXPECT_DOUBLE_EQ(*search.loop.sustainable_dora_per_s(), 1221 / 5.0);
  // Fresh clients in every step: each DORA an allocation, no client twice.
  std::size_t total = 0;
  for (const StepResult& step : steps) total += step.clients;
  EXPECT_EQ(search.fleet.stats().clients_started, total);
  EXPECT_EQ(search.fleet.auditor().violation_count(), 0u);
}

// A server of finite speed (2 ms per reply: 500 replies/s, 250 DORA/s) with factor 1.5:
// 225/s (450 requests/s) keeps up; at 337.5/s the queue grows past a second within the step
// (slowly: late OFFERs hold back their REQUESTs).
TEST(ClosedLoop, FindsTheCapacityOfAQueueingServer) {
  ScriptedServer server({.lease_s = 3600, .pool_size = 20'000});
  server.service_time = 2ms;
  ClosedLoopPlan plan = plan_from(100);
  plan.factor = 1.5;
  Search search(plan);
  search.run(server);

  const auto& steps = search.loop.steps();
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_TRUE(steps[2].passed);
  EXPECT_FALSE(steps[3].passed);
  EXPECT_GT(steps[3].miss_fraction, 0.1);
  EXPECT_DOUBLE_EQ(*search.loop.sustainable_dora_per_s(), 225.0);
}

// Each reply 900 ms late: a DORA takes 1.8 s, but no reply misses its own 1 s deadline.
TEST(ClosedLoop, TheDeadlineIsPerReplyNotPerDora) {
  ScriptedServer server({.lease_s = 3600});
  server.delay = 900ms;
  ClosedLoopPlan plan = plan_from(20);
  plan.max_steps = 3;
  Search search(plan);
  search.run(server);
  ASSERT_EQ(search.loop.steps().size(), 3u);
  for (const StepResult& step : search.loop.steps()) EXPECT_EQ(step.replies_missed, 0u);
  EXPECT_EQ(search.loop.stop_reason(), ClosedLoopStop::Steps);
  EXPECT_DOUBLE_EQ(*search.loop.sustainable_dora_per_s(), search.loop.steps()[2].completed_per_s);
}

// Each reply 1.1 s late: every reply misses, the first step fails, nothing is sustainable.
TEST(ClosedLoop, RepliesPastTheDeadlineAreMisses) {
  ScriptedServer server({.lease_s = 3600});
  server.delay = 1100ms;
  Search search(plan_from(20));
  search.run(server);
  ASSERT_EQ(search.loop.steps().size(), 1u);
  const StepResult& step = search.loop.steps()[0];
  EXPECT_EQ(step.clients, 100u);
  EXPECT_EQ(step.replies_missed, 200u);
  EXPECT_DOUBLE_EQ(step.miss_fraction, 1.0);
  EXPECT_FALSE(search.loop.sustainable_dora_per_s());
}

// A pool of 1000: steps of 1 s from 100/s use 100, 125, 156, 195, 244 (820), then 305 of which
// only 180 get an OFFER. Replies that never come are misses.
TEST(ClosedLoop, RepliesThatNeverComeAreMisses) {
  ScriptedServer server({.lease_s = 3600, .pool_size = 1000});
  ClosedLoopPlan plan = plan_from(100);
  plan.step = 1s;
  Search search(plan);
  search.run(server);
  const auto& steps = search.loop.steps();
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_TRUE(steps[4].passed);
  EXPECT_EQ(steps[5].clients, 305u);
  EXPECT_EQ(steps[5].completed, 180u);
  EXPECT_EQ(steps[5].replies_missed, 2 * (305u - 180u));
  EXPECT_EQ(search.loop.stop_reason(), ClosedLoopStop::MissThreshold);
}

TEST(ClosedLoop, TheRunsDurationBoundsTheSearch) {
  ScriptedServer server({.lease_s = 3600});
  // A step needs 5 s of arrivals, 3 deadlines and a second of room: two fit in 17 s, not three.
  Search search(plan_from(10), 17s);
  search.run(server);
  EXPECT_EQ(search.loop.steps().size(), 2u);
  EXPECT_EQ(search.loop.stop_reason(), ClosedLoopStop::Duration);
}

TEST(ClosedLoop, AClientLimitBoundsTheSearch) {
  ScriptedServer server({.lease_s = 3600});
  ClosedLoopPlan plan = plan_from(10);  // 50, 63, 78 clients per step
  plan.max_clients = 150;
  Search search(plan);
  search.run(server);
  EXPECT_EQ(search.loop.steps().size(), 2u);
  EXPECT_EQ(search.loop.stop_reason(), ClosedLoopStop::Clients);
  EXPECT_EQ(search.fleet.stats().clients_started, 113u);
  // If all 20 steps passed: 5 s of arrivals at 10 × 1.25^i for i < 20.
  std::size_t all_steps = 0;
  double rate = 10;
  for (int i = 0; i < 20; ++i, rate *= 1.25) {
    all_steps += static_cast<std::size_t>(std::llround(rate * 5));
  }
  EXPECT_EQ(search.loop.clients_needed(), all_steps);
}

TEST(ClosedLoop, ReportCarriesTheSteps) {
  ScriptedServer server({.lease_s = 3600});
  server.overload_above_per_s = 45;
  Search search(plan_from(20));
  search.run(server);
  ASSERT_EQ(search.loop.steps().size(), 2u);  // 40 requests/s pass, 50/s do not
  const RunInfo info{"in-process", "scripted", 5, 1, 1, &search.loop};
  const std::string json = report_json(search.fleet, info);
  EXPECT_NE(json.find(R"("closed_loop": {"start_rate_per_s": 20, "factor": 1.25)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("steps": [{"rate": 20.000, "clients": 100, "completed": 100, )"
                      R"("completed_per_s": 20.000, "replies_missed": 0, )"
                      R"("miss_fraction": 0.00000, "passed": true}, {"rate": 25.000)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("sustainable_dora_per_s": 20.000, "stopped_by": "miss-threshold"})"),
            std::string::npos)
      << json;
  const std::string text = report_text(search.fleet, info);
  EXPECT_NE(text.find("sustainable: 20.0 DORA/s (stopped by miss-threshold)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace landlord::sim
