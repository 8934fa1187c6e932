#include "landlord/server/restore.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "landlord/store/memory_lease_store.hpp"

namespace landlord::server {
namespace {

using namespace std::chrono_literals;

config::Config config_for(const Cidr& subnet) {
  config::Config config;
  config.lease.time = 1h;
  config::Subnet served;
  served.id = 1;
  served.subnet = subnet;
  served.pools = {{Ipv4{subnet.network.to_uint() + 1}, subnet.broadcast()}};
  served.lease = config.lease;
  config.subnets = {served};
  return config;
}

lease::Lease bound(std::uint32_t host) {
  lease::Lease lease;
  lease.address = Ipv4{Ipv4{198, 18, 0, 0}.to_uint() + host};
  const std::uint8_t bytes[6] = {2, 0, 0, static_cast<std::uint8_t>(host >> 16),
                                 static_cast<std::uint8_t>(host >> 8),
                                 static_cast<std::uint8_t>(host)};
  lease.hardware = HardwareAddress(HardwareAddress::kEthernet, bytes);
  lease.client = ClientKey::from(ClientId{}, lease.hardware);
  lease.state = lease::LeaseState::Bound;
  lease.subnet_id = 1;
  lease.granted_at = time_from_unix_ms(1'800'000'000'000);
  lease.lease_time = 1h;
  lease.fencing_token = host;
  return lease;
}

TEST(RestoreLeases, EveryStoredRecordReachesTheEngineAcrossManyChunks) {
  constexpr std::uint32_t kLeases = 20'000;  // several of the reader's chunks, and a partial one
  store::MemoryLeaseStore store;
  std::vector<lease::Lease> records;
  for (std::uint32_t host = 1; host <= kLeases; ++host) records.push_back(bound(host));
  ASSERT_TRUE(store.commit(records));

  engine::Engine engine{config_for(*Cidr::parse("198.18.0.0/15"))};
  const auto restored = restore_leases(store, engine);
  ASSERT_TRUE(restored);
  EXPECT_EQ(*restored, kLeases);
  std::size_t held = 0;
  engine.for_each_lease([&](const lease::Lease&) { ++held; });
  EXPECT_EQ(held, kLeases);
  for (std::uint32_t host : {1u, 4096u, 4097u, 12'345u, kLeases}) {
    const auto found = engine.find(bound(host).address);
    ASSERT_TRUE(found) << host;
    EXPECT_EQ(found->client, bound(host).client);
    EXPECT_EQ(found->fencing_token, host);
  }
}

TEST(RestoreLeases, AnEmptyStoreRestoresNothing) {
  store::MemoryLeaseStore store;
  engine::Engine engine{config_for(*Cidr::parse("198.18.0.0/24"))};
  const auto restored = restore_leases(store, engine);
  ASSERT_TRUE(restored);
  EXPECT_EQ(*restored, 0u);
}

// Streams some records, then fails like a corrupt row would.
class FailingStore final : public store::LeaseStore {
 public:
  Expected<std::vector<store::WriteResult>, store::StoreError> commit(
      std::span<const lease::Lease>) override {
    return unexpected(store::StoreError{store::StoreError::Kind::Io, "not used"});
  }
  Expected<void, store::StoreError> load(
      const std::function<void(lease::Lease&&)>& visit) override {
    for (std::uint32_t host = 1; host <= 5000; ++host) visit(bound(host));
    return unexpected(store::StoreError{store::StoreError::Kind::Corrupt, "row 5001 is bad"});
  }
};

TEST(RestoreLeases, TheStoresErrorComesBackAfterTheRecordsBeforeIt) {
  FailingStore store;
  engine::Engine engine{config_for(*Cidr::parse("198.18.0.0/15"))};
  const auto restored = restore_leases(store, engine);
  ASSERT_FALSE(restored);
  EXPECT_EQ(restored.error().kind, store::StoreError::Kind::Corrupt);
  EXPECT_EQ(restored.error().message, "row 5001 is bad");
  // The 5000 records streamed before the error reached the engine, each as it was stored
  // (the caller decides what a partial restore means; nothing read may be dropped on the way).
  std::size_t held = 0;
  engine.for_each_lease([&](const lease::Lease&) { ++held; });
  EXPECT_EQ(held, 5000u);
  for (std::uint32_t host : {1u, 4096u, 4097u, 5000u}) {
    const auto found = engine.find(bound(host).address);
    ASSERT_TRUE(found) << host;
    EXPECT_EQ(found->client, bound(host).client);
    EXPECT_EQ(found->fencing_token, host);
  }
  EXPECT_FALSE(engine.find(bound(5001).address));
}

}  // namespace
}  // namespace landlord::server
