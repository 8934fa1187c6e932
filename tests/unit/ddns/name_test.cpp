// RFC 1035 §3.1 names: presentation form, limits, case, compression on read (§4.1.4).
#include <gtest/gtest.h>

#include "landlord/ddns/name.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::name;

std::vector<std::uint8_t> bytes(std::initializer_list<int> values) {
  std::vector<std::uint8_t> out;
  for (int value : values) out.push_back(static_cast<std::uint8_t>(value));
  return out;
}

TEST(Name, TextToWireAndBack) {
  const Name alpha = name("alpha.lab.test");
  EXPECT_EQ(std::vector<std::uint8_t>(alpha.wire().begin(), alpha.wire().end()),
            bytes({5, 'a', 'l', 'p', 'h', 'a', 3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0}));
  EXPECT_EQ(alpha.to_text(), "alpha.lab.test.");
  EXPECT_EQ(name("alpha.lab.test.").to_text(), "alpha.lab.test.");
  EXPECT_EQ(alpha.label_count(), 3u);
  EXPECT_TRUE(name(".").is_root());
  EXPECT_EQ(name(".").to_text(), ".");
}

TEST(Name, Rfc1035LimitsLabel63Name255) {
  EXPECT_TRUE(Name::from_text(std::string(63, 'a') + ".test").has_value());
  EXPECT_FALSE(Name::from_text(std::string(64, 'a') + ".test").has_value());
  // 4 labels of 63 = 256 bytes of labels + root: over 255.
  const std::string l63(63, 'b');
  EXPECT_FALSE(Name::from_text(l63 + "." + l63 + "." + l63 + "." + l63).has_value());
  // 3 x 63 + 61: 64*3 + 62 + 1 = 255 exactly.
  EXPECT_TRUE(Name::from_text(l63 + "." + l63 + "." + l63 + "." + std::string(61, 'c')).has_value());
  EXPECT_FALSE(Name::from_text("a..b").has_value());
  EXPECT_FALSE(Name::from_text("").has_value());
  EXPECT_FALSE(Name::from_text("a b.test").has_value());
}

TEST(Name, CaseInsensitiveRfc4343AndCanonicalLowers) {
  EXPECT_EQ(name("Alpha.LAB.test"), name("alpha.lab.TEST."));
  EXPECT_EQ(name("Alpha.LAB.test").canonical().to_text(), "alpha.lab.test.");
  EXPECT_FALSE(name("alpha.lab.test") == name("alpha.lab.tes"));
}

TEST(Name, WithinZoneOnlyAtLabelBoundaries) {
  const Name zone = name("lab.test");
  EXPECT_TRUE(name("alpha.lab.test").is_within(zone));
  EXPECT_TRUE(name("LAB.test").is_within(zone));
  EXPECT_TRUE(name("a.b.LAB.TEST").is_within(zone));
  EXPECT_FALSE(name("alphalab.test").is_within(zone));
  EXPECT_FALSE(name("lab.test.org").is_within(zone));
  EXPECT_FALSE(name("test").is_within(zone));
  EXPECT_TRUE(name("anything").is_within(Name{}));
}

TEST(Name, UnderAppendsAndChecksLength) {
  EXPECT_EQ(name("alpha").under(name("lab.test"))->to_text(), "alpha.lab.test.");
  const std::string l63(63, 'x');
  EXPECT_TRUE(name((l63 + "." + l63 + "." + l63).c_str()).under(name("lab.test")).has_value());
  const std::string l60(60, 'y');
  EXPECT_FALSE(name((l63 + "." + l63 + "." + l63 + "." + l60).c_str()).under(name("lab.test")).has_value());
}

TEST(Name, ReverseNameRfc1035Section3_5) {
  EXPECT_EQ(reverse_name(Ipv4(198, 18, 0, 5)).to_text(), "5.0.18.198.in-addr.arpa.");
  EXPECT_EQ(reverse_name(Ipv4(198, 19, 255, 254)).to_text(), "254.255.19.198.in-addr.arpa.");
}

TEST(ReadName, FollowsBackwardPointers) {
  // "lab.test" at 0, then "alpha" + pointer to 0 at 10.
  const auto message = bytes({3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0, 5, 'a', 'l', 'p', 'h', 'a', 0xc0, 0x00});
  std::size_t offset = 10;
  auto parsed = read_name(message, offset);
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_EQ(parsed->to_text(), "alpha.lab.test.");
  EXPECT_EQ(offset, message.size());  // just past the pointer, not past its target
}

TEST(ReadName, RefusesLoopsForwardPointersAndOverruns) {
  std::size_t offset = 0;
  EXPECT_FALSE(read_name(bytes({0xc0, 0x00}), offset).has_value());  // points at itself
  offset = 0;
  EXPECT_FALSE(read_name(bytes({0xc0, 0x02, 0}), offset).has_value());  // forward
  offset = 2;
  // Two pointers pointing at each other: the second points at the first (backwards), the
  // first at the second (forwards): refused.
  EXPECT_FALSE(read_name(bytes({0xc0, 0x02, 0xc0, 0x00}), offset).has_value());
  offset = 0;
  EXPECT_FALSE(read_name(bytes({5, 'a', 'b'}), offset).has_value());  // label past the end
  offset = 0;
  EXPECT_FALSE(read_name(bytes({0x40, 'a', 0}), offset).has_value());  // reserved label type
  offset = 0;
  EXPECT_FALSE(read_name(bytes({3, 'a', 'b', 'c'}), offset).has_value());  // no root label
}

TEST(ReadName, ExpandedNameOver255IsRefused) {
  // A 63-byte label and the root at 0, then four names each of one 63-byte label and a pointer
  // to the one before (at 65, 131, 197, 263): the last expands to 5 x 64 + 1 bytes.
  std::vector<std::uint8_t> message(1, 63);
  message.insert(message.end(), 63, 'a');
  message.push_back(0);
  std::size_t previous = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t here = message.size();
    message.push_back(63);
    message.insert(message.end(), 63, 'a');
    message.push_back(static_cast<std::uint8_t>(0xc0 | previous >> 8));
    message.push_back(static_cast<std::uint8_t>(previous));
    previous = here;
  }
  std::size_t offset = 131;  // 3 x 64 + 1: fine
  EXPECT_TRUE(read_name(message, offset).has_value());
  offset = previous;
  EXPECT_FALSE(read_name(message, offset).has_value());
}

}  // namespace
}  // namespace landlord::ddns
