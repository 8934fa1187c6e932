// Peers alone (src/engine/peers.hpp): who is down, who answers, shared stores.
#include "peers.hpp"

#include <gtest/gtest.h>

#include "../engine_harness.hpp"

namespace landlord::engine::testing {
namespace {

const Ipv4 kUs{198, 18, 0, 1};
const Ipv4 kPeer{198, 18, 0, 2};

config::Config with_peers() {
  config::Config config = make_config();
  config.server.server_id = kUs;
  config.peers.servers = {kUs, kPeer};
  config.subnets[0].primary = kPeer;  // the local subnet's clients are the peer's
  return config;
}

class PeersTest : public ::testing::Test {
 protected:
  config::Config config = with_peers();
  Topology topology{config};
  Ledger ledger{config.server.server_id};
  Peers peers{config, ledger};
};

TEST_F(PeersTest, ThePeersThatChangedAreReportedOnce) {
  EXPECT_EQ(peers.up(std::vector<Ipv4>{kUs}), std::vector<Ipv4>{kPeer});
  EXPECT_TRUE(peers.up(std::vector<Ipv4>{kUs}).empty());
  EXPECT_TRUE(peers.up(std::vector<Ipv4>{}).empty());  // our own entry does not count
  EXPECT_EQ(peers.up(std::vector<Ipv4>{kUs, kPeer}), std::vector<Ipv4>{kPeer});
}

TEST_F(PeersTest, ThePrimarysClientsAreAnsweredWhenItIsDown) {
  const SubnetView& local = topology.subnets()[0];
  const auto message = client_message(MessageType::Discover, 1);
  EXPECT_FALSE(peers.answers_here(local, message));
  EXPECT_EQ(peers.down_peer_of(local, message), std::nullopt);
  peers.up(std::vector<Ipv4>{kUs});
  EXPECT_TRUE(peers.answers_here(local, message));
  EXPECT_EQ(peers.down_peer_of(local, message), kPeer);
}

TEST_F(PeersTest, AClientTryingLongEnoughIsAnswered) {
  const SubnetView& local = topology.subnets()[0];
  const auto message = client_message(MessageType::Discover, 1);
  EXPECT_FALSE(peers.answers_discover_now(local, message, key(1), kStart));
  EXPECT_FALSE(peers.answers_discover_now(local, message, key(1), kStart + std::chrono::seconds{2}));
  EXPECT_TRUE(peers.answers_discover_now(local, message, key(1), kStart + std::chrono::seconds{3}));
  peers.stopped_waiting(key(1));
  EXPECT_FALSE(peers.answers_discover_now(local, message, key(1), kStart + std::chrono::seconds{4}));
}

TEST_F(PeersTest, ARebootLeftToThePeerIsCounted) {
  const SubnetView& local = topology.subnets()[0];
  auto message = client_message(MessageType::Request, 1);
  Counters counters;
  EXPECT_FALSE(peers.answers_reboot(local, message, key(1), Ipv4{198, 18, 0, 100}, kStart, counters));
  EXPECT_EQ(counters.reboots_left_to_owner, 1u);
  message.secs = 3;
  EXPECT_TRUE(peers.answers_reboot(local, message, key(1), Ipv4{198, 18, 0, 100}, kStart, counters));
}

TEST(PeersAlone, AStoreIsSharedWithPeersOrPostgresql) {
  config::Config config = make_config();
  Ledger ledger{std::nullopt};
  EXPECT_FALSE(Peers(config, ledger).shared_store());
  config.store.type = config::StoreSection::Type::Postgresql;
  EXPECT_TRUE(Peers(config, ledger).shared_store());
  const config::Config peered = with_peers();
  EXPECT_TRUE(Peers(peered, ledger).shared_store());
  EXPECT_FALSE(Peers(make_config(), ledger).share().has_value());
}

}  // namespace
}  // namespace landlord::engine::testing
