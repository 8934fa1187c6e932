// DHCID (RFC 4701): the three examples of §3.6, and which identifier a DHCPv4 client gets.
#include <gtest/gtest.h>

#include "landlord/ddns/base64.hpp"
#include "landlord/ddns/dhcid.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::name;

std::string dhcid_text(DhcidIdentifierType type, std::vector<std::uint8_t> bytes, const char* fqdn) {
  return base64_encode(dhcid_rdata(DhcidIdentifier{type, std::move(bytes)}, name(fqdn)));
}

TEST(Dhcid, Rfc4701Section3_6Examples) {
  // §3.6.1: a DHCPv6 DUID.
  EXPECT_EQ(dhcid_text(DhcidIdentifierType::kDuid,
                       {0x00, 0x01, 0x00, 0x06, 0x41, 0x2d, 0xf1, 0x66, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06},
                       "chi6.example.com."),
            "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=");
  // §3.6.2: a DHCPv4 client identifier (option 61).
  EXPECT_EQ(dhcid_text(DhcidIdentifierType::kClientId, {0x01, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c},
                       "chi.example.com."),
            "AAEBOSD+XR3Os/0LozeXVqcNc7FwCfQdWL3b/NaiUDlW2No=");
  // §3.6.3: htype 1 and chaddr.
  EXPECT_EQ(dhcid_text(DhcidIdentifierType::kChaddr, {0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06},
                       "client.example.com."),
            "AAABxLmlskllE0MVjd57zHcWmEH3pCQ6VytcKD//7es/deY=");
}

TEST(Dhcid, NameIsCanonicalisedBeforeHashing) {
  EXPECT_EQ(dhcid_text(DhcidIdentifierType::kChaddr, {0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06},
                       "Client.EXAMPLE.com"),
            "AAABxLmlskllE0MVjd57zHcWmEH3pCQ6VytcKD//7es/deY=");
}

TEST(Dhcid, ClientIdPreferredOverChaddrRfc4701Section3_3) {
  const auto hardware = HardwareAddress::parse("01:02:03:04:05:06");
  ASSERT_TRUE(hardware.has_value());
  const DhcidIdentifier by_chaddr = dhcid_identifier(ClientId{}, *hardware);
  EXPECT_EQ(by_chaddr.type, DhcidIdentifierType::kChaddr);
  EXPECT_EQ(by_chaddr.bytes, (std::vector<std::uint8_t>{1, 1, 2, 3, 4, 5, 6}));
  const auto client_id = ClientId::parse("01:07:08:09:0a:0b:0c");
  ASSERT_TRUE(client_id.has_value());
  const DhcidIdentifier by_id = dhcid_identifier(*client_id, *hardware);
  EXPECT_EQ(by_id.type, DhcidIdentifierType::kClientId);
  EXPECT_EQ(by_id.bytes, (std::vector<std::uint8_t>{1, 7, 8, 9, 10, 11, 12}));
}

TEST(Dhcid, DifferentClientsOrNamesDiffer) {
  const auto a = dhcid_rdata({DhcidIdentifierType::kChaddr, {1, 1, 2, 3, 4, 5, 6}}, name("alpha.lab.test"));
  const auto b = dhcid_rdata({DhcidIdentifierType::kChaddr, {1, 1, 2, 3, 4, 5, 7}}, name("alpha.lab.test"));
  const auto c = dhcid_rdata({DhcidIdentifierType::kChaddr, {1, 1, 2, 3, 4, 5, 6}}, name("beta.lab.test"));
  EXPECT_EQ(a.size(), 35u);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
}  // namespace landlord::ddns
