// Option values as the wire carries them (RFC 2132, RFC 1035 names for option 119).
#include <gtest/gtest.h>

#include "landlord/config/option_catalogue.hpp"
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

TEST(OptionCatalogue, NamesAndCodesAreUniqueAndKeepTheirRfcCodes) {
  const std::pair<std::string_view, std::uint8_t> expected[] = {
      {"routers", 3}, {"dns-servers", 6}, {"host-name", 12}, {"domain-name", 15},
      {"interface-mtu", 26}, {"broadcast-address", 28}, {"ntp-servers", 42},
      {"vendor-specific", 43}, {"tftp-server-name", 66}, {"boot-file-name", 67},
      {"client-fqdn", 81}, {"domain-search", 119}, {"classless-static-routes", 121},
      {"ms-classless-static-routes", 249},
  };
  for (const auto& [name, code] : expected) {
    const auto* option = find_option(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_EQ(option->code, code) << name;
    EXPECT_EQ(find_option(code), option) << name;
  }
  EXPECT_EQ(find_option("subnet-mask"), nullptr);
  const auto catalogue = option_catalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    EXPECT_FALSE(reserved_option_reason(catalogue[i].code).has_value()) << catalogue[i].name;
    for (std::size_t j = i + 1; j < catalogue.size(); ++j) {
      EXPECT_NE(catalogue[i].name, catalogue[j].name);
      EXPECT_NE(catalogue[i].code, catalogue[j].code) << catalogue[i].name << " " << catalogue[j].name;
    }
  }
}

// RFC 2132 §3 to §8 define codes 2-49 and 62-76 for a server to configure (§9 is the
// protocol's own): every one is in the catalogue by name.
TEST(OptionCatalogue, HasEveryRfc2132OptionAServerConfigures) {
  for (int code = 2; code <= 76; ++code) {
    if (code >= 50 && code <= 61) continue;  // RFC 2132 §9: the protocol's own (60 is named)
    if (code == 63) continue;                // unassigned (was NetWare/IP information)
    EXPECT_NE(find_option(static_cast<std::uint8_t>(code)), nullptr) << code;
  }
}

TEST(OptionCatalogue, TypeNamesRoundTrip) {
  for (const OptionType type : all_types()) {
    EXPECT_EQ(type_from_name(type_name(type)), type) << type_name(type);
  }
  EXPECT_EQ(type_from_name("ips"), OptionType::IpList);
  EXPECT_FALSE(type_from_name("string").has_value());
}

TEST(OptionEncoding, BooleansAndSignedIntegers) {
  EXPECT_EQ(encode_bool(true), Bytes{1});
  EXPECT_EQ(encode_bool(false), Bytes{0});
  EXPECT_EQ(encode_i32(-3600), (Bytes{0xff, 0xff, 0xf1, 0xf0}));
}

// RFC 3397 §2 (its own example): "eng.apple.com." and "marketing.apple.com." share "apple.com",
// written once; the second name ends in a pointer to offset 4.
TEST(OptionEncoding, Rfc3397Section2DomainSearchIsCompressed) {
  const std::vector<std::string> names = {"eng.apple.com.", "marketing.apple.com."};
  const auto encoded = encode_domain_list(names);
  ASSERT_TRUE(encoded.has_value()) << encoded.error();
  const Bytes expected = {3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
                          9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g', 0xc0, 0x04};
  EXPECT_EQ(*encoded, expected);
  // The same name again is one pointer; names compare without case.
  const std::vector<std::string> repeated = {"lab.test", "LAB.test"};
  EXPECT_EQ(*encode_domain_list(repeated), (Bytes{3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0, 0xc0, 0}));
}

// RFC 4702 §2: flags (E: wire format, N: the server updates no DNS records), RCODE1 and RCODE2
// (255 from a server), then the name.
TEST(OptionEncoding, Rfc4702ClientFqdnFromAServer) {
  const auto encoded = encode_client_fqdn("pc.lab.test");
  ASSERT_TRUE(encoded.has_value());
  EXPECT_EQ(*encoded, (Bytes{0x0c, 255, 255, 2, 'p', 'c', 3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0}));
  EXPECT_FALSE(encode_client_fqdn("bad..name").has_value());
}

// RFC 3361 §3.1 / §3.2: encoding byte 0 then names, or 1 then addresses.
TEST(OptionEncoding, Rfc3361SipServersByNameOrAddress) {
  const Ipv4 addresses[] = {Ipv4(198, 18, 0, 5)};
  EXPECT_EQ(encode_sip_addresses(addresses), (Bytes{1, 198, 18, 0, 5}));
  const std::vector<std::string> names = {"sip.lab"};
  EXPECT_EQ(*encode_sip_names(names), (Bytes{0, 3, 's', 'i', 'p', 3, 'l', 'a', 'b', 0}));
}

// RFC 2132 §8.4: vendor-specific information as code/length/value sub-options.
TEST(OptionEncoding, Rfc2132Section8_4VendorSubOptions) {
  const SubOption sub_options[] = {{1, {198, 18, 0, 1}}, {6, {8}}, {71, {}}};
  EXPECT_EQ(encode_sub_options(sub_options), (Bytes{1, 4, 198, 18, 0, 1, 6, 1, 8, 71, 0}));
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
