// `pools:` items written as maps: the adaptive lease time (`lease: {shrink-above, to}`), loaded
// and refused with FILE:LINE:COL.
#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

using namespace std::chrono_literals;

std::string errors_of(std::string_view yaml) {
  const auto loaded = load_string(yaml, "t.yaml");
  if (loaded) return "loaded";
  return format_errors(loaded.error());
}

TEST(Pools, AMapPoolCarriesItsAdaptiveLeaseTime) {
  const auto loaded = load_string(R"(lease: {time: 1h}
subnets:
  - subnet: 198.18.0.0/24
    pools:
      - 198.18.0.10-198.18.0.19
      - {range: 198.18.0.100-198.18.0.199, lease: {shrink-above: 90%, to: 5m}}
      - range: 198.18.0.200/29
)", "t.yaml");
  ASSERT_TRUE(loaded) << (loaded ? "" : format_errors(loaded.error()));
  const Subnet& subnet = loaded->subnets.at(0);
  ASSERT_EQ(subnet.pools.size(), 3u);
  EXPECT_EQ(subnet.pools[1].first, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(subnet.pools[2].last, (Ipv4{198, 18, 0, 207}));
  ASSERT_EQ(subnet.adaptive_pools.size(), 1u);
  EXPECT_EQ(subnet.adaptive_pools[0].range.first, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(subnet.adaptive_pools[0].range.last, (Ipv4{198, 18, 0, 199}));
  EXPECT_DOUBLE_EQ(subnet.adaptive_pools[0].shrink_above, 0.9);
  EXPECT_EQ(subnet.adaptive_pools[0].shortened_to, 5min);
}

TEST(Pools, AdaptiveLeaseMistakesAreReportedAtTheirPlace) {
  EXPECT_EQ(errors_of(R"(subnets:
  - subnet: 198.18.0.0/24
    pools:
      - {range: 198.18.0.100-198.18.0.199, lease: {shrink-above: 90, to: 5m}}
      - {range: 198.18.0.200-198.18.0.209, lease: {shrink-above: 5m, to: 5m}}
      - {range: 198.18.0.210-198.18.0.219, lease: {shrink-above: 90%}}
      - {lease: {shrink-above: 90%, to: 5m}}
      - {range: 198.18.0.220-198.18.0.229, leese: {}}
)"),
            "t.yaml:4:66: 'shrink-above': '90' needs a '%' (90%) or a duration unit (90s)\n"
            "t.yaml:5:66: 'shrink-above' is a share of the pool's addresses in use, like 90%\n"
            "t.yaml:6:51: a pool's lease needs both 'shrink-above' (e.g. 90%) and 'to' (e.g. 5m)\n"
            "t.yaml:7:9: a pool written as a map needs 'range' (e.g. range: 198.18.0.100-198.18.0.199)\n"
            "t.yaml:8:44: unknown key 'leese'; did you mean 'lease'?\n");
}

TEST(Pools, ToMustBeShorterThanTheLeaseTimeWithRoomForT1AndT2) {
  EXPECT_EQ(errors_of(R"(lease: {time: 1h, renew: 10m, rebind: 20m}
subnets:
  - subnet: 198.18.0.0/24
    pools:
      - {range: 198.18.0.100-198.18.0.109, lease: {shrink-above: 90%, to: 1h}}
      - {range: 198.18.0.110-198.18.0.119, lease: {shrink-above: 90%, to: 15m}}
      - {range: 198.18.0.120-198.18.0.129, lease: {shrink-above: 90%, to: 30m}}
  - subnet: 198.18.1.0/24
    lease: {min: 10m, renew: 50%, rebind: 87.5%}
    pools: [{range: 198.18.1.100-198.18.1.109, lease: {shrink-above: 50%, to: 5m}}]
)"),
            "t.yaml:5:75: 'to' 1h must be shorter than the subnet's lease time 1h (pool 198.18.0.100-198.18.0.109)\n"
            "t.yaml:6:75: 'to' 15m leaves no room for the subnet's T1 (10m) and T2 (20m): 1s <= T1 < T2 < lease time "
            "(pool 198.18.0.110-198.18.0.119)\n"
            "t.yaml:10:79: 'to' 5m is below the subnet's lease 'min' 10m (pool 198.18.1.100-198.18.1.109)\n");
}

}  // namespace
}  // namespace landlord::config

namespace landlord::config {
namespace {

TEST(OfferPing, ASubnetsOfferPingIsAShortWait) {
  const auto loaded = load_string(R"(subnets:
  - subnet: 198.18.0.0/24
    offer-ping: 300ms
  - subnet: 198.18.1.0/24
)", "t.yaml");
  ASSERT_TRUE(loaded) << (loaded ? "" : format_errors(loaded.error()));
  EXPECT_EQ(loaded->subnets[0].offer_ping, std::chrono::milliseconds{300});
  EXPECT_FALSE(loaded->subnets[1].offer_ping);
  EXPECT_EQ(errors_of(R"(subnets:
  - subnet: 198.18.0.0/24
    offer-ping: 5s
  - subnet: 198.18.1.0/24
    offer-ping: 300
)"),
            "t.yaml:3:17: 'offer-ping' must be longer than 0s and at most 2s: the client waits for its OFFER meanwhile\n"
            "t.yaml:5:17: 'offer-ping': '300' has no unit (is it seconds or milliseconds?); use an integer and a "
            "unit: 90s, 10m, 12h, 7d\n");
}

}  // namespace
}  // namespace landlord::config
