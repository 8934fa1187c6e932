// Allocation alone (src/engine/allocation.hpp): RFC 2131 §4.3.1's order over a Ledger set up
// by hand, no engine.
#include "allocation.hpp"

#include <gtest/gtest.h>

#include "../engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

using lease::Lease;
using lease::LeaseState;

class AllocationTest : public ::testing::Test {
 protected:
  AllocationTest() { ledger.rebuild(topology, config.server.server_id); }

  const SubnetView& local() const { return topology.subnets()[0]; }

  void bound(std::uint8_t client, Ipv4 address, LeaseState state = LeaseState::Bound) {
    Lease lease;
    lease.address = address;
    lease.client = key(client);
    lease.hardware = mac(client);
    lease.subnet_id = 1;
    lease.state = LeaseState::Bound;
    lease.granted_at = kStart;
    lease.lease_time = std::chrono::hours{1};
    ledger.write(lease, Token::Follows);
    if (state != LeaseState::Bound) {
      lease.state = state;
      ledger.write(lease, Token::Kept);
    }
  }

  config::Config config = make_config();
  Topology topology{config};
  Ledger ledger{std::nullopt};
  ClientClasses classes{config, ledger};
  std::optional<PeerShare> share;
  Allocation allocation{ledger, classes, share};
};

TEST_F(AllocationTest, TheLowestCleanAddressFirst) {
  const auto message = client_message(MessageType::Discover, 1);
  EXPECT_EQ(allocation.allocate(local(), message, key(1)), (Ipv4{198, 18, 0, 100}));
}

TEST_F(AllocationTest, AReservationBeforeAnythingElse) {
  const auto message = client_message(MessageType::Discover, 0x99);  // the printer
  EXPECT_EQ(allocation.allocate(local(), message, key(0x99)), (Ipv4{198, 18, 0, 150}));
}

TEST_F(AllocationTest, TheClientsLastLeaseBeforeTheAddressItAsksFor) {
  bound(1, Ipv4{198, 18, 0, 120}, LeaseState::Expired);
  auto message = client_message(MessageType::Discover, 1);
  message.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 130});
  EXPECT_EQ(allocation.allocate(local(), message, key(1)), (Ipv4{198, 18, 0, 120}));
  // Another client asks for it: an ended lease is no allocation (§4.3.1).
  auto other = client_message(MessageType::Discover, 2);
  other.options.set_ipv4(option::kRequestedAddress, Ipv4{198, 18, 0, 120});
  EXPECT_EQ(allocation.allocate(local(), other, key(2)), (Ipv4{198, 18, 0, 120}));
}

TEST_F(AllocationTest, NeverAnotherClientsBoundLease) {
  bound(1, Ipv4{198, 18, 0, 100});
  auto message = client_message(MessageType::Request, 2);
  EXPECT_FALSE(allocation.can_grant(local(), message, key(2), Ipv4{198, 18, 0, 100}));
  EXPECT_TRUE(allocation.can_grant(local(), message, key(2), Ipv4{198, 18, 0, 101}));
  EXPECT_TRUE(allocation.can_grant(local(), client_message(MessageType::Request, 1), key(1),
                                   Ipv4{198, 18, 0, 100}));
  EXPECT_FALSE(allocation.can_grant(local(), message, key(2), Ipv4{198, 18, 0, 150}));  // reserved
  EXPECT_FALSE(allocation.can_grant(local(), message, key(2), Ipv4{198, 18, 1, 100}));  // off the link
}

TEST_F(AllocationTest, TheRequestedLeaseTimeWithinTheSubnetsBounds) {
  auto message = client_message(MessageType::Discover, 1);
  EXPECT_EQ(allocation.durations_for(local(), message, 0).lease_time, std::chrono::hours{1});
  message.options.set_u32(option::kLeaseTime, 600);
  // Without lease min/max configured both are `time`: the request cannot change it.
  EXPECT_EQ(allocation.durations_for(local(), message, 0).lease_time, std::chrono::hours{1});
}

TEST_F(AllocationTest, ARecordForTheMessagesClient) {
  auto message = client_message(MessageType::Request, 0x99);
  const LeaseDurations durations{std::chrono::hours{1}, std::chrono::minutes{30}, std::chrono::minutes{52}};
  const Lease lease = allocation.record_for(local(), message, key(0x99), Ipv4{198, 18, 0, 150}, durations, kStart);
  EXPECT_EQ(lease.hostname, "printer");  // the reservation's, the message naming none
  EXPECT_EQ(lease.client, key(0x99));
  EXPECT_EQ(lease.subnet_id, 1u);
  EXPECT_EQ(lease.expires_at(), kStart + std::chrono::hours{1});
}

}  // namespace
}  // namespace landlord::engine::testing
