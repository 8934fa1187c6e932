#include "landlord/lease/lease_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace landlord::lease {
namespace {

TimePoint at_s(std::int64_t seconds) { return time_from_unix_ms(seconds * 1000); }

HardwareAddress mac(std::uint8_t n) {
  const std::uint8_t bytes[6] = {2, 0, 0, 0, 0, n};
  return HardwareAddress(1, bytes);
}

ClientKey client(std::uint8_t n) { return ClientKey::from(ClientId{}, mac(n)); }

Lease bound(std::uint8_t last, std::uint8_t who, std::int64_t granted_s, std::int64_t time_s) {
  Lease lease;
  lease.address = Ipv4{198, 18, 0, last};
  lease.hardware = mac(who);
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
  ASSERT_NE(table.find(Ipv4{198, 18, 0, 10}), std::nullopt);
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 10})->client, client(1));
  ASSERT_NE(table.find(client(2)), std::nullopt);
  EXPECT_EQ(table.find(client(2))->address, (Ipv4{198, 18, 0, 11}));
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 12}), std::nullopt);
  EXPECT_EQ(table.find(client(3)), std::nullopt);
  EXPECT_EQ(table.size(), 2u);
}

TEST(LeaseTable, ReplacingARecordReindexesTheClientAndTheDeadline) {
  LeaseTable table;
  table.put(bound(10, 1, 0, 60));
  Lease other = bound(10, 2, 100, 60);  // the address went to another client
  table.put(other);
  EXPECT_EQ(table.find(client(1)), std::nullopt);
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
    const auto due = table.next_due(at_s(expected));
    ASSERT_NE(due, std::nullopt);
    EXPECT_EQ(table.next_due(at_s(expected) - Duration{1}), std::nullopt);
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
  ASSERT_NE(table.covered(Ipv4{198, 18, 0, 10}), std::nullopt);
  EXPECT_EQ(table.covered(Ipv4{198, 18, 0, 10})->fencing_token, 7u);
  EXPECT_EQ(table.next_deadline(), at_s(130));
  EXPECT_EQ(table.find(client(1)), std::nullopt);

  table.end_hold(Ipv4{198, 18, 0, 10});
  EXPECT_EQ(table.find(Ipv4{198, 18, 0, 10})->client, client(1));
  EXPECT_EQ(table.find(client(1))->fencing_token, 7u);
  EXPECT_EQ(table.find(client(2)), std::nullopt);
  EXPECT_EQ(table.covered(Ipv4{198, 18, 0, 10}), std::nullopt);
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
  EXPECT_EQ(table.find(offer.address), std::nullopt);
  EXPECT_EQ(table.find(client(2)), std::nullopt);
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
  EXPECT_EQ(table.covered(offer.address), std::nullopt);
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
    EXPECT_EQ(table.find(Ipv4{0xC6120000u + i}).has_value(), i % 2 == 0) << i;
  }
  EXPECT_EQ(table.next_deadline(), at_s(60));
}

TEST(LeaseTable, RecordSizeIsMeasured) {
  // Issue #6 budget: ≤ 150 bytes of RSS per lease (bench/lease_memory_bench.cpp measures it);
  // the record is the largest part of it.
  RecordProperty("record_bytes", static_cast<int>(LeaseTable::record_bytes()));
  RecordProperty("lease_bytes", static_cast<int>(sizeof(Lease)));
  EXPECT_LE(LeaseTable::record_bytes(), 56u);
}

// Every field of a Lease, compared: the table must hand back exactly what it was given.
void expect_same(const Lease& got, const Lease& want) {
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
  EXPECT_EQ(got.last_extension, want.last_extension);
  EXPECT_EQ(got.subnet_id, want.subnet_id);
  EXPECT_EQ(got.granted_at, want.granted_at);
  EXPECT_EQ(got.lease_time, want.lease_time);
  EXPECT_EQ(got.renew_time, want.renew_time);
  EXPECT_EQ(got.rebind_time, want.rebind_time);
  EXPECT_EQ(got.fencing_token, want.fencing_token);
}

Lease typical_lease(std::uint8_t last) {
  const std::uint8_t mac[6] = {2, 0, 0, 0, 7, last};
  const std::uint8_t id[7] = {1, 2, 0, 0, 0, 7, last};
  Lease lease;
  lease.address = Ipv4{198, 18, 0, last};
  lease.hardware = HardwareAddress(1, mac);
  lease.client_id = ClientId(id);
  lease.client = ClientKey::from(lease.client_id, lease.hardware);
  lease.state = LeaseState::Bound;
  lease.last_extension = Extension::Rebinding;
  lease.subnet_id = 0xfffffff7u;
  lease.granted_at = time_from_unix_ms(1'800'000'000'123);
  lease.lease_time = Duration{3'600'000};
  lease.renew_time = std::chrono::seconds{1800};
  lease.rebind_time = std::chrono::seconds{3150};
  lease.fencing_token = 0x1'0000'0002ull;
  return lease;
}

// Each kind of lease the compact form stores differently: inline, with an extra, or whole.
TEST(LeaseTable, HandsBackEveryFieldOfEveryKindOfLease) {
  std::vector<Lease> leases;
  leases.push_back(typical_lease(1));  // option 61 = htype + chaddr
  leases.push_back(typical_lease(2));
  leases.back().hostname = "a-hostname-longer-than-the-small-string-buffer";
  leases.push_back(typical_lease(3));  // no option 61: keyed by chaddr
  leases.back().client_id = ClientId{};
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.push_back(typical_lease(4));  // RFC 4361 id: type 255, IAID, DUID
  const std::uint8_t duid[13] = {255, 0, 0, 0, 1, 0, 4, 1, 2, 3, 4, 5, 6};
  leases.back().client_id = ClientId(duid);
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.back().hostname = "h";
  leases.push_back(typical_lease(5));  // option 61 of another htype
  const std::uint8_t other_type[7] = {6, 2, 0, 0, 0, 7, 5};
  leases.back().client_id = ClientId(other_type);
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.push_back(typical_lease(6));  // a decline hold that ended: nobody's
  leases.back().client = ClientKey{};
  leases.back().client_id = ClientId{};
  leases.back().hardware = HardwareAddress{};
  leases.back().state = LeaseState::Expired;
  leases.push_back(typical_lease(7));  // released: lease time to the ms
  leases.back().state = LeaseState::Released;
  leases.back().lease_time = Duration{1'234'567};
  leases.push_back(typical_lease(8));  // the longest configurable lease
  leases.back().lease_time = std::chrono::seconds{0xfffffffe};
  leases.back().renew_time = std::chrono::seconds{0x7fffffff};
  leases.back().rebind_time = std::chrono::seconds{0xe0000000};
  // No compact form: kept whole.
  leases.push_back(typical_lease(9));  // 16-byte chaddr (htype 32, InfiniBand-like)
  std::vector<std::uint8_t> long_chaddr(16, 0xab);
  leases.back().hardware = HardwareAddress(32, long_chaddr);
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.push_back(typical_lease(10));  // a key not made from id and chaddr
  leases.back().client = client(99);
  leases.push_back(typical_lease(11));  // T1/T2 with milliseconds (restored)
  leases.back().renew_time = Duration{1'800'500};
  leases.back().rebind_time = Duration{-1};
  leases.push_back(typical_lease(12));  // a T2 past 2^32 s
  leases.back().rebind_time = std::chrono::seconds{0x100000000};
  leases.push_back(typical_lease(14));  // an option 61 longer than the wire allows
  leases.back().client_id = ClientId(std::vector<std::uint8_t>(300, 0x5a));
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.back().hostname = "with-a-hostname";
  leases.push_back(typical_lease(15));  // RFC 4361 id and a long hostname: one string for both
  const std::uint8_t other_duid[13] = {255, 0, 0, 0, 2, 0, 4, 1, 2, 3, 4, 5, 7};
  leases.back().client_id = ClientId(other_duid);
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.back().hostname = "a-long-hostname.example.internal";
  leases.push_back(typical_lease(16));  // client classes alone
  leases.back().classes = "uefi,floor-2-phones";
  leases.push_back(typical_lease(17));  // option 61 in the extra, a hostname and classes
  const std::uint8_t third_duid[13] = {255, 0, 0, 0, 3, 0, 4, 1, 2, 3, 4, 5, 8};
  leases.back().client_id = ClientId(third_duid);
  leases.back().client = ClientKey::from(leases.back().client_id, leases.back().hardware);
  leases.back().hostname = "host";
  leases.back().classes = "ipxe";
  leases.push_back(typical_lease(18));  // classes of a lease kept whole
  leases.back().client = client(98);
  leases.back().hostname = "whole";
  leases.back().classes = "a,b";
  leases.push_back(typical_lease(19));  // a name in DNS, option 82, hostname and classes
  leases.back().hostname = "laptop";
  leases.back().fqdn = "laptop.lab.example";
  leases.back().dns_sides = {true, true};
  leases.back().dns_state = DnsState::Done;
  leases.back().relay_agent_info = std::string("\x01\x04port\x02\x03sw1", 11);
  leases.back().classes = "phones";
  leases.push_back(typical_lease(20));  // DNS work pending for a name, nothing else
  leases.back().fqdn = "x.example";
  leases.back().dns_sides = {true, false};
  leases.back().dns_state = DnsState::Pending;
  leases.push_back(typical_lease(21));  // a name longer than DNS allows: kept whole
  leases.back().fqdn = std::string(256, 'n');
  leases.back().dns_state = DnsState::Failed;
  leases.push_back(typical_lease(22));  // option 82 longer than one option: kept whole
  leases.back().relay_agent_info = std::string(256, '\x01');
  leases.push_back(typical_lease(13));  // negative times
  leases.back().granted_at = time_from_unix_ms(-5);
  leases.back().lease_time = Duration{-7};

  LeaseTable table;
  for (const Lease& lease : leases) table.put(lease);
  for (const Lease& lease : leases) {
    SCOPED_TRACE(lease.address.to_string());
    const auto by_address = table.find(lease.address);
    ASSERT_TRUE(by_address.has_value());
    expect_same(*by_address, lease);
    // What the engine reads in place agrees with the whole record.
    const auto facts = table.facts(lease.address, lease.client);
    ASSERT_TRUE(facts.has_value());
    EXPECT_EQ(facts->state, lease.state);
    EXPECT_EQ(facts->subnet_id, lease.subnet_id);
    EXPECT_EQ(facts->fencing_token, lease.fencing_token);
    EXPECT_EQ(facts->has_client, !lease.client.empty());
    EXPECT_TRUE(facts->of_client);
    EXPECT_FALSE(table.facts(lease.address, client(200))->of_client);
    EXPECT_EQ(table.availability(lease.address), Availability::of(&lease));
    if (!lease.client.empty()) {
      const auto by_client = table.find(lease.client);
      ASSERT_TRUE(by_client.has_value());
      expect_same(*by_client, lease);
    }
  }
  // Each kind replaced by each other kind, in place, and as a hold that ends.
  for (std::size_t i = 0; i < leases.size(); ++i) {
    Lease next = leases[(i + 5) % leases.size()];
    next.address = leases[i].address;
    table.put(next);
    expect_same(*table.find(next.address), next);
    Lease offer = leases[(i + 3) % leases.size()];
    offer.address = leases[i].address;
    offer.state = LeaseState::Offered;
    table.hold(offer, at_s(10));
    expect_same(*table.find(offer.address), offer);
    expect_same(*table.covered(offer.address), next);
    table.end_hold(offer.address);
    expect_same(*table.find(next.address), next);
  }
  std::size_t visited = 0;
  table.for_each([&](const Lease&) { ++visited; });
  EXPECT_EQ(visited, leases.size());
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
      const auto found = table.find(Ipv4{value});
      ASSERT_NE(found, std::nullopt);
      ASSERT_EQ(found->client, entry.lease.client);
      ASSERT_EQ(found->state, entry.lease.state);
      ASSERT_EQ(found->granted_at, entry.lease.granted_at);
      ASSERT_EQ(found->lease_time, entry.lease.lease_time);
      if (entry.deadline && (!earliest || *entry.deadline < *earliest)) earliest = entry.deadline;
      // The client index answers with one of the client's records, or none (a record whose
      // newer sibling was replaced by another client's loses its entry: affinity is best-effort).
      if (const auto by_client = table.find(entry.lease.client)) {
        ASSERT_EQ(by_client->client, entry.lease.client);
        const auto same_address = table.find(by_client->address);
        ASSERT_NE(same_address, std::nullopt);
        ASSERT_EQ(same_address->client, by_client->client);
        ASSERT_EQ(same_address->granted_at, by_client->granted_at);
      }
    }
    // The record written in this step is the newest of its client: the index points at it.
    if (const auto written = table.find(address); written && written->granted_at == at_s(step)) {
      const auto newest = table.find(written->client);
      ASSERT_NE(newest, std::nullopt) << "step " << step;
      ASSERT_EQ(newest->address, written->address) << "step " << step;
    }
    ASSERT_EQ(table.next_deadline(), earliest) << "step " << step;
  }
}

}  // namespace
}  // namespace landlord::lease
