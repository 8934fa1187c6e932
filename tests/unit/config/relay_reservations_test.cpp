// Reservations keyed by option 82's circuit-id or remote-id: loaded, and refused at their place.
#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

using Bytes = std::vector<std::uint8_t>;

TEST(RelayReservations, CircuitIdAndRemoteIdAsHexOrText) {
  const auto loaded = load_string(R"(subnets:
  - subnet: 198.18.1.0/24
    reservations:
      - {circuit-id: "eth0/1/2:100", address: 198.18.1.50}
      - {circuit-id: "00:01:0a", address: 198.18.1.51}
      - {remote-id: "'ab:cd'", address: 198.18.1.52, hostname: line-52}
)", "t.yaml");
  ASSERT_TRUE(loaded) << (loaded ? "" : format_errors(loaded.error()));
  const auto& reservations = loaded->subnets.at(0).reservations;
  ASSERT_EQ(reservations.size(), 3u);
  EXPECT_EQ(reservations[0].circuit_id, (Bytes{'e', 't', 'h', '0', '/', '1', '/', '2', ':', '1', '0', '0'}));
  EXPECT_FALSE(reservations[0].mac);
  EXPECT_EQ(reservations[1].circuit_id, (Bytes{0x00, 0x01, 0x0a}));
  EXPECT_EQ(reservations[2].remote_id, (Bytes{'a', 'b', ':', 'c', 'd'}));  // quoted: text, not hex
  EXPECT_TRUE(reservations[2].circuit_id.empty());
}

TEST(RelayReservations, MistakesAreReportedAtTheirPlace) {
  const auto loaded = load_string(R"(subnets:
  - subnet: 198.18.1.0/24
    reservations:
      - {circuit-id: port-1, address: 198.18.1.50}
      - {circuit-id: port-1, address: 198.18.1.51}
      - {mac: "02:00:00:00:00:01", remote-id: r1, address: 198.18.1.52}
      - {remote-id: "''", address: 198.18.1.53}
      - {address: 198.18.1.54}
)", "t.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(format_errors(loaded.error()),
            "t.yaml:5:22: circuit-id 'port-1' is already reserved in this subnet (line 4)\n"
            "t.yaml:6:36: a reservation takes one of 'mac', 'client-id', 'circuit-id' or 'remote-id', not two\n"
            "t.yaml:7:21: 'remote-id': '' is not a relay agent id: 1 to 255 bytes, as colon hex or text\n"
            "t.yaml:8:9: a reservation needs 'mac', 'client-id', 'circuit-id' or 'remote-id' to know its client\n");
}

}  // namespace
}  // namespace landlord::config
