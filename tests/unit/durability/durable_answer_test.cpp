// While the store refuses writes, a bound client renewing its lease is answered from the lease
// the store already holds: an ACK whose lease time is what remains of that durable lease (T1
// and T2 scaled to it), which needs no write. Nothing else is answered: not a new grant, not
// a renewal of a lease that is itself not durable, not one whose record is still on its way.
#include <gtest/gtest.h>

#include "commit_results.hpp"
#include "engine_harness.hpp"
#include "landlord/durability/machine.hpp"

namespace landlord::durability {
namespace {

using engine::testing::Harness;
using namespace std::chrono_literals;
using testing::all;

CommitResult failure() {
  return testing::failure(store::StoreError::Kind::ReadOnly, "attempt to write a readonly database");
}

// What the machine let go of for one proposal, copied out of its Ready.
struct Answer {
  Verdict verdict = Verdict::Send;
  std::optional<wire::Message> reply;
  std::uint32_t option(std::uint8_t code) const {
    EXPECT_TRUE(reply.has_value());
    return reply ? reply->options.get_u32(code).value_or(0) : 0;
  }
};

class DurableAnswer : public ::testing::Test {
 protected:
  explicit DurableAnswer(bool shared_store = false)
      : machine{Options{100ms, 400ms, shared_store}} {}

  Ready& step() {
    machine.ready(harness.now, out);
    return out;
  }
  void answer(const Batch& batch, CommitResult result) {
    machine.committed(batch.id, std::move(result), harness.engine, harness.now);
  }
  // Client `client` bound, its ACK durable: the address; durable_until_ is its lease's end.
  Ipv4 bound(std::uint8_t client) {
    const Ipv4 address = harness.discover(client).reply->message.yiaddr;
    engine::Outcome ack = harness.select(client, address);
    durable_until_ = ack.mutations.at(0).expires_at();
    EXPECT_TRUE(machine.propose(ack, Origin{}));
    answer(step().batches.at(0), all(1));
    EXPECT_EQ(step().released.at(0).verdict, Verdict::Send);
    return address;
  }
  // The store starts refusing writes under a new client's grant.
  void store_fails(std::uint8_t newcomer) {
    const Ipv4 address = harness.discover(newcomer).reply->message.yiaddr;
    engine::Outcome ack = harness.select(newcomer, address);
    ASSERT_TRUE(machine.propose(ack, Origin{}));
    answer(step().batches.at(0), failure());
    EXPECT_EQ(step().released.at(0).verdict, Verdict::Unavailable);
    EXPECT_FALSE(machine.healthy());
  }
  // What the machine lets go of for `outcome`, proposed now while the store fails: a retry
  // that falls due is refused again; nothing else goes to the store.
  Answer proposed(engine::Outcome outcome) {
    EXPECT_TRUE(machine.propose(outcome, Origin{}));
    Ready& ready = step();
    EXPECT_EQ(ready.released.size(), 1u);
    Answer answered;
    if (!ready.released.empty()) {
      answered.verdict = ready.released[0].verdict;
      if (ready.released[0].reply != nullptr) answered.reply = ready.released[0].reply->message;
    }
    const std::vector<Batch> batches = ready.batches;
    for (const Batch& batch : batches) {
      EXPECT_TRUE(batch.retry) << "nothing new is written for a reply during the outage";
      answer(batch, failure());
    }
    step();
    return answered;
  }

  Harness harness;
  Machine machine;
  Ready out;
  TimePoint durable_until_{};
};

class DurableAnswerOnASharedStore : public DurableAnswer {
 protected:
  DurableAnswerOnASharedStore() : DurableAnswer(/*shared_store=*/true) {}
};

TEST_F(DurableAnswer, ARenewalGetsWhatRemainsOfItsDurableLeaseWithoutAWrite) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 30min;
  const Answer first = proposed(harness.renew(1, address));
  ASSERT_EQ(first.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(first.option(wire::option::kLeaseTime), 1800u)
      << "what remains of the durable hour, not a new hour";
  EXPECT_EQ(first.option(wire::option::kRenewalTime), 900u) << "T1 keeps its half";
  EXPECT_EQ(first.option(wire::option::kRebindingTime), 1575u) << "T2 keeps its 87.5 %";
  EXPECT_EQ(first.reply->yiaddr, address);
  EXPECT_EQ(machine.counters().answered_from_durable, 1u);
  EXPECT_EQ(machine.counters().replies_dropped_store_down, 1u) << "only the newcomer's grant";

  // At the new T1 the client renews again: still no further than the durable lease, although
  // the engine now believes the first renewal's full hour.
  harness.now += 15min;
  const Answer second = proposed(harness.renew(1, address));
  ASSERT_EQ(second.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(harness.now + std::chrono::seconds{second.option(wire::option::kLeaseTime)},
            durable_until_);
  EXPECT_EQ(machine.counters().answered_from_durable, 2u);

  // The store takes writes again: the retry writes the renewal no shorter than what was told.
  harness.now += 1s;
  const Batch retry = step().batches.at(0);
  ASSERT_TRUE(retry.retry);
  for (const lease::Lease& record : retry.records) {
    if (record.address == address) {
      EXPECT_GE(record.expires_at(), durable_until_);
    }
  }
  answer(retry, all(retry.records.size()));
  step();
  ASSERT_TRUE(machine.healthy());
  engine::Outcome renewal = harness.renew(1, address);
  ASSERT_TRUE(machine.propose(renewal, Origin{}));
  answer(step().batches.at(0), all(1));
  const Release& extended = step().released.at(0);
  EXPECT_EQ(extended.verdict, Verdict::Send);
  ASSERT_NE(extended.reply, nullptr);
  EXPECT_EQ(extended.reply->message.options.get_u32(wire::option::kLeaseTime), 3600u)
      << "a real extension again";
}

TEST_F(DurableAnswer, ARebindingClientIsAnsweredToo) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 55min;
  const Answer rebind = proposed(harness.rebind(1, address));
  ASSERT_EQ(rebind.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(rebind.option(wire::option::kLeaseTime), 300u);
}

TEST_F(DurableAnswerOnASharedStore, ARebootingClientIsLeftToServersThatCanWrite) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 20min;
  EXPECT_EQ(proposed(harness.init_reboot(1, address)).verdict, Verdict::Unavailable)
      << "INIT-REBOOT is broadcast: a peer that can write extends the lease for real";
}

TEST_F(DurableAnswerOnASharedStore, ARebindingClientIsLeftToServersThatCanWrite) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 55min;
  EXPECT_EQ(proposed(harness.rebind(1, address)).verdict, Verdict::Unavailable)
      << "a broadcasting client is left to a server that can extend its lease";
  harness.now += 1s;
  EXPECT_EQ(proposed(harness.renew(1, address)).verdict, Verdict::DurableRemainder)
      << "a client renewing with this server alone is still answered";
}

// Issue #16: a client restarting (INIT-REBOOT) and asking for the address of its durable lease
// is answered like a renewal: what remains of that lease, no write, no new token.
TEST_F(DurableAnswer, ARebootingClientGetsWhatRemainsOfItsDurableLease) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 20min;
  const Answer reboot = proposed(harness.init_reboot(1, address));
  ASSERT_EQ(reboot.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(reboot.reply->yiaddr, address);
  EXPECT_EQ(reboot.option(wire::option::kLeaseTime), 2400u) << "40 of the durable hour left";
  EXPECT_EQ(reboot.option(wire::option::kRenewalTime), 1200u);
  EXPECT_EQ(reboot.option(wire::option::kRebindingTime), 2100u);
  EXPECT_EQ(machine.counters().reboots_answered_from_durable, 1u);
  EXPECT_EQ(machine.counters().answered_from_durable, 0u) << "renewals are counted apart";

  // Rebooting again later: still cut to the durable lease, not to the engine's belief.
  harness.now += 10min;
  const Answer again = proposed(harness.init_reboot(1, address));
  ASSERT_EQ(again.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(harness.now + std::chrono::seconds{again.option(wire::option::kLeaseTime)},
            durable_until_);
}

// Only the client's own durable lease on its link: a lease granted during the outage, a new
// client's reboot (the authoritative server would grant it) and a client whose lease has ended
// stay unanswered — silence, no NAK.
TEST_F(DurableAnswer, ARebootIsAnsweredOnlyForTheClientsOwnDurableLease) {
  const Ipv4 ended = bound(4);
  bound(1);
  store_fails(2);
  const Ipv4 offered = harness.discover(3).reply->message.yiaddr;
  EXPECT_EQ(proposed(harness.select(3, offered)).verdict, Verdict::Unavailable);
  harness.now += 1s;
  EXPECT_EQ(proposed(harness.init_reboot(3, offered)).verdict, Verdict::Unavailable)
      << "granted during the outage: the store holds no lease of client 3";
  EXPECT_EQ(proposed(harness.init_reboot(5, Ipv4{198, 18, 0, 180})).verdict, Verdict::Unavailable)
      << "a new client's address would be a new grant";
  // Client 4's hour runs out: the reclaimer expires it (its record waits for the store too).
  harness.now = durable_until_ + 1s;
  for (lease::Lease& expired : harness.engine.reclaim(harness.now, 1000)) {
    machine.propose_reclaimed({expired});
  }
  const std::vector<Batch> due = step().batches;
  for (const Batch& batch : due) answer(batch, failure());
  step();
  EXPECT_EQ(proposed(harness.init_reboot(4, ended)).verdict, Verdict::Unavailable)
      << "an ended lease is a new grant";
  EXPECT_EQ(machine.counters().reboots_answered_from_durable, 0u);
}

TEST_F(DurableAnswer, NothingThatNeedsAWriteIsAnswered) {
  bound(1);
  store_fails(2);
  // A new client: its grant would promise a lease the store does not hold.
  const Ipv4 offered = harness.discover(3).reply->message.yiaddr;
  EXPECT_EQ(proposed(harness.select(3, offered)).verdict, Verdict::Unavailable);
  // Its client, told nothing, renewing anyway: the engine believes the lease, the store does not.
  harness.now += 1s;
  EXPECT_EQ(proposed(harness.renew(3, offered)).verdict, Verdict::Unavailable);
  EXPECT_EQ(machine.counters().answered_from_durable, 0u);
}

TEST_F(DurableAnswer, ALeaseWhoseRecordIsStillOnItsWayIsNotAnswered) {
  const Ipv4 address = bound(1);
  harness.now += 30min;
  // A newcomer's grant, then client 1's renewal, each in a batch of its own at the store.
  const Ipv4 offered = harness.discover(2).reply->message.yiaddr;
  engine::Outcome grant = harness.select(2, offered);
  ASSERT_TRUE(machine.propose(grant, Origin{}));
  const Batch first = step().batches.at(0);
  engine::Outcome renewal = harness.renew(1, address);
  ASSERT_TRUE(machine.propose(renewal, Origin{}));
  const Batch second = step().batches.at(0);
  answer(first, failure());  // the store fails; client 1's renewal is still on its way
  step();
  harness.now += 50ms;  // before the first retry (100 ms): batches are answered in order
  EXPECT_EQ(proposed(harness.renew(1, address)).verdict, Verdict::Unavailable)
      << "the store may or may not hold the renewal in flight: nothing is known";
  EXPECT_EQ(proposed(harness.init_reboot(1, address)).verdict, Verdict::Unavailable)
      << "nor for a reboot";
  answer(second, failure());
  step();
}

TEST_F(DurableAnswer, AnotherServersWriteSeenOnTheFeedVoidsWhatWasKnown) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now += 30min;
  ASSERT_EQ(proposed(harness.renew(1, address)).verdict, Verdict::DurableRemainder);
  machine.observed(address);  // e.g. an operator's revoke on a peer
  harness.now += 1s;
  EXPECT_EQ(proposed(harness.renew(1, address)).verdict, Verdict::Unavailable);
}

TEST_F(DurableAnswer, ALeaseTooShortToKeepT1BeforeT2IsNotAnswered) {
  const Ipv4 address = bound(1);
  store_fails(2);
  harness.now = durable_until_ - 2s;  // T1 1 s, T2 1 s (87.5 % of 2 s): not a valid reply
  EXPECT_EQ(proposed(harness.renew(1, address)).verdict, Verdict::Unavailable);
  harness.now = durable_until_ - 3s - 500ms;  // 3 s: T1 1 s, T2 2 s
  const Answer answer = proposed(harness.renew(1, address));
  ASSERT_EQ(answer.verdict, Verdict::DurableRemainder);
  EXPECT_EQ(answer.option(wire::option::kLeaseTime), 3u);
  EXPECT_EQ(answer.option(wire::option::kRenewalTime), 1u);
  EXPECT_EQ(answer.option(wire::option::kRebindingTime), 2u);
}

}  // namespace
}  // namespace landlord::durability
