// The Ledger alone (src/engine/ledger.hpp): the token rules, the lease state transitions it
// allows, the allocator kept in step, a record given back to nobody, the superseded test.
#include "ledger.hpp"

#include <gtest/gtest.h>

#include "../engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

using lease::Lease;
using lease::LeaseState;

const Ipv4 kAddress{198, 18, 0, 100};

Lease record(std::uint8_t client, LeaseState state, TimePoint at = kStart) {
  Lease lease;
  lease.address = kAddress;
  if (client != 0) {
    lease.client = key(client);
    lease.hardware = mac(client);
  }
  lease.state = state;
  lease.subnet_id = 1;
  lease.granted_at = at;
  lease.lease_time = std::chrono::hours{1};
  return lease;
}

class LedgerTest : public ::testing::Test {
 protected:
  LedgerTest() { ledger.rebuild(topology, config.server.server_id); }

  lease::FencingToken write(Lease change, Token rule) {
    ledger.write(change, rule);
    EXPECT_TRUE(ledger.allocator().files_as(kAddress, ledger.table().availability(kAddress)));
    return change.fencing_token;
  }

  config::Config config = make_config();
  Topology topology{config};
  Ledger ledger{std::nullopt};
};

TEST_F(LedgerTest, TokensFollowTheHolder) {
  EXPECT_EQ(write(record(1, LeaseState::Bound), Token::Follows), 1u);   // a first holder
  EXPECT_EQ(write(record(1, LeaseState::Bound), Token::Follows), 1u);   // the same one renews
  EXPECT_EQ(write(record(1, LeaseState::Bound), Token::NewEpoch), 2u);  // a rebind at T2
  EXPECT_EQ(write(record(1, LeaseState::Expired), Token::Kept), 2u);    // its end
  EXPECT_EQ(write(record(2, LeaseState::Bound), Token::Follows), 3u);   // someone new
}

TEST_F(LedgerTest, TheTokenAChangeCarriesIsIgnored) {
  Lease change = record(1, LeaseState::Bound);
  change.fencing_token = 99;  // what a caller may not decide
  EXPECT_EQ(write(change, Token::Follows), 1u);
  EXPECT_EQ(ledger.table().find(kAddress)->fencing_token, 1u);
}

TEST_F(LedgerTest, AnOfferHoldCarriesTheLastLeasesTokenAndHidesNothing) {
  write(record(1, LeaseState::Bound), Token::Follows);
  write(record(1, LeaseState::Expired), Token::Kept);
  ledger.hold(record(2, LeaseState::Offered), kStart + std::chrono::seconds{30});
  EXPECT_EQ(ledger.table().find(kAddress)->fencing_token, 1u);
  EXPECT_EQ(ledger.last_lease(kAddress, key(2))->state, LeaseState::Expired);
  // The grant over the hold follows the lease the hold covers: another client's, so +1.
  EXPECT_EQ(write(record(2, LeaseState::Bound), Token::Follows), 2u);
  ledger.hold(record(3, LeaseState::Offered), kStart + std::chrono::seconds{30});
  ledger.end_hold(kAddress);
  EXPECT_EQ(ledger.table().find(kAddress)->client, key(2));
}

TEST_F(LedgerTest, ATokenAnotherServerHoldsIsRaised) {
  Lease theirs = record(1, LeaseState::Bound);
  theirs.fencing_token = 4;
  theirs.writer = Ipv4{198, 18, 0, 9};
  ledger.learn(theirs);
  EXPECT_TRUE(ledger.token_elsewhere(kAddress));
  EXPECT_EQ(write(record(1, LeaseState::Bound), Token::Follows), 5u);  // ours now
  EXPECT_FALSE(ledger.token_elsewhere(kAddress));
  EXPECT_EQ(write(record(1, LeaseState::Bound), Token::Follows), 5u);
}

TEST_F(LedgerTest, ARecordGivenBackToNobodyKeepsNoIdentity) {
  Lease held = record(1, LeaseState::Declined);
  held.hostname = "h";
  held.classes = "c";
  held.last_extension = lease::Extension::Renewing;
  const Lease nobody = to_nobody(held);
  EXPECT_EQ(nobody.state, LeaseState::Expired);
  EXPECT_TRUE(nobody.client.empty());
  EXPECT_TRUE(nobody.hardware.empty());
  EXPECT_TRUE(nobody.hostname.empty());
  EXPECT_TRUE(nobody.classes.empty());
  EXPECT_EQ(nobody.last_extension, lease::Extension::None);
  EXPECT_EQ(nobody.granted_at, held.granted_at);
}

TEST_F(LedgerTest, AReleaseEndsTheLeaseNow) {
  const Lease released = released_at(record(1, LeaseState::Bound), kStart + std::chrono::minutes{5});
  EXPECT_EQ(released.state, LeaseState::Released);
  EXPECT_EQ(released.expires_at(), kStart + std::chrono::minutes{5});
  // Past its end already: the end stays where it was.
  EXPECT_EQ(released_at(record(1, LeaseState::Bound), kStart + std::chrono::hours{2}).expires_at(),
            kStart + std::chrono::hours{1});
}

TEST_F(LedgerTest, AWrittenRecordStandsUntilALaterChange) {
  Lease granted = record(1, LeaseState::Bound);
  ledger.write(granted, Token::Follows);
  EXPECT_TRUE(ledger.stands(granted));
  Lease renewed = record(1, LeaseState::Bound, kStart + std::chrono::minutes{30});
  ledger.write(renewed, Token::Follows);
  EXPECT_FALSE(ledger.stands(granted));
  EXPECT_TRUE(ledger.stands(renewed));
}

TEST_F(LedgerTest, TheStateTransitionsAllowed) {
  using Facts = Ledger::Facts;
  const auto facts = [](std::uint8_t holder, LeaseState state, std::uint8_t asking) {
    return std::optional<Facts>{Facts::of(record(holder, state), key(asking))};
  };
  const std::optional<Facts> none;
  EXPECT_FALSE(may_change(none, record(1, LeaseState::Offered)));
  EXPECT_TRUE(may_change(none, record(1, LeaseState::Bound)));
  EXPECT_FALSE(may_change(facts(2, LeaseState::Bound, 1), record(1, LeaseState::Bound)));
  EXPECT_FALSE(may_change(facts(2, LeaseState::Offered, 1), record(1, LeaseState::Bound)));
  EXPECT_TRUE(may_change(facts(2, LeaseState::Expired, 1), record(1, LeaseState::Bound)));
  EXPECT_TRUE(may_change(facts(1, LeaseState::Bound, 1), record(1, LeaseState::Released)));
  EXPECT_FALSE(may_change(facts(1, LeaseState::Expired, 1), record(1, LeaseState::Released)));
  EXPECT_FALSE(may_change(none, record(1, LeaseState::Released)));
  EXPECT_TRUE(may_change(facts(1, LeaseState::Offered, 1), record(1, LeaseState::Declined)));
  EXPECT_FALSE(may_change(facts(2, LeaseState::Offered, 1), record(1, LeaseState::Declined)));
  EXPECT_TRUE(may_change(none, record(0, LeaseState::Declined)));  // offer-ping: nobody's
  EXPECT_TRUE(may_change(facts(1, LeaseState::Bound, 1), record(1, LeaseState::Expired)));
  EXPECT_FALSE(may_change(facts(1, LeaseState::Declined, 1), record(1, LeaseState::Expired)));
  EXPECT_TRUE(may_change(facts(1, LeaseState::Declined, 0), record(0, LeaseState::Expired)));
  EXPECT_FALSE(may_change(none, record(0, LeaseState::Expired)));
}

using LedgerDeathTest = LedgerTest;

TEST_F(LedgerDeathTest, AChangeOverAnotherClientsLeaseStopsTheServer) {
  write(record(1, LeaseState::Bound), Token::Follows);
  Lease grab = record(2, LeaseState::Bound);
  EXPECT_DEATH(ledger.write(grab, Token::Follows), "may_change");
}

TEST_F(LedgerDeathTest, AnOfferIsNeverWrittenAsARecord) {
  Lease offer = record(1, LeaseState::Offered);
  EXPECT_DEATH(ledger.write(offer, Token::Kept), "may_change");
}

TEST_F(LedgerTest, ThePoolCountsFollowEveryChange) {
  const auto free_in_pool = [&] {
    const auto usage = ledger.allocator().usage(1);
    return usage.clean + usage.affinity;
  };
  const auto total = ledger.allocator().usage(1).total;
  const auto free_at_start = free_in_pool();
  write(record(1, LeaseState::Bound), Token::Follows);
  EXPECT_EQ(free_in_pool(), free_at_start - 1);
  write(record(1, LeaseState::Expired), Token::Kept);
  EXPECT_EQ(free_in_pool(), free_at_start);  // free, with the client's affinity
  EXPECT_EQ(ledger.allocator().usage(1).affinity, 1u);
  EXPECT_EQ(ledger.allocator().usage(1).total, total);
}

}  // namespace
}  // namespace landlord::engine::testing
