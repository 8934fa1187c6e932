#include "landlord/base/plain_hex.hpp"

#include <array>
#include <cstdint>
#include <span>

#include <gtest/gtest.h>

namespace landlord {
namespace {

TEST(PlainHex, TwoLowerCaseDigitsPerByteWithNothingBetween) {
  const std::array<std::uint8_t, 4> bytes{0x0a, 0xff, 0x00, 0x1B};
  EXPECT_EQ(to_plain_hex(bytes), "0aff001b");
  EXPECT_EQ(to_plain_hex(std::span<const std::uint8_t>{}), "");
}

}  // namespace
}  // namespace landlord
