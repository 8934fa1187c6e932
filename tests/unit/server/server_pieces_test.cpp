// The daemon's deciding pieces, without a socket or a timer: the rate-limited log's rule, the
// expiry plan (when to arm, how many reclaim batches at the store), what a reload keeps, an
// operator change's answer, the link view's rescans, a shared store's gate on requests, and
// the counters gathered by name.
#include <gtest/gtest.h>

#include "daemon_counters.hpp"
#include "landlord/server/expiry.hpp"
#include "landlord/server/link_view.hpp"
#include "landlord/server/operator_changes.hpp"
#include "landlord/server/rate_limit.hpp"
#include "landlord/server/reload.hpp"
#include "reply_sender.hpp"
#include "shared_view.hpp"

namespace landlord::server {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

TEST(RateLimitedLog, OneLinePerIntervalWithTheCountHeldBack) {
  RateLimitedLog log{5s};
  const Steady::time_point start{1h};
  ASSERT_EQ(log.admit(start), std::optional<std::uint64_t>{0});
  EXPECT_FALSE(log.admit(start + 1s));
  EXPECT_FALSE(log.admit(start + 4999ms));
  EXPECT_EQ(log.admit(start + 5s), std::optional<std::uint64_t>{2}) << "two held back";
  EXPECT_EQ(log.admit(start + 11s), std::optional<std::uint64_t>{0});
}

const TimePoint kAt = time_from_unix_ms(1'800'000'000'000);

TEST(ExpiryPlan, ArmsOnlyForAnEarlierDeadline) {
  ExpiryPlan plan{4};
  EXPECT_FALSE(plan.must_arm(std::nullopt));
  EXPECT_TRUE(plan.must_arm(kAt));
  plan.armed(kAt);
  EXPECT_FALSE(plan.must_arm(kAt)) << "armed already for that time";
  EXPECT_FALSE(plan.must_arm(kAt + 1s)) << "what is armed fires first";
  EXPECT_TRUE(plan.must_arm(kAt - 1s));
  plan.disarmed();
  EXPECT_TRUE(plan.must_arm(kAt + 1s));
}

TEST(ExpiryPlan, AtMostSoManyReclaimBatchesAtTheStoreThenPausedUntilOneIsAnswered) {
  ExpiryPlan plan{2};
  ASSERT_TRUE(plan.may_take_batch());
  plan.batch_proposed();
  ASSERT_TRUE(plan.may_take_batch());
  plan.batch_proposed();
  EXPECT_FALSE(plan.may_take_batch()) << "two at the store";
  EXPECT_TRUE(plan.batch_answered()) << "paused: goes on now";
  EXPECT_FALSE(plan.batch_answered()) << "not paused";
  EXPECT_EQ(plan.at_store(), 0u);
}

config::Config with_listen_port(std::uint16_t port) {
  config::Config config;
  config.server.listen.port = port;
  config.lease.time = std::chrono::hours{1};
  return config;
}

TEST(Reload, KeepsWhatOnlyARestartApplies) {
  const config::Config running = with_listen_port(67);
  config::Config same = with_listen_port(67);
  same.lease.time = std::chrono::hours{2};
  EXPECT_FALSE(keep_restart_only(same, running));
  EXPECT_EQ(same.lease.time, std::chrono::hours{2}) << "a lease time is reloaded";

  config::Config moved = with_listen_port(1067);
  moved.lease.time = std::chrono::hours{2};
  moved.store.path = "/elsewhere.db";
  EXPECT_TRUE(keep_restart_only(moved, running));
  EXPECT_EQ(moved.server.listen.port, 67) << "the socket stays";
  EXPECT_EQ(moved.store.path, running.store.path);
  EXPECT_EQ(moved.lease.time, std::chrono::hours{2}) << "the rest is reloaded";

  config::Config control = with_listen_port(67);
  control.control.socket = "/run/other.sock";
  EXPECT_TRUE(keep_restart_only(control, running));
  EXPECT_EQ(control.control.socket, running.control.socket);
}

TEST(OperatorChanges, EachCallerIsAnsweredOnceByItsId) {
  OperatorChanges changes;
  std::vector<int> answered;
  const auto first = changes.add([&](Expected<void, std::string>) { answered.push_back(1); });
  const auto second = changes.add([&](Expected<void, std::string>) { answered.push_back(2); });
  EXPECT_NE(first, 0u);
  EXPECT_NE(first, second);
  changes.take(second)({});
  changes.take(first)({});
  EXPECT_EQ(answered, (std::vector<int>{2, 1}));
  EXPECT_EQ(changes.waiting(), 0u);
}

TEST(OperatorChanges, TheAnswerSaysWhyAChangeIsNotDurable) {
  EXPECT_TRUE(change_answer(durability::Verdict::Send, false));
  const auto stale = change_answer(durability::Verdict::StaleToken, false);
  ASSERT_FALSE(stale);
  EXPECT_NE(stale.error().find("stale fencing token"), std::string::npos);
  const auto full = change_answer(durability::Verdict::Unavailable, true);
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().find("commit queue is full"), std::string::npos);
  const auto down = change_answer(durability::Verdict::Unavailable, false);
  ASSERT_FALSE(down);
  EXPECT_NE(down.error().find("not accepting writes"), std::string::npos);
}

TEST(LinkView, AnUnknownLinkRescansAtMostOncePerInterval) {
  int scans = 0;
  LinkView view{{[&] {
                   ++scans;
                   return LinkTable{{Link{2, "ll-a", false, {}, true}}};
                 },
                 [] { return RouteTable{}; }}};
  struct At {
    Steady::time_point at;
    Steady::time_point steady() const { return at; }
  };
  const Steady::time_point start{1h};
  EXPECT_EQ(view.refresh({"ll-a", "ll-gone"}, start), "ll-gone");
  EXPECT_TRUE(view.served().contains(2));
  ASSERT_EQ(scans, 1);
  EXPECT_NE(view.find(2, At{start}), nullptr);
  EXPECT_EQ(view.find(9, At{start + 500ms}), nullptr);
  EXPECT_EQ(scans, 1) << "scanned less than a second ago";
  EXPECT_EQ(view.find(9, At{start + 2s}), nullptr);
  EXPECT_EQ(scans, 2);
  EXPECT_EQ(view.find(0, At{start + 10s}), nullptr);
  EXPECT_EQ(scans, 2) << "index 0 (unknown to the kernel) never rescans";
  EXPECT_EQ(view.name(2), "ll-a");
  EXPECT_EQ(view.name(9), "?");
}

TEST(LeavesAsFrame, OnlyToAClientOnAnEthernetIngressWhenFramesCanBeSent) {
  const Link ethernet{2, "ll-a", false, {}, true};
  const Link tunnel{3, "tun0", false, {}, false};
  Destination to_client;
  to_client.frame_to = Mac{2, 0, 0, 0, 0, 1};
  EXPECT_TRUE(leaves_as_frame(to_client, &ethernet, true));
  EXPECT_FALSE(leaves_as_frame(to_client, &ethernet, false));
  EXPECT_FALSE(leaves_as_frame(to_client, &tunnel, true));
  EXPECT_FALSE(leaves_as_frame(to_client, nullptr, true));
  EXPECT_FALSE(leaves_as_frame(Destination{}, &ethernet, true)) << "to a relay or ciaddr";
}

TEST(SharedView, RequestsWaitForACurrentViewAndAnAgreeingClock) {
  SharedView own{false, 1s};
  EXPECT_TRUE(own.accepts()) << "a store of its own: always";

  SharedView shared{true, 1s};
  EXPECT_FALSE(shared.accepts()) << "no clock reading yet";
  EXPECT_EQ(shared.dropped_clock_skew(), 1u);
  EXPECT_EQ(shared.clock_read(200ms), ClockAgreement::Change::FirstAgrees);
  EXPECT_TRUE(shared.accepts());
  shared.failed(store::StoreError{store::StoreError::Kind::Io, "gone"}, Steady::time_point{1h});
  EXPECT_FALSE(shared.accepts());
  EXPECT_EQ(shared.dropped_view_stale(), 1u);
  EXPECT_EQ(shared.sync_failures(), 1u);
  shared.recovered(0);
  EXPECT_TRUE(shared.accepts());
}

TEST(DaemonCounters, GatheredByNameFromWhereTheyAreCounted) {
  const engine::Engine engine{config::Config{}};
  const durability::Machine machine{durability::Options{}};
  ReceiveCounters receive;
  receive.packets_received = 10;
  receive.malformed = 2;
  receive.oversized = 3;
  receive.offer_ping_skipped = 4;
  store::CommitQueueCounters queue;
  queue.commits = 7;
  queue.last_batch_records = 20;
  engine::AdmissionCounters admission;
  admission.refused[1] = 5;
  admission.admitted = 21;
  const CounterSources sources{.engine = engine, .machine = machine, .queue = queue, .store_health = {},
                               .receive = receive, .unroutable = 11, .no_route = 12,
                               .receive_queue_overflow = 13, .view_current = false, .view_sync_failures = 14,
                               .dropped_view_stale = 15, .dropped_clock_skew = 16, .clock_agrees = false,
                               .clock_offset_seconds = 1.5, .admission = admission, .chaddr_mismatch = 17,
                               .discover_shed = 18, .frames_unseen = 19};
  const control::DaemonCounters counters = gather(sources);
  EXPECT_EQ(counters.packets_received, 10u);
  EXPECT_EQ(counters.malformed, 2u);
  EXPECT_EQ(counters.oversized, 3u);
  EXPECT_EQ(counters.offer_ping_skipped, 4u);
  EXPECT_EQ(counters.commits, 7u);
  EXPECT_EQ(counters.last_batch_records, 20u);
  EXPECT_EQ(counters.admitted, 21u);
  EXPECT_EQ(counters.unroutable, 11u);
  EXPECT_EQ(counters.no_route, 12u);
  EXPECT_EQ(counters.receive_queue_overflow, 13u);
  EXPECT_FALSE(counters.view_current);
  EXPECT_EQ(counters.view_sync_failures, 14u);
  EXPECT_EQ(counters.dropped_view_stale, 15u);
  EXPECT_EQ(counters.dropped_clock_skew, 16u);
  EXPECT_FALSE(counters.clock_agrees);
  EXPECT_EQ(counters.clock_offset_seconds, 1.5);
  EXPECT_EQ(counters.admission_refused[1], 5u);
  EXPECT_EQ(counters.chaddr_mismatch, 17u);
  EXPECT_EQ(counters.discover_shed, 18u);
  EXPECT_EQ(counters.frames_unseen, 19u);
  EXPECT_TRUE(counters.store_healthy);
  EXPECT_EQ(counters.store_failures_by_reason.size(), store::StoreError::kKinds) << "every reason, zeros too";
  EXPECT_EQ(counters.checkpoint_failures_by_reason.size(), store::StoreError::kKinds);
}

}  // namespace
}  // namespace landlord::server
