// Option values as the wire carries them (RFC 2132, RFC 1035 names for option 119).
#include <gtest/gtest.h>

#include "landlord/config/option_encoding.hpp"

namespace landlord::config {
namespace {

using Bytes = std::vector<std::uint8_t>;

TEST(OptionEncoding, AddressesAreFourBytesEachInNetworkOrder) {
  const Ipv4 addresses[] = {Ipv4(198, 18, 0, 1), Ipv4(10, 0, 0, 254)};
  EXPECT_EQ(encode_addresses(addresses), (Bytes{198, 18, 0, 1, 10, 0, 0, 254}));
}

TEST(OptionEncoding, IntegersAreBigEndian) {
  EXPECT_EQ(encode_u8(7), Bytes{7});
  EXPECT_EQ(encode_u16(1500), (Bytes{0x05, 0xdc}));
  EXPECT_EQ(encode_u32(0x01020304), (Bytes{1, 2, 3, 4}));
}

TEST(OptionEncoding, TextHasNoTerminatingNul) {
  EXPECT_EQ(encode_text("lab.test"), (Bytes{'l', 'a', 'b', '.', 't', 'e', 's', 't'}));
}

TEST(OptionEncoding, DomainSearchUsesLengthPrefixedLabels) {
  const std::vector<std::string> names = {"lab.test", "example.", "a"};
  const auto encoded = encode_domain_list(names);
  ASSERT_TRUE(encoded.has_value()) << encoded.error();
  const Bytes expected = {3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0,
                          7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0,
                          1, 'a', 0};
  EXPECT_EQ(*encoded, expected);
}

TEST(OptionEncoding, DomainSearchRefusesBadNames) {
  const std::pair<std::string, std::string_view> cases[] = {
      {"", "empty domain name"},
      {"lab..test", "empty label"},
      {"lab test", "the character ' '"},
      {std::string(64, 'a') + ".test", "longer than 63"},
  };
  for (const auto& [name, fragment] : cases) {
    const auto encoded = encode_domain_list(std::span{&name, 1});
    ASSERT_FALSE(encoded.has_value()) << name;
    EXPECT_NE(encoded.error().find(fragment), std::string::npos) << encoded.error();
  }
}

TEST(OptionEncoding, HexAcceptsSeparatorsOrNone) {
  EXPECT_EQ(*parse_hex_bytes("0a0B"), (Bytes{0x0a, 0x0b}));
  EXPECT_EQ(*parse_hex_bytes("0a:0b:ff"), (Bytes{0x0a, 0x0b, 0xff}));
  EXPECT_EQ(*parse_hex_bytes("0a 0b"), (Bytes{0x0a, 0x0b}));
  EXPECT_FALSE(parse_hex_bytes("0a0").has_value());
  EXPECT_FALSE(parse_hex_bytes("zz").has_value());
}

TEST(OptionEncoding, NamedOptionsHaveTheirRfcCodes) {
  const std::pair<std::string_view, std::uint8_t> expected[] = {
      {"routers", 3}, {"dns-servers", 6}, {"domain-name", 15}, {"interface-mtu", 26},
      {"broadcast-address", 28}, {"ntp-servers", 42}, {"domain-search", 119},
  };
  EXPECT_EQ(named_options().size(), std::size(expected));
  for (const auto& [name, code] : expected) {
    const auto* option = find_named_option(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_EQ(option->code, code) << name;
  }
  EXPECT_EQ(find_named_option("subnet-mask"), nullptr);
}

TEST(OptionEncoding, CodesTheServerOwnsAreReserved) {
  for (const int code : {0, 1, 51, 53, 54, 58, 59, 61, 82, 255}) {
    EXPECT_TRUE(reserved_option_reason(static_cast<std::uint8_t>(code)).has_value()) << code;
  }
  for (const int code : {3, 6, 15, 42, 66, 67, 119, 121, 252}) {
    EXPECT_FALSE(reserved_option_reason(static_cast<std::uint8_t>(code)).has_value()) << code;
  }
}

}  // namespace
}  // namespace landlord::config
