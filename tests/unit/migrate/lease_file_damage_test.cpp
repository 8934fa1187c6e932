// The readers on damaged files: every line not understood is a failure with its number and
// why, and costs no other lease (dhcpd resynchronises at the next `lease ADDRESS {` line);
// times that overflow or make no sense are failures, never wrapped; a file of another format
// or of random bytes gives no lease; what a report shows of a line is escaped and short.
#include <gtest/gtest.h>

#include <random>

#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {
namespace {

std::string dhcpd_lease(const std::string& address, const std::string& mac, const std::string& ends = "epoch 2000003600") {
  return "lease " + address + " {\n  ends " + ends + ";\n  binding state active;\n  hardware ethernet " + mac +
         ";\n}\n";
}

bool mentions(const LineFailure& failure, std::string_view words) {
  return failure.reason.find(words) != std::string::npos;
}

TEST(DhcpdDamage, AStrayLineBeforeALeaseIsReportedAndTheLeaseRead) {
  const LeaseFile file = read_dhcpd_leases("authoring-byte-order little-endian;\nstray words\n" +
                                           dhcpd_lease("198.18.0.100", "02:00:00:00:00:01"));
  ASSERT_EQ(file.leases.size(), 1U);
  EXPECT_EQ(file.leases[0].address.to_string(), "198.18.0.100");
  EXPECT_EQ(file.leases[0].line, 3);
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_EQ(file.failures[0].line, 2);
  EXPECT_TRUE(mentions(file.failures[0], "not a dhcpd.leases statement: 'stray'")) << file.failures[0].reason;
}

TEST(DhcpdDamage, AnUnknownStatementIsAFailure) {
  const LeaseFile file = read_dhcpd_leases("frobnicate 3;\n" + dhcpd_lease("198.18.0.100", "02:00:00:00:00:01"));
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_EQ(file.failures[0].line, 1);
  EXPECT_EQ(file.leases.size(), 1U);
}

TEST(DhcpdDamage, ABlockCutShortByACrashCostsOnlyItself) {
  // dhcpd died writing the first block; restarted, it appended the next ones.
  const LeaseFile file = read_dhcpd_leases("lease 198.18.0.100 {\n  starts 2 2026/12/01 21:00:00;\n  ends 2 20\n" +
                                           dhcpd_lease("198.18.0.101", "02:00:00:00:00:02") +
                                           dhcpd_lease("198.18.0.102", "02:00:00:00:00:03"));
  ASSERT_EQ(file.leases.size(), 2U);
  EXPECT_EQ(file.leases[0].address.to_string(), "198.18.0.101");
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_EQ(file.failures[0].line, 1);
  EXPECT_TRUE(mentions(file.failures[0], "not closed before line 4")) << file.failures[0].reason;
}

TEST(DhcpdDamage, ALastBlockWithoutItsEndIsAFailure) {
  const LeaseFile file = read_dhcpd_leases(dhcpd_lease("198.18.0.100", "02:00:00:00:00:01") +
                                           "lease 198.18.0.101 {\n  binding state active;\n");
  ASSERT_EQ(file.leases.size(), 1U);
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_EQ(file.failures[0].line, 6);
  EXPECT_TRUE(mentions(file.failures[0], "not closed before the end of the file"));
}

TEST(DhcpdDamage, ALineWithoutItsSemicolonFailsItsBlock) {
  // Read on, "binding state free" would have been swallowed and the lease taken as active.
  const LeaseFile file = read_dhcpd_leases(
      "lease 198.18.0.100 {\n  hardware ethernet 02:00:00:00:00:01\n  binding state free;\n}\n" +
      dhcpd_lease("198.18.0.101", "02:00:00:00:00:02"));
  ASSERT_EQ(file.leases.size(), 1U);
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_TRUE(mentions(file.failures[0], "no ';' at the end of line 2")) << file.failures[0].reason;
}

TEST(DhcpdDamage, AStrayCloseAndAnUnclosedStringAreFailures) {
  const LeaseFile file = read_dhcpd_leases(
      "}\nlease 198.18.0.100 {\n  client-hostname \"abc;\n  hardware ethernet 02:00:00:00:00:01;\n}\n" +
      dhcpd_lease("198.18.0.101", "02:00:00:00:00:02"));
  ASSERT_EQ(file.failures.size(), 2U);
  EXPECT_TRUE(mentions(file.failures[0], "'}' with no block open"));
  EXPECT_EQ(file.failures[1].line, 2);
  EXPECT_EQ(file.leases.size(), 1U);
}

TEST(DhcpdDamage, TimesOutOfRangeAreFailures) {
  for (const std::string ends : {"epoch -1", "epoch 99999999999999", "epoch 9223372036854775807",
                                 "epoch 99999999999999999999", "2 2033/02/30 00:00:00", "2 1969/12/31 23:59:59",
                                 "2 10000/01/01 00:00:00", "2 2033/05/18 24:00:00", "2 2033/5", "2 -2033/05/18 00:00:00"}) {
    const LeaseFile file = read_dhcpd_leases(dhcpd_lease("198.18.0.100", "02:00:00:00:00:01", ends));
    EXPECT_TRUE(file.leases.empty()) << ends;
    ASSERT_EQ(file.failures.size(), 1U) << ends;
    EXPECT_TRUE(mentions(file.failures[0], "1970 to 9999")) << ends << ": " << file.failures[0].reason;
  }
  const LeaseFile last = read_dhcpd_leases(dhcpd_lease("198.18.0.100", "02:00:00:00:00:01", "5 9999/12/31 23:59:59"));
  ASSERT_EQ(last.leases.size(), 1U);
  EXPECT_EQ(unix_seconds(*last.leases[0].expires), 253402300799);
}

TEST(DnsmasqDamage, TimesOutOfRangeAreFailures) {
  const LeaseFile file = read_dnsmasq_leases(
      "-5 02:00:00:00:00:01 198.18.0.100 * *\n"
      "99999999999999 02:00:00:00:00:02 198.18.0.101 * *\n"
      "99999999999999999999 02:00:00:00:00:03 198.18.0.102 * *\n"
      "2000003600 02:00:00:00:00:04 198.18.0.103 * *\n");
  ASSERT_EQ(file.failures.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(file.failures[i].line, static_cast<int>(i) + 1);
  EXPECT_TRUE(mentions(file.failures[1], "before 1970 or after 9999"));
  EXPECT_TRUE(mentions(file.failures[2], "bad expiry"));
  ASSERT_EQ(file.leases.size(), 1U);
}

constexpr std::string_view kKeaHeader =
    "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context\n";

TEST(KeaDamage, InfiniteIsByValidLifetimeAndAbsurdTimesAreFailures) {
  const LeaseFile file = read_kea_csv(std::string{kKeaHeader} +
      "198.18.0.100,02:00:00:00:00:01,,4294967295,6059000000,1,0,0,,0,\n"        // infinite
      "198.18.0.101,02:00:00:00:00:02,,4294967294,6058999999,1,0,0,,0,\n"        // 136 years
      "198.18.0.102,02:00:00:00:00:03,,3600,-1,1,0,0,,0,\n"
      "198.18.0.103,02:00:00:00:00:04,,3600,253402300800,1,0,0,,0,\n"
      "198.18.0.104,02:00:00:00:00:05,,-3,2000003600,1,0,0,,0,\n"
      "198.18.0.105,02:00:00:00:00:06,,3600,18446744073709551615,1,0,0,,0,\n");
  ASSERT_EQ(file.leases.size(), 2U);
  EXPECT_FALSE(file.leases[0].expires.has_value());
  EXPECT_EQ(unix_seconds(*file.leases[1].expires), 6058999999);
  ASSERT_EQ(file.failures.size(), 4U);
  EXPECT_EQ(file.failures[0].line, 4);
  EXPECT_TRUE(mentions(file.failures[1], "before 1970 or after 9999"));
  EXPECT_TRUE(mentions(file.failures[2], "bad valid_lifetime"));
  EXPECT_TRUE(mentions(file.failures[3], "bad expire"));
}

TEST(KeaDamage, ARepeatedHeaderIsNoFailure) {  // kea-leases4.csv.2 and .csv joined with cat
  const std::string row = "198.18.0.100,02:00:00:00:00:01,,3600,2000003600,1,0,0,,0,\n";
  const LeaseFile file = read_kea_csv(std::string{kKeaHeader} + row + std::string{kKeaHeader} + row);
  EXPECT_TRUE(file.failures.empty());
  EXPECT_EQ(file.leases.size(), 2U);
}

TEST(LineLimits, AnOverlongLineIsAFailureAndTheNextLinesAreRead) {
  const std::string huge(kMaxLineBytes + 10, 'x');
  const LeaseFile file = read_dnsmasq_leases("2000003600 02:00:00:00:00:01 198.18.0.100 " + huge + " *\n" +
                                             "2000003600 02:00:00:00:00:02 198.18.0.101 * *\n" + huge);
  ASSERT_EQ(file.failures.size(), 2U);
  EXPECT_EQ(file.failures[0].line, 1);
  EXPECT_TRUE(mentions(file.failures[0], "line longer than"));
  EXPECT_EQ(file.failures[1].line, 3);  // a last line without '\n' too
  ASSERT_EQ(file.leases.size(), 1U);
  EXPECT_EQ(file.leases[0].line, 2);
}

TEST(LineLimits, AnEndlessDhcpdStatementIsCutAndReadingResumesAtALease) {
  std::string text = "host h {\n";
  for (int i = 0; i < 40000; ++i) text += "  fixed-address 198.18.0.9 198.18.0.9 198.18.0.9;\n";
  const LeaseFile file = read_dhcpd_leases(text + dhcpd_lease("198.18.0.100", "02:00:00:00:00:01"));
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_TRUE(mentions(file.failures[0], "statement longer than"));
  EXPECT_EQ(file.leases.size(), 1U);
}

TEST(ForeignBytes, RandomBytesGiveNoLeaseAndShowNoRawBytes) {
  std::mt19937 random{31};
  std::string bytes(1 << 20, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  for (const Format format : {Format::KeaCsv, Format::Dhcpd, Format::Dnsmasq}) {
    const LeaseFile file = read_lease_file(format, bytes);
    EXPECT_TRUE(file.leases.empty()) << to_string(format);
    ASSERT_FALSE(file.failures.empty()) << to_string(format);
    for (const LineFailure& failure : file.failures) {
      EXPECT_LE(failure.text.size(), kMaxShownBytes + 3);
      for (const char c : failure.text + failure.reason) {
        EXPECT_TRUE(c >= 0x20 && c < 0x7f) << to_string(format) << ": raw byte " << int{c} << " in a report";
      }
    }
  }
  EXPECT_EQ(read_kea_csv(bytes).failures.size(), 1U) << "a file whose header is not Kea's is one failure";
}

TEST(ForeignBytes, OneFormatReadAsAnotherGivesNoLease) {
  const std::string dnsmasq = "2000003600 02:00:00:00:00:01 198.18.0.100 alpha *\n";
  const std::string dhcpd = dhcpd_lease("198.18.0.100", "02:00:00:00:00:01");
  const std::string kea = std::string{kKeaHeader} + "198.18.0.100,02:00:00:00:00:01,,3600,2000003600,1,0,0,,0,\n";
  for (const auto& [format, text] : std::vector<std::pair<Format, std::string>>{
           {Format::KeaCsv, dnsmasq}, {Format::KeaCsv, dhcpd}, {Format::Dhcpd, dnsmasq},
           {Format::Dhcpd, kea}, {Format::Dnsmasq, dhcpd}, {Format::Dnsmasq, kea}}) {
    const LeaseFile file = read_lease_file(format, text);
    EXPECT_TRUE(file.leases.empty()) << to_string(format) << " of:\n" << text;
    EXPECT_FALSE(file.failures.empty()) << to_string(format) << " of:\n" << text;
  }
}

}  // namespace
}  // namespace landlord::migrate
