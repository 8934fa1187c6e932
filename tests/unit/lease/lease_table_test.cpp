#include "landlord/lease/lease_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace landlord::lease {
namespace {

TimePoint at_s(std::int64_t seconds) { return time_from_unix_ms(seconds * 1000); }

ClientKey client(std::uint8_t n) {
  const std::uint8_t mac[6] = {2, 0, 0, 0, 0, n};
  return ClientKey::from(ClientId{}, HardwareAddress(1, mac));
}

Lease bound(std::uint8_t last, std::uint8_t who, std::int64_t granted_s, std::int64_t time_s) {
  Lease lease;
  lease.address = Ipv4{198, 18, 0, last};
  lease.client = client(who);
  lease.state = LeaseState::Bound;
  lease.granted_at = at_s(granted_s);
  lease.lease_time = std::chrono::seconds{time_s};
  return lease;
}

TEST(LeaseTable, FindsByAddressAndByClient) {
  LeaseTable table;
  table.put(bound(10, 1, 0, 60));
  table.put(bound(11, 2, 0, 60));
  ASSERT_NE(table.find(Ipv4{198, 18, 0, 10}), nullptr);
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 10})->client, client(1));
  ASSERT_NE(table.find(client(2)), nullptr);
  EXPECT_EQ(table.find(client(2))->address, (Ipv4{198, 18, 0, 11}));
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 12}), nullptr);
  EXPECT_EQ(table.find(client(3)), nullptr);
  EXPECT_EQ(table.size(), 2u);
}

TEST(LeaseTable, ReplacingARecordReindexesTheClientAndTheDeadline) {
  LeaseTable table;
  table.put(bound(10, 1, 0, 60));
  Lease other = bound(10, 2, 100, 60);  // the address went to another client
  table.put(other);
  EXPECT_EQ(table.find(client(1)), nullptr);
  EXPECT_EQ(table.find(client(2))->address, (Ipv4{198, 18, 0, 10}));
  EXPECT_EQ(table.next_deadline(), at_s(160));
  other.state = LeaseState::Expired;  // no deadline any more
  table.put(other);
  EXPECT_EQ(table.next_deadline(), std::nullopt);
  EXPECT_EQ(table.size(), 1u);
}

TEST(LeaseTable, ClientIndexKeepsTheMostRecentRecordWhateverTheInsertOrder) {
  LeaseTable table;
  table.put(bound(11, 1, 500, 60));
  table.put(bound(10, 1, 100, 60));  // an older record restored later
  EXPECT_EQ(table.find(client(1))->address, (Ipv4{198, 18, 0, 11}));
}

TEST(LeaseTable, DeadlinesComeOutInOrderAndFollowChanges) {
  LeaseTable table;
  std::mt19937 random(3);
  std::vector<std::int64_t> expiries;
  for (std::uint8_t last = 1; last < 200; ++last) {
    const std::int64_t time_s = 10 + static_cast<std::int64_t>(random() % 1000);
    table.put(bound(last, last, 0, time_s));
    expiries.push_back(time_s);
  }
  // Extend one lease past everyone else: it must move to the back.
  table.put(bound(1, 1, 5000, 60));
  expiries[0] = 5060;
  std::sort(expiries.begin(), expiries.end());
  for (const std::int64_t expected : expiries) {
    ASSERT_EQ(table.next_deadline(), at_s(expected));
    const Lease* due = table.next_due(at_s(expected));
    ASSERT_NE(due, nullptr);
    EXPECT_EQ(table.next_due(at_s(expected) - Duration{1}), nullptr);
    Lease expired = *due;
    expired.state = LeaseState::Expired;
    table.put(expired);
  }
  EXPECT_EQ(table.next_deadline(), std::nullopt);
}

TEST(LeaseTable, HoldCoversTheOldRecordAndEndingItBringsItBack) {
  LeaseTable table;
  Lease old = bound(10, 1, 0, 60);
  old.state = LeaseState::Expired;
  old.fencing_token = 7;
  table.put(old);

  Lease offer = bound(10, 2, 100, 3600);
  offer.state = LeaseState::Offered;
  table.hold(offer, at_s(130));
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 10})->client, client(2));
  ASSERT_NE(table.covered(Ipv4{198, 18, 0, 10}), nullptr);
  EXPECT_EQ(table.covered(Ipv4{198, 18, 0, 10})->fencing_token, 7u);
  EXPECT_EQ(table.next_deadline(), at_s(130));
  EXPECT_EQ(table.find(client(1)), nullptr);

  table.end_hold(Ipv4{198, 18, 0, 10});
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 10})->client, client(1));
  EXPECT_EQ(table.find(client(1))->fencing_token, 7u);
  EXPECT_EQ(table.find(client(2)), nullptr);
  EXPECT_EQ(table.covered(Ipv4{198, 18, 0, 10}), nullptr);
  EXPECT_EQ(table.next_deadline(), std::nullopt);
}

TEST(LeaseTable, HoldOnAFreshAddressLeavesNothingWhenItEnds) {
  LeaseTable table;
  Lease offer = bound(10, 2, 100, 3600);
  offer.state = LeaseState::Offered;
  table.hold(offer, at_s(130));
  EXPECT_EQ(table.size(), 1u);
  table.end_hold(offer.address);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(offer.address), nullptr);
  EXPECT_EQ(table.find(client(2)), nullptr);
  EXPECT_EQ(table.next_deadline(), std::nullopt);
}

TEST(LeaseTable, GrantOverAHoldDropsTheCoveredRecord) {
  LeaseTable table;
  Lease old = bound(10, 1, 0, 60);
  old.state = LeaseState::Released;
  table.put(old);
  Lease offer = bound(10, 2, 100, 3600);
  offer.state = LeaseState::Offered;
  table.hold(offer, at_s(130));
  table.put(bound(10, 2, 110, 3600));
  EXPECT_EQ(table.covered(offer.address), nullptr);
  EXPECT_EQ(table.holds(), 0u);
  EXPECT_EQ(table.next_deadline(), at_s(3710));
}

TEST(LeaseTable, ManyRecordsStayFindableThroughGrowthAndSlotReuse) {
  LeaseTable table;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    Lease lease = bound(0, 0, 0, 60 + i);
    lease.address = Ipv4{0xC6120000u + i};
    const std::uint8_t mac[6] = {
        2, 0, 0, 0, static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i)};
    lease.client = ClientKey::from(ClientId{}, HardwareAddress(1, mac));
    lease.state = i % 2 ? LeaseState::Offered : LeaseState::Bound;
    if (i % 2) {
      table.hold(lease, at_s(30));
    } else {
      table.put(lease);
    }
  }
  for (std::uint32_t i = 1; i < 5000; i += 2) table.end_hold(Ipv4{0xC6120000u + i});
  EXPECT_EQ(table.size(), 2500u);
  for (std::uint32_t i = 0; i < 5000; ++i) {
    EXPECT_EQ(table.find(Ipv4{0xC6120000u + i}) != nullptr, i % 2 == 0) << i;
  }
  EXPECT_EQ(table.next_deadline(), at_s(60));
}

TEST(LeaseTable, RecordSizeIsMeasured) {
  // Issue #6 budget: ≤ 150 bytes of RSS per lease. This records where the table stands.
  RecordProperty("record_bytes", static_cast<int>(LeaseTable::record_bytes()));
  RecordProperty("lease_bytes", static_cast<int>(sizeof(Lease)));
  EXPECT_EQ(LeaseTable::record_bytes(), sizeof(Lease));
}

}  // namespace
}  // namespace landlord::lease

namespace landlord::lease {
namespace {

// Random puts, holds and hold ends against a plain model: every index must agree with it.
TEST(LeaseTable, AgreesWithAModelUnderRandomChanges) {
  std::mt19937 random(11);
  LeaseTable table;
  struct Model {
    Lease lease;
    std::optional<TimePoint> deadline;
    std::optional<Lease> covered;
  };
  std::map<std::uint32_t, Model> model;
  for (int step = 0; step < 20'000; ++step) {
    const auto last = static_cast<std::uint8_t>(random() % 64);
    const Ipv4 address{198, 18, 0, last};
    Lease lease = bound(last, static_cast<std::uint8_t>(random() % 16), step,
                        1 + static_cast<std::int64_t>(random() % 5000));
    auto existing = model.find(address.to_uint());
    switch (random() % 4) {
      case 0:
      case 1: {  // put, in one of the persisted states
        static constexpr LeaseState kStates[] = {LeaseState::Bound, LeaseState::Expired,
                                                 LeaseState::Released, LeaseState::Declined};
        lease.state = kStates[random() % 4];
        const bool has_deadline =
            lease.state == LeaseState::Bound || lease.state == LeaseState::Declined;
        table.put(lease);
        model[address.to_uint()] = {
            lease, has_deadline ? std::optional(lease.expires_at()) : std::nullopt, std::nullopt};
        break;
      }
      case 2: {  // hold
        lease.state = LeaseState::Offered;
        const TimePoint until = at_s(step + 30);
        std::optional<Lease> covered;
        if (existing != model.end()) {
          covered = existing->second.lease.state == LeaseState::Offered ? existing->second.covered
                                                                        : existing->second.lease;
        }
        table.hold(lease, until);
        model[address.to_uint()] = {lease, until, covered};
        break;
      }
      default:  // end a hold, if there is one
        if (existing == model.end() || existing->second.lease.state != LeaseState::Offered) break;
        table.end_hold(address);
        if (existing->second.covered) {
          const Lease back = *existing->second.covered;
          const bool has_deadline =
              back.state == LeaseState::Bound || back.state == LeaseState::Declined;
          existing->second = {back, has_deadline ? std::optional(back.expires_at()) : std::nullopt,
                              std::nullopt};
        } else {
          model.erase(existing);
        }
        break;
    }
    ASSERT_EQ(table.size(), model.size());
    std::optional<TimePoint> earliest;
    for (const auto& [value, entry] : model) {
      const Lease* found = table.find(Ipv4{value});
      ASSERT_NE(found, nullptr);
      ASSERT_EQ(found->client, entry.lease.client);
      ASSERT_EQ(found->state, entry.lease.state);
      ASSERT_EQ(found->granted_at, entry.lease.granted_at);
      if (entry.deadline && (!earliest || *entry.deadline < *earliest)) earliest = entry.deadline;
      // The client index answers with one of the client's records, or none (a record whose
      // newer sibling was replaced by another client's loses its entry: affinity is best-effort).
      if (const Lease* by_client = table.find(entry.lease.client)) {
        ASSERT_EQ(by_client->client, entry.lease.client);
        ASSERT_EQ(table.find(by_client->address), by_client);
      }
    }
    // The record written in this step is the newest of its client: the index points at it.
    if (const Lease* written = table.find(address);
        written != nullptr && written->granted_at == at_s(step)) {
      ASSERT_EQ(table.find(written->client), written) << "step " << step;
    }
    ASSERT_EQ(table.next_deadline(), earliest) << "step " << step;
  }
}

}  // namespace
}  // namespace landlord::lease
