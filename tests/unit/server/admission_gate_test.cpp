// The server's admission step without a socket: a DISCOVER that waited past discover-max-wait
// is shed before the engine sees it, the pool starvation limits refuse a client over its rate
// (engine/admission.hpp), verify-chaddr's comparison, and what each drop counts.
#include "admission_gate.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"
#include "landlord/wire/options.hpp"

namespace landlord::server {
namespace {

constexpr Ipv4 kRelay{198, 18, 0, 1};

config::Config load(std::string_view yaml) {
  auto loaded = config::load_string(yaml, "t.yaml");
  EXPECT_TRUE(loaded) << (loaded ? "" : config::format_errors(loaded.error()));
  return loaded ? std::move(*loaded) : config::Config{};
}

constexpr std::string_view kConfig = R"(
server:
  listen: 127.0.0.1:6767
  discover-max-wait: 200ms
lease:
  time: 1h
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.0-198.18.1.250]
    admission:
      relay-rate: 3/s
      relay-burst: 3
)";

wire::Message discover(std::uint8_t mac_last) {
  wire::Message message;
  message.op = wire::Op::BootRequest;
  message.xid = 0x1000u + mac_last;
  message.giaddr = kRelay;
  message.hops = 1;
  const std::uint8_t bytes[6] = {2, 0, 0, 0, 0, mac_last};
  std::copy(std::begin(bytes), std::end(bytes), message.chaddr.begin());
  message.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Discover));
  return message;
}

engine::Ingress relayed() {
  engine::Ingress ingress;
  ingress.interface_index = 1;
  ingress.source_address = kRelay;
  ingress.source_port = 67;
  return ingress;
}

class AdmissionGateTest : public ::testing::Test {
 protected:
  std::optional<engine::Outcome> admit(const wire::Message& request, Datagram datagram = {}) {
    return gate.admit(request, datagram, relayed(), nullptr, served, clock);
  }
  config::Config config = load(kConfig);
  engine::Engine engine{config};
  AdmissionGate gate{config, engine};
  std::unordered_set<std::uint32_t> served;
  Clock clock;
};

TEST_F(AdmissionGateTest, AnAdmittedDiscoverReachesTheEngine) {
  const auto outcome = admit(discover(1));
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->reply);
  EXPECT_EQ(outcome->reply->message.type(), wire::MessageType::Offer);
  EXPECT_EQ(gate.limit_counters().admitted, 1u);
}

TEST_F(AdmissionGateTest, ADiscoverThatWaitedPastDiscoverMaxWaitIsShedBeforeTheEngine) {
  Datagram datagram;
  datagram.queued_at_ns = clock.realtime_ns() - 5'000'000'000;  // queued 5 s ago
  EXPECT_FALSE(admit(discover(1), datagram));
  EXPECT_EQ(gate.counters().discover_shed, 1u);
  EXPECT_EQ(engine.counters().discovers, 0u) << "the engine never saw it";
  datagram.queued_at_ns = clock.realtime_ns();  // just queued
  EXPECT_TRUE(admit(discover(1), datagram));
  EXPECT_EQ(gate.counters().discover_shed, 1u);
}

TEST_F(AdmissionGateTest, ARelayOverItsRateIsRefusedAndCountedByReason) {
  // relay-rate 3/s with a burst of 3: new clients behind one relay.
  int offered = 0;
  for (std::uint8_t client = 10; client < 15; ++client) offered += admit(discover(client)) ? 1 : 0;
  EXPECT_EQ(offered, 3);
  EXPECT_EQ(gate.limit_counters().refused[static_cast<std::size_t>(engine::Refusal::RelayRate)], 2u);
  EXPECT_EQ(engine.counters().discovers, 3u) << "the refused never reached the engine";
  EXPECT_TRUE(admit(discover(10))) << "a client with its OFFER still held asks for no new address";
}

TEST_F(AdmissionGateTest, WithoutFramesNothingIsCheckedAgainstAFrame) {
  served.insert(1);
  EXPECT_TRUE(admit(discover(1)));
  EXPECT_EQ(gate.counters().frames_unseen, 0u) << "no frame socket: not counted as unseen";
  EXPECT_EQ(gate.counters().chaddr_mismatch, 0u);
}

TEST(ChaddrIsSender, ComparesChaddrWithTheFramesSourceAddress) {
  const std::uint8_t bytes[6] = {2, 0, 0, 0, 0, 9};
  const HardwareAddress chaddr(HardwareAddress::kEthernet, bytes);
  EXPECT_TRUE(chaddr_is_sender(chaddr, Mac{2, 0, 0, 0, 0, 9}));
  EXPECT_FALSE(chaddr_is_sender(chaddr, Mac{2, 0, 0, 0, 0, 8}));
}

}  // namespace
}  // namespace landlord::server
