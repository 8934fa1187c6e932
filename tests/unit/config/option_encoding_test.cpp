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
      {"broadcast-address", 28}, {"ntp-servers", 42}, {"tftp-server-name", 66},
      {"boot-file-name", 67}, {"domain-search", 119}, {"classless-static-routes", 121},
      {"ms-classless-static-routes", 249},
  };
  EXPECT_EQ(named_options().size(), std::size(expected));
  for (const auto& [name, code] : expected) {
    const auto* option = find_named_option(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_EQ(option->code, code) << name;
  }
  EXPECT_EQ(find_named_option("subnet-mask"), nullptr);
}

// RFC 3442 §3's own table: the prefix length, then only the destination's significant
// octets, then the router.
TEST(OptionEncoding, ClasslessStaticRoutesCarryOnlySignificantOctets) {
  const std::pair<const char*, Bytes> cases[] = {
      {"0.0.0.0/0 via 198.18.0.1", {0, 198, 18, 0, 1}},
      {"10.0.0.0/8 via 198.18.0.1", {8, 10, 198, 18, 0, 1}},
      {"10.17.0.0/16 via 198.18.0.1", {16, 10, 17, 198, 18, 0, 1}},
      {"10.27.129.0/24 via 198.18.0.1", {24, 10, 27, 129, 198, 18, 0, 1}},
      {"10.229.0.128/25 via 198.18.0.1", {25, 10, 229, 0, 128, 198, 18, 0, 1}},
      {"10.198.122.47/32 via 198.18.0.1", {32, 10, 198, 122, 47, 198, 18, 0, 1}},
      {"198.18.2.0/24   via   198.18.0.254", {24, 198, 18, 2, 198, 18, 0, 254}},
  };
  for (const auto& [text, bytes] : cases) {
    const auto route = parse_static_route(text);
    ASSERT_TRUE(route.has_value()) << text << ": " << route.error();
    EXPECT_EQ(encode_static_routes(std::span{&*route, 1}), bytes) << text;
  }
  const StaticRoute two[] = {*parse_static_route("198.18.2.0/24 via 198.18.0.1"),
                             *parse_static_route("0.0.0.0/0 via 198.18.0.1")};
  EXPECT_EQ(encode_static_routes(two),
            (Bytes{24, 198, 18, 2, 198, 18, 0, 1, 0, 198, 18, 0, 1}));
}

TEST(OptionEncoding, ClasslessStaticRoutesRefuseWhatIsNotARoute) {
  const std::pair<const char*, std::string_view> cases[] = {
      {"198.18.2.0/24", "is not a route"},
      {"198.18.2.0/24 via", "is not a route"},
      {"198.18.2.0/24 via 198.18.0", "is not a route"},
      {"198.18.2.1/24 via 198.18.0.1", "host bits set"},
      {"198.18.2.0/33 via 198.18.0.1", "bad length"},
      {"lab via 198.18.0.1", "is not a route"},
  };
  for (const auto& [text, fragment] : cases) {
    const auto route = parse_static_route(text);
    ASSERT_FALSE(route.has_value()) << text;
    EXPECT_NE(route.error().find(fragment), std::string::npos) << route.error();
  }
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
