// Text forms of config values: durations, percentages, endpoints, ranges; T1/T2 arithmetic.
#include <gtest/gtest.h>

#include "landlord/config/values.hpp"

namespace landlord::config {
namespace {

using namespace std::chrono_literals;

TEST(Duration, ParsesEachUnitAndCompounds) {
  const std::pair<std::string_view, Duration> cases[] = {
      {"90s", 90s}, {"10m", 10min}, {"12h", 12h}, {"7d", 7 * 24h}, {"250ms", 250ms},
      {"1h30m", 90min}, {"1d12h", 36h}, {"0s", 0s}, {"1m500ms", 60500ms},
  };
  for (const auto& [text, expected] : cases) {
    const auto parsed = parse_duration(text);
    ASSERT_TRUE(parsed.has_value()) << text << ": " << parsed.error();
    EXPECT_EQ(*parsed, expected) << text;
  }
}

TEST(Duration, RefusesMalformedTextWithAReason) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", "empty duration"},
      {"3600", "has no unit"},
      {"10x", "unknown unit 'x'"},
      {"h", "expected a number at 'h'"},
      {"-5s", "expected a number at '-5s'"},
      {"1.5h", "unknown unit '.'"},
      {"99999999999999999999s", "too long"},
      {"4000d", "too long"},
  };
  for (const auto& [text, fragment] : cases) {
    const auto parsed = parse_duration(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_NE(parsed.error().find(fragment), std::string::npos) << text << " -> " << parsed.error();
  }
}

TEST(Duration, FormatsInTheShortestFormThatParsesBack) {
  const std::pair<Duration, std::string_view> cases[] = {
      {0s, "0s"}, {90s, "1m30s"}, {3600s, "1h"}, {36h, "1d12h"}, {250ms, "250ms"}, {3150s, "52m30s"},
  };
  for (const auto& [duration, expected] : cases) {
    EXPECT_EQ(format_duration(duration), expected);
    EXPECT_EQ(*parse_duration(format_duration(duration)), duration);
  }
}

TEST(RenewalTime, PercentOrDuration) {
  EXPECT_EQ(std::get<Fraction>(*parse_renewal_time("50%")).value, 0.5);
  EXPECT_EQ(std::get<Fraction>(*parse_renewal_time("87.5%")).value, 0.875);
  EXPECT_EQ(std::get<Duration>(*parse_renewal_time("30m")), 30min);
  for (const auto text : {"0%", "100%", "150%", "%", "abc%", "50.%", ".5%", "5 0%", "30"}) {
    EXPECT_FALSE(parse_renewal_time(text).has_value()) << text;
  }
  EXPECT_NE(parse_renewal_time("100%").error().find("below 100%"), std::string::npos);
  EXPECT_EQ(format_renewal_time(Fraction{0.875}), "87.5%");
  EXPECT_EQ(format_renewal_time(Duration{30min}), "30m");
}

TEST(LeaseTimes, RenewAndRebindComeFromTheLeaseTime) {
  LeaseTimes times;  // 1h, 50%, 87.5%
  EXPECT_EQ(times.renew_duration(), 30min);
  EXPECT_EQ(times.rebind_duration(), 52min + 30s);

  times.renew = Fraction{0.7};  // 0.7 * 3600000 is 2519999.99... in floating point
  EXPECT_EQ(times.renew_duration(), 42min);

  times.time = 20s;  // 87.5% of 20s = 17.5s: clients get whole seconds, so 17s
  EXPECT_EQ(times.rebind_duration(), 17s);

  times.renew = Duration{5min};  // a fixed T1 ignores the lease time
  EXPECT_EQ(times.renew_duration(), 5min);
}

TEST(Endpoint, AddressWithOptionalPort) {
  const auto full = parse_endpoint("127.0.0.1:6767", 67);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->address, Ipv4(127, 0, 0, 1));
  EXPECT_EQ(full->port, 6767);
  EXPECT_EQ(parse_endpoint("0.0.0.0", 67)->port, 67);
  EXPECT_EQ(format_endpoint(*full), "127.0.0.1:6767");

  const std::pair<std::string_view, std::string_view> bad[] = {
      {"0.0.0.0:0", "bad port '0'"}, {"0.0.0.0:65536", "bad port '65536'"},
      {"0.0.0.0:", "bad port ''"},   {"0.0.0.0:6x", "bad port '6x'"},
      {"localhost:67", "'localhost' is not an IPv4 address"},
  };
  for (const auto& [text, fragment] : bad) {
    const auto parsed = parse_endpoint(text, 67);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_NE(parsed.error().find(fragment), std::string::npos) << text << " -> " << parsed.error();
  }
}

TEST(Range, FirstLastOrCidr) {
  const auto range = parse_range("198.18.0.100-198.18.0.199");
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->first, Ipv4(198, 18, 0, 100));
  EXPECT_EQ(range->last, Ipv4(198, 18, 0, 199));
  EXPECT_EQ(range->size(), 100u);
  EXPECT_EQ(format_range(*range), "198.18.0.100-198.18.0.199");

  const auto spaced = parse_range("198.18.0.1 - 198.18.0.1");
  ASSERT_TRUE(spaced.has_value());
  EXPECT_EQ(spaced->size(), 1u);

  const auto block = parse_range("198.18.0.128/26");
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->first, Ipv4(198, 18, 0, 128));
  EXPECT_EQ(block->last, Ipv4(198, 18, 0, 191));

  EXPECT_NE(parse_range("198.18.0.199-198.18.0.100").error().find("first > last"), std::string::npos);
  EXPECT_FALSE(parse_range("198.18.0.100-").has_value());
  EXPECT_FALSE(parse_range("198.18.0.100").has_value());
  EXPECT_FALSE(parse_range("198.18.0.1/24").has_value());  // host bits set
}

}  // namespace
}  // namespace landlord::config
