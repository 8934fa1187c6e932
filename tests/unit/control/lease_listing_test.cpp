// The flat copies and the JSON writer of the lease lists (src/control/lease_listing.hpp): every
// lease is written exactly as lease_to_json(lease, now).dump() writes it, and a listing is
// ordered by address with the copy read last kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lease_json.hpp"
#include "lease_listing.hpp"

namespace landlord::control {
namespace {

const TimePoint kNow = time_from_unix_ms(1'700'000'100'000);

lease::Lease make(Ipv4 address, std::uint8_t last_mac_byte) {
  lease::Lease lease;
  lease.address = address;
  lease.hardware = HardwareAddress{1, std::array<std::uint8_t, 6>{0x02, 0, 0, 0xab, 0xcd, last_mac_byte}};
  lease.client_id = *ClientId::parse("01:02:00:00:ab:cd:10");
  lease.client = ClientKey::from(lease.client_id, lease.hardware);
  lease.state = lease::LeaseState::Bound;
  lease.subnet_id = 7;
  lease.granted_at = kNow - std::chrono::minutes{40};
  lease.lease_time = std::chrono::hours{1};
  lease.renew_time = std::chrono::minutes{30};
  lease.rebind_time = std::chrono::minutes{52};
  lease.fencing_token = 0xfffffffffffffff0u;
  return lease;
}

std::string written(const lease::Lease& lease, TimePoint now) {
  Listing listing;
  listing.add(lease);
  std::string out;
  append_lease_json(out, listing, listing.leases.front(), now);
  return out;
}

std::string dumped(const lease::Lease& lease, TimePoint now) {
  return lease_to_json(lease, now).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(LeaseListing, WritesEveryLeaseAsLeaseToJsonDoes) {
  std::vector<lease::Lease> leases;
  leases.push_back(make(Ipv4(198, 18, 0, 10), 1));  // bound, past T1
  auto fresh = make(Ipv4(198, 18, 0, 11), 2);
  fresh.granted_at = kNow;                           // bound, before T1
  fresh.hostname = "printer-3";
  fresh.classes = "voip,lab_b";
  fresh.fqdn = "printer-3.lab.example";
  fresh.dns_sides = {true, true};
  fresh.dns_state = lease::DnsState::Done;
  leases.push_back(fresh);
  auto late = make(Ipv4(198, 18, 0, 12), 3);
  late.granted_at = kNow - std::chrono::minutes{55};  // past T2
  late.hostname = "quote\"back\\slash\ttab\x01 caf\xc3\xa9";
  late.fqdn = "late.example";
  late.dns_sides = {true, false};
  late.dns_state = lease::DnsState::Pending;
  late.relay_agent_info = std::string("\x01\x01\x07", 3);
  leases.push_back(late);
  auto gone = make(Ipv4(198, 18, 0, 13), 4);
  gone.granted_at = kNow - std::chrono::hours{2};     // bound but past its end
  gone.hostname = "bad\xff\xfe utf8";
  gone.fqdn = "gone.example";
  gone.dns_sides = {false, true};
  gone.dns_state = lease::DnsState::Conflict;
  leases.push_back(gone);
  for (const auto state : {lease::LeaseState::Released, lease::LeaseState::Expired, lease::LeaseState::Declined,
                           lease::LeaseState::Offered}) {
    auto other = make(Ipv4(198, 18, 1, static_cast<std::uint8_t>(leases.size())), 5);
    other.state = state;
    leases.push_back(other);
  }
  auto nobody = make(Ipv4(198, 18, 2, 1), 6);
  nobody.state = lease::LeaseState::Expired;
  nobody.hardware = {};
  nobody.client_id = {};
  nobody.client = {};
  leases.push_back(nobody);
  auto long_ids = make(Ipv4(255, 255, 255, 254), 7);
  std::array<std::uint8_t, 16> infiniband{};
  for (std::size_t i = 0; i < infiniband.size(); ++i) infiniband[i] = static_cast<std::uint8_t>(0xf0 + i);
  long_ids.hardware = HardwareAddress{32, infiniband};
  long_ids.client_id = ClientId{std::span<const std::uint8_t>(infiniband)};
  long_ids.subnet_id = 0xffffffffu;
  long_ids.lease_time = std::chrono::seconds{0xfffffffeu};
  leases.push_back(long_ids);

  for (const auto& lease : leases) {
    const std::string text = written(lease, kNow);
    EXPECT_EQ(text, dumped(lease, kNow)) << lease.address.to_string();
    EXPECT_TRUE(nlohmann::json::accept(text));
  }
  EXPECT_NE(written(leases[0], kNow).find(R"("phase":"past-t1")"), std::string::npos);
  EXPECT_NE(written(leases[2], kNow).find(R"("phase":"past-t2")"), std::string::npos);
  EXPECT_NE(written(leases[3], kNow).find("bad\xef\xbf\xbd"), std::string::npos);  // U+FFFD
  // A client without option 61 has no "client-id" key at all, as in Kea's answers (not "").
  EXPECT_NE(written(leases[0], kNow).find(R"("client-id":"01:02:00:00:ab:cd:10")"), std::string::npos);
  EXPECT_EQ(written(nobody, kNow).find("client-id"), std::string::npos);
  EXPECT_FALSE(lease_to_json(nobody, kNow).contains("client-id"));
  // The name in DNS and its sides as Kea's booleans; the option 12 as sent stays "hostname".
  const auto named = lease_to_json(fresh, kNow);
  EXPECT_EQ(named["hostname"], "printer-3");
  EXPECT_EQ(named["fqdn"], "printer-3.lab.example");
  EXPECT_EQ(named["fqdn-fwd"], true);
  EXPECT_EQ(named["fqdn-rev"], true);
  EXPECT_EQ(named["dns-state"], "done");
  EXPECT_EQ(lease_to_json(gone, kNow)["fqdn-fwd"], false);
  EXPECT_EQ(lease_to_json(gone, kNow)["dns-state"], "conflict");
  EXPECT_EQ(lease_to_json(leases[0], kNow)["fqdn"], "");
  EXPECT_EQ(lease_to_json(leases[0], kNow)["dns-state"], "none");
}

TEST(LeaseListing, OrdersByAddressKeepingTheCopyReadLast) {
  Listing listing;
  for (const std::uint8_t last : {30, 10, 20}) listing.add(make(Ipv4(198, 18, 0, last), last));
  Listing later;
  auto again = make(Ipv4(198, 18, 0, 10), 99);
  again.hostname = "read-later";
  later.add(again);
  later.add(make(Ipv4(198, 18, 0, 5), 5));
  listing.append(std::move(later));
  ASSERT_EQ(listing.size(), 5u);

  listing.order(10);
  ASSERT_EQ(listing.sequence.size(), 4u);
  std::vector<std::uint32_t> addresses;
  for (const auto position : listing.sequence) addresses.push_back(listing.leases[position].address);
  EXPECT_EQ(addresses, (std::vector<std::uint32_t>{Ipv4(198, 18, 0, 5).to_uint(), Ipv4(198, 18, 0, 10).to_uint(),
                                                   Ipv4(198, 18, 0, 20).to_uint(), Ipv4(198, 18, 0, 30).to_uint()}));
  std::string out;
  append_lease_json(out, listing, listing.leases[listing.sequence[1]], kNow);
  EXPECT_EQ(out, dumped(again, kNow));  // the later copy, its strings moved along with it

  listing.order(2);
  listing.keep_ordered();
  ASSERT_EQ(listing.size(), 2u);
  EXPECT_EQ(listing.sequence, (std::vector<std::uint32_t>{0, 1}));
  out.clear();
  append_lease_json(out, listing, listing.leases[1], kNow);
  EXPECT_EQ(out, dumped(again, kNow));
}

}  // namespace
}  // namespace landlord::control
