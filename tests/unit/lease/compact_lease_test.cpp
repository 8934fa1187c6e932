// The compact form against every combination of the out-of-line fields: whatever goes in comes
// back exactly, and a lease with none of them needs no LeaseExtra.
#include "landlord/lease/compact_lease.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace landlord::lease {
namespace {

Lease plain_lease() {
  const std::uint8_t mac[6] = {2, 0, 0, 0, 9, 1};
  Lease lease;
  lease.address = Ipv4{198, 18, 0, 9};
  lease.hardware = HardwareAddress(1, mac);
  lease.client = ClientKey::from(lease.client_id, lease.hardware);
  lease.state = LeaseState::Bound;
  lease.subnet_id = 7;
  lease.granted_at = time_from_unix_ms(1'800'000'000'123);
  lease.lease_time = std::chrono::seconds{3600};
  lease.renew_time = std::chrono::seconds{1800};
  lease.rebind_time = std::chrono::seconds{3150};
  lease.fencing_token = 3;
  return lease;
}

void expect_fields(const Lease& got, const Lease& want) {
  EXPECT_EQ(got.address, want.address);
  EXPECT_EQ(got.client, want.client);
  EXPECT_EQ(got.hardware, want.hardware);
  EXPECT_EQ(got.client_id, want.client_id);
  EXPECT_EQ(got.hostname, want.hostname);
  EXPECT_EQ(got.classes, want.classes);
  EXPECT_EQ(got.fqdn, want.fqdn);
  EXPECT_EQ(got.dns_sides, want.dns_sides);
  EXPECT_EQ(got.dns_state, want.dns_state);
  EXPECT_EQ(got.relay_agent_info, want.relay_agent_info);
  EXPECT_EQ(got.state, want.state);
  EXPECT_EQ(got.granted_at, want.granted_at);
  EXPECT_EQ(got.lease_time, want.lease_time);
  EXPECT_EQ(got.fencing_token, want.fencing_token);
}

TEST(CompactLease, ExtraKeepsItsSize) { EXPECT_EQ(sizeof(LeaseExtra), 48u); }

TEST(CompactLease, LeaseWithoutNameOrOption82NeedsNoExtra) {
  LeaseExtra extra;
  const CompactLease record = encode(plain_lease(), extra);
  EXPECT_TRUE(extra.empty());
  expect_fields(decode(record, nullptr), plain_lease());
}

TEST(CompactLease, EveryCombinationOfTheOutOfLineFieldsRoundTrips) {
  const std::vector<std::string> hostnames{"", "h", "a-hostname-longer-than-the-small-string-buffer"};
  const std::vector<std::string> fqdns{"", "h.example", std::string(253, 'f'), std::string(255, 'g')};
  const std::vector<std::string> relays{"", std::string("\x01\x02\x00\x07", 4), std::string(255, '\x02')};
  const std::vector<std::string> class_lists{"", "ipxe,phones"};
  const std::vector<ClientId> ids{ClientId{}, ClientId(std::vector<std::uint8_t>{255, 0, 0, 0, 1, 0, 4, 1, 2})};
  const std::array<DnsState, 5> states{DnsState::None, DnsState::Pending, DnsState::Done, DnsState::Conflict,
                                       DnsState::Failed};
  int cases = 0;
  for (const auto& id : ids) {
    for (const auto& hostname : hostnames) {
      for (const auto& fqdn : fqdns) {
        for (const auto& relay : relays) {
          for (const auto& classes : class_lists) {
            for (int sides = 0; sides < 4; ++sides) {
              for (const DnsState state : states) {
                Lease lease = plain_lease();
                lease.client_id = id;
                lease.client = ClientKey::from(lease.client_id, lease.hardware);
                lease.hostname = hostname;
                lease.fqdn = fqdn;
                lease.relay_agent_info = relay;
                lease.classes = classes;
                lease.dns_sides = {(sides & 1) != 0, (sides & 2) != 0};
                lease.dns_state = state;
                SCOPED_TRACE(std::to_string(cases));
                LeaseExtra extra;
                const CompactLease record = encode(lease, extra);
                EXPECT_EQ(extra.whole, nullptr);  // all within the compact form's bounds
                expect_fields(decode(record, extra.empty() ? nullptr : &extra), lease);
                EXPECT_EQ(extra.empty(), id.empty() && hostname.empty() && fqdn.empty() && relay.empty() &&
                                             classes.empty() && sides == 0 && state == DnsState::None);
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 2 * 3 * 4 * 3 * 2 * 4 * 5);
}

TEST(CompactLease, NameOrOption82PastAByteKeepsTheLeaseWhole) {
  for (const bool long_name : {true, false}) {
    Lease lease = plain_lease();
    (long_name ? lease.fqdn : lease.relay_agent_info) = std::string(256, 'x');
    lease.dns_state = DnsState::Conflict;
    LeaseExtra extra;
    const CompactLease record = encode(lease, extra);
    ASSERT_NE(extra.whole, nullptr);
    expect_fields(decode(record, &extra), lease);
  }
}

}  // namespace
}  // namespace landlord::lease
