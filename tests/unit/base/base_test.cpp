#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "landlord/base/client_id.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"

namespace landlord {
namespace {

TEST(Ipv4, ParsesAndPrintsDottedQuad) {
  const auto address = Ipv4::parse("198.18.0.100");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->to_uint(), 0xC6120064u);
  EXPECT_EQ(address->to_string(), "198.18.0.100");
  EXPECT_EQ(Ipv4(198, 18, 0, 100), *address);
}

TEST(Ipv4, RefusesMalformedText) {
  for (const char* text : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4 ", "a.b.c.d", "1..2.3",
                           "1.2.3.-4", "1234.1.1.1"}) {
    EXPECT_FALSE(Ipv4::parse(text)) << text;
  }
}

TEST(Cidr, ParsesAndContains) {
  const auto cidr = Cidr::parse("198.18.0.0/24");
  ASSERT_TRUE(cidr);
  EXPECT_TRUE(cidr->contains(Ipv4(198, 18, 0, 255)));
  EXPECT_FALSE(cidr->contains(Ipv4(198, 18, 1, 0)));
  EXPECT_EQ(cidr->broadcast(), Ipv4(198, 18, 0, 255));
  EXPECT_EQ(cidr->to_string(), "198.18.0.0/24");
  EXPECT_FALSE(Cidr::parse("198.18.0.1/24")) << "host bits set";
  EXPECT_FALSE(Cidr::parse("198.18.0.0/33"));
  EXPECT_FALSE(Cidr::parse("198.18.0.0"));
  EXPECT_TRUE(Cidr::parse("0.0.0.0/0")->contains(Ipv4(1, 2, 3, 4)));
}

TEST(HardwareAddress, ParsesColonAndDashHex) {
  const auto mac = HardwareAddress::parse("02:00:00:AB:cd:10");
  ASSERT_TRUE(mac);
  EXPECT_EQ(mac->length(), 6);
  EXPECT_EQ(mac->to_string(), "02:00:00:ab:cd:10");
  EXPECT_EQ(*HardwareAddress::parse("02-00-00-ab-cd-10"), *mac);
  EXPECT_FALSE(HardwareAddress::parse("02:00:0"));
  EXPECT_FALSE(HardwareAddress::parse("zz:00"));
  EXPECT_FALSE(HardwareAddress::parse(""));
}

TEST(ClientKey, ClientIdAndHardwareKeysNeverCollide) {
  const auto mac = *HardwareAddress::parse("02:00:00:00:00:10");
  // A client-id whose bytes equal htype+chaddr must still be a different identity.
  const std::uint8_t id_bytes[] = {1, 2, 0, 0, 0, 0, 0x10};
  const auto by_id = ClientKey::from(ClientId{id_bytes}, mac);
  const auto by_mac = ClientKey::from(ClientId{}, mac);
  EXPECT_NE(by_id, by_mac);
  EXPECT_EQ(by_mac, ClientKey::from(ClientId{}, mac));
}

TEST(Expected, HoldsValueOrError) {
  Expected<int, std::string> good = 7;
  Expected<int, std::string> bad = unexpected(std::string("no"));
  EXPECT_TRUE(good);
  EXPECT_EQ(*good, 7);
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error(), "no");
  Expected<void, int> fine;
  Expected<void, int> failed = unexpected(3);
  EXPECT_TRUE(fine);
  EXPECT_EQ(failed.error(), 3);
}

}  // namespace
}  // namespace landlord

namespace landlord {
namespace {

TEST(ColonHex, RoundTripsAndRefusesMalformedText) {
  const std::uint8_t bytes[] = {0x02, 0x00, 0xab, 0xcd};
  EXPECT_EQ(to_colon_hex(bytes), "02:00:ab:cd");
  EXPECT_EQ(to_colon_hex(std::span<const std::uint8_t>{}), "");
  EXPECT_EQ(to_colon_hex(std::span{bytes, 1}), "02");
  std::array<char, colon_hex_size(4)> text;
  EXPECT_EQ(write_colon_hex(bytes, text), "02:00:ab:cd");
  EXPECT_EQ(write_colon_hex(std::span{bytes, 2}, text), "02:00");
  std::array<std::uint8_t, 4> out{};
  EXPECT_EQ(parse_colon_hex("02:00:AB-cd", out), 4u);
  EXPECT_TRUE(std::equal(out.begin(), out.end(), bytes));
  EXPECT_EQ(parse_colon_hex("", out), 0u);
  for (const char* bad : {"0", "02:0", "02:00:ab:cd:ef", "02;00", "zz", "02:00:"}) {
    EXPECT_FALSE(parse_colon_hex(bad, out)) << bad;
  }
}

TEST(Hex, BytesAndNumbers) {
  const std::uint8_t bytes[] = {0x02, 0x00, 0xab, 0xcd};
  std::string text = "mac=";
  append_colon_hex(text, bytes);
  EXPECT_EQ(text, "mac=02:00:ab:cd");
  append_colon_hex(text, std::span<const std::uint8_t>{});
  EXPECT_EQ(text, "mac=02:00:ab:cd");
  EXPECT_EQ(to_hex(bytes), "0200abcd");
  EXPECT_EQ(to_hex(std::span<const std::uint8_t>{}), "");
  const auto hex = [](std::uint64_t value, std::size_t digits) {
    std::string out = "x";
    append_hex(out, value, digits);
    return out;
  };
  EXPECT_EQ(hex(0, 1), "x0");
  EXPECT_EQ(hex(500, 1), "x1f4");
  EXPECT_EQ(hex(0x1f, 4), "x001f");
  EXPECT_EQ(hex(0x12345, 4), "x12345");
  EXPECT_EQ(hex(~std::uint64_t{0}, 1), "xffffffffffffffff");
}

TEST(Time, WholeSecondsRoundTowardZero) {
  EXPECT_EQ(to_seconds(Duration{1999}), 1);
  EXPECT_EQ(to_seconds(Duration{-1999}), -1);
  EXPECT_EQ(to_seconds(std::chrono::hours{1}), 3600);
}

}  // namespace
}  // namespace landlord
