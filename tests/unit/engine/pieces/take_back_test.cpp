// Addresses taken back (src/engine/take_back.hpp) and operators' changes
// (src/engine/operator_changes.hpp), over a Ledger set up by hand: the tokens they write.
#include "take_back.hpp"

#include <gtest/gtest.h>

#include "../engine_harness.hpp"
#include "operator_changes.hpp"

namespace landlord::engine::testing {
namespace {

using lease::Lease;
using lease::LeaseState;

const Ipv4 kAddress{198, 18, 0, 100};

class TakeBackTest : public ::testing::Test {
 protected:
  TakeBackTest() { ledger.rebuild(topology, config.server.server_id); }

  Lease write(LeaseState state, Duration lease_time = std::chrono::hours{1}) {
    Lease lease;
    lease.address = kAddress;
    lease.client = key(1);
    lease.hardware = mac(1);
    lease.hostname = "one";
    lease.subnet_id = 1;
    lease.state = LeaseState::Bound;  // a client declines only what it was offered or holds
    lease.granted_at = kStart;
    lease.lease_time = lease_time;
    ledger.write(lease, Token::Follows);
    if (state != LeaseState::Bound) {
      lease.state = state;
      ledger.write(lease, Token::Follows);
    }
    return lease;
  }

  config::Config config = make_config();
  Topology topology{config};
  Ledger ledger{std::nullopt};
  Counters counters;
};

TEST_F(TakeBackTest, ABoundLeaseExpiresWithItsToken) {
  write(LeaseState::Bound);
  EXPECT_TRUE(reclaim(ledger, counters, kStart + std::chrono::minutes{59}, 10).empty());
  const auto expired = reclaim(ledger, counters, kStart + std::chrono::hours{1}, 10);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].state, LeaseState::Expired);
  EXPECT_EQ(expired[0].client, key(1));  // affinity: the record stays the client's
  EXPECT_EQ(expired[0].fencing_token, 1u);
  EXPECT_EQ(counters.expirations, 1u);
}

TEST_F(TakeBackTest, TheEndOfADeclineHoldIsNobodysWithTheNextToken) {
  write(LeaseState::Declined, std::chrono::minutes{10});
  const auto freed = reclaim(ledger, counters, kStart + std::chrono::minutes{10}, 10);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_TRUE(freed[0].client.empty());
  EXPECT_TRUE(freed[0].hostname.empty());
  EXPECT_EQ(freed[0].fencing_token, 2u);
}

TEST_F(TakeBackTest, AnOperatorEndsADeclineHoldAsReclaimDoes) {
  write(LeaseState::Declined, std::chrono::minutes{10});
  const AdminResult revoked = admin_revoke(ledger, kAddress, kStart);
  ASSERT_TRUE(revoked.has_value());
  ASSERT_EQ(revoked->mutations.size(), 1u);
  EXPECT_TRUE(revoked->mutations[0].client.empty());
  EXPECT_EQ(revoked->mutations[0].state, LeaseState::Expired);
  EXPECT_EQ(revoked->mutations[0].fencing_token, 2u);
}

TEST_F(TakeBackTest, AnOperatorsGrantFollowsTheHolder) {
  write(LeaseState::Bound);
  AdminLease request;
  request.address = Ipv4{198, 18, 0, 101};
  request.hardware = mac(2);
  EXPECT_EQ(admin_grant(ledger, topology, request, false, kStart)->mutations[0].fencing_token, 1u);
  request.address = kAddress;  // client 1's
  EXPECT_EQ(admin_grant(ledger, topology, request, false, kStart).error().kind, AdminRefusal::Kind::Conflict);
  ASSERT_TRUE(admin_revoke(ledger, kAddress, kStart + std::chrono::minutes{1}).has_value());
  EXPECT_EQ(ledger.table().find(kAddress)->state, LeaseState::Released);
  request.address = Ipv4{198, 18, 0, 102};
  EXPECT_EQ(admin_grant(ledger, topology, request, false, kStart).error().kind, AdminRefusal::Kind::Conflict);
}

TEST_F(TakeBackTest, AnOperatorsUpdateKeepsTheNameInDnsAndTheRelaysOption82) {
  Lease held = write(LeaseState::Bound);
  held.fqdn = "one.example.test";
  held.dns_sides = lease::DnsSides{true, true};
  held.dns_state = lease::DnsState::Done;
  held.relay_agent_info = std::string{"\x01\x02\x00\x07", 4};
  ledger.write(held, Token::Kept);
  AdminLease request;
  request.address = kAddress;
  request.hardware = mac(1);
  request.hostname = "renamed-by-operator";
  const AdminResult updated = admin_grant(ledger, topology, request, true, kStart + std::chrono::minutes{5});
  ASSERT_TRUE(updated.has_value()) << updated.error().reason;
  const Lease& record = updated->mutations.at(0);
  EXPECT_EQ(record.hostname, "renamed-by-operator");
  EXPECT_EQ(record.fqdn, "one.example.test");  // the records in DNS are still this name's
  EXPECT_EQ(record.dns_sides, (lease::DnsSides{true, true}));
  EXPECT_EQ(record.dns_state, lease::DnsState::Done);
  EXPECT_EQ(record.relay_agent_info, held.relay_agent_info);
}

TEST_F(TakeBackTest, ARefusedGrantLeavesTheAddressHeldForNobodyWithItsToken) {
  const Lease granted = write(LeaseState::Bound);
  Lease written = granted;
  written.fencing_token = 1;
  EXPECT_TRUE(refused(ledger, topology, counters, written, kStart));
  EXPECT_EQ(counters.fenced, 1u);
  const auto held = ledger.table().find(kAddress);
  EXPECT_EQ(held->state, LeaseState::Offered);  // held, in memory only
  EXPECT_TRUE(held->client.empty());
  EXPECT_EQ(held->fencing_token, 1u);
  EXPECT_FALSE(refused(ledger, topology, counters, written, kStart));  // superseded now
}

TEST_F(TakeBackTest, AnUnacknowledgedGrantIsShortenedUnlessSuperseded) {
  Lease granted = write(LeaseState::Bound);
  granted.fencing_token = 1;
  Lease shortened = granted;
  shortened.lease_time = std::chrono::seconds{30};
  EXPECT_TRUE(unacknowledged(ledger, granted, shortened));
  EXPECT_EQ(ledger.table().find(kAddress)->lease_time, std::chrono::seconds{30});
  EXPECT_FALSE(unacknowledged(ledger, granted, shortened));  // the shortened one stands now
}

}  // namespace
}  // namespace landlord::engine::testing
