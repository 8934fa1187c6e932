// A subnet's `admission:` map and server.discover-max-wait: defaults, rates, caps and errors.
#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

std::string errors_of(std::string_view yaml) {
  const auto loaded = load_string(yaml, "t.yaml");
  return loaded ? std::string{} : format_errors(loaded.error());
}

TEST(AdmissionConfig, DefaultsCheckChaddrAndLimitOnlyPerClientAndPerSource) {
  const auto loaded = load_string("subnets:\n  - subnet: 198.18.0.0/24\n", "t.yaml");
  ASSERT_TRUE(loaded);
  const Admission& admission = loaded->subnets[0].admission;
  EXPECT_TRUE(admission.verify_chaddr);
  EXPECT_EQ(admission.client, (TokenRate{1.0, 5}));
  EXPECT_FALSE(admission.relay.limits());
  EXPECT_FALSE(admission.circuit.limits());
  EXPECT_EQ(admission.circuit_leases, 0u);
  EXPECT_EQ(admission.remote_leases, 0u);
  EXPECT_EQ(admission.relay_leases, 0u);
  EXPECT_EQ(admission.mac_prefix_leases, 0u);
  EXPECT_EQ(admission.source_offers, 8u);
  EXPECT_EQ(admission.source_leases, 0u) << "off unless asked for";
  EXPECT_EQ(loaded->server.discover_max_wait, std::chrono::seconds{1});
}

TEST(AdmissionConfig, EveryKeyIsRead) {
  const auto loaded = load_string(R"(server:
  discover-max-wait: 250ms
subnets:
  - subnet: 198.18.0.0/24
    admission:
      verify-chaddr: false
      client-rate: 30/m
      client-burst: 2
      relay-rate: 20/s
      relay-burst: 40
      circuit-rate: 0.5
      circuit-leases: 4
      remote-leases: 6
      relay-leases: 60
      mac-prefix-length: 4
      mac-prefix-leases: 10
      source-offers: 3
      source-leases: 5
  - subnet: 198.18.1.0/24
    admission: {relay-rate: 7.5, circuit-rate: 360/h}
)", "t.yaml");
  ASSERT_TRUE(loaded) << (loaded ? "" : format_errors(loaded.error()));
  EXPECT_EQ(loaded->server.discover_max_wait, std::chrono::milliseconds{250});
  const Admission& first = loaded->subnets[0].admission;
  EXPECT_FALSE(first.verify_chaddr);
  EXPECT_EQ(first.client, (TokenRate{0.5, 2}));
  EXPECT_EQ(first.relay, (TokenRate{20.0, 40}));
  EXPECT_EQ(first.circuit, (TokenRate{0.5, 1})) << "burst: the rate rounded up, at least 1";
  EXPECT_EQ(first.circuit_leases, 4u);
  EXPECT_EQ(first.remote_leases, 6u);
  EXPECT_EQ(first.relay_leases, 60u);
  EXPECT_EQ(first.mac_prefix_length, 4u);
  EXPECT_EQ(first.mac_prefix_leases, 10u);
  EXPECT_EQ(first.source_offers, 3u);
  EXPECT_EQ(first.source_leases, 5u);
  const Admission& second = loaded->subnets[1].admission;
  EXPECT_EQ(second.relay, (TokenRate{7.5, 8}));
  EXPECT_EQ(second.circuit, (TokenRate{0.1, 1}));
  EXPECT_EQ(second.client, (TokenRate{1.0, 5})) << "keys not given keep their defaults";
}

TEST(AdmissionConfig, MistakesAreExplained) {
  EXPECT_EQ(errors_of(R"(server:
  discover-max-wait: 30s
subnets:
  - subnet: 198.18.0.0/24
    admission:
      client-rate: fast
      relay-rate: 5/d
      circuit-rate: 2
      circuit-burst: 0
      source-offers: -1
      mac-prefix-length: 0
      relay-burst: 9
      flood: 1
)"),
            "t.yaml:2:22: 'discover-max-wait' must be 0s (never shed) to 10s: a client retransmits after ~4s\n"
            "t.yaml:6:20: 'client-rate': 'fast' is not a rate (e.g. 5, 5/s, 30/m, 100/h)\n"
            "t.yaml:7:19: 'relay-rate': '5/d': the unit after '/' is s, m or h\n"
            "t.yaml:9:22: 'circuit-burst' must be at least 1 while 'circuit-rate' limits: no request could pass\n"
            "t.yaml:10:22: 'source-offers': '-1' is not a whole number\n"
            "t.yaml:11:26: 'mac-prefix-length': 0 is out of range 1-15\n"
            "t.yaml:12:20: 'relay-burst' without 'relay-rate' limits nothing; set the rate too\n"
            "t.yaml:13:7: unknown key 'flood' in 'admission'; valid keys: verify-chaddr, client-rate, client-burst, "
            "relay-rate, relay-burst, circuit-rate, circuit-burst, circuit-leases, remote-leases, relay-leases, "
            "mac-prefix-length, mac-prefix-leases, source-offers, source-leases\n");
  EXPECT_EQ(errors_of(R"(subnets:
  - subnet: 198.18.0.0/24
    admission: {relay-leases: 20, source-leases: 30}
  - subnet: 198.18.1.0/24
    admission: {source-leases: 16777217}
)"),
            "t.yaml:3:50: 'source-leases' 30 is over 'relay-leases' 20: one host's cap must be below its link's\n"
            "t.yaml:5:32: 'source-leases': 16777217 is out of range 0-16777216\n");
}

}  // namespace
}  // namespace landlord::config
