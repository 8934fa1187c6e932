// The three lease file readers on files in each server's own format (as Kea 2.2, ISC dhcpd
// 4.4 and dnsmasq 2.89 write them), including the parts that are not leases.
#include <gtest/gtest.h>

#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {
namespace {

constexpr std::string_view kKea =
    "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context\n"
    "198.18.0.100,02:00:00:00:00:01,01:02:00:00:00:00:01,3600,2000003600,1,0,0,alpha,0,\n"
    "198.18.0.101,02:00:00:00:00:02,,3600,2000003600,1,0,0,b&#x2cc,1,\n"
    "198.18.0.102,02:00:00:00:00:03,,3600,2000003600,1,0,0,,2,\n"
    "198.18.0.100,02:00:00:00:00:01,01:02:00:00:00:00:01,3600,2000007200,1,0,0,alpha,0,\n";

TEST(KeaCsv, ReadsRowsByTheHeadersColumns) {
  const LeaseFile file = read_kea_csv(kKea);
  ASSERT_TRUE(file.failures.empty()) << file.failures.front().reason;
  EXPECT_TRUE(file.journal);
  ASSERT_EQ(file.leases.size(), 4U);
  const ForeignLease& first = file.leases[0];
  EXPECT_EQ(first.address.to_string(), "198.18.0.100");
  EXPECT_EQ(first.hardware.to_string(), "02:00:00:00:00:01");
  EXPECT_EQ(first.client_id.to_string(), "01:02:00:00:00:00:01");
  EXPECT_EQ(first.hostname, "alpha");
  EXPECT_EQ(unix_seconds(*first.expires), 2000003600);
  EXPECT_TRUE(first.active);
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(file.leases[1].hostname, "b,c");  // Kea's escaped comma
  EXPECT_FALSE(file.leases[1].active);        // declined
  EXPECT_TRUE(file.leases[1].client_id.empty());
  EXPECT_FALSE(file.leases[2].active);        // expired-reclaimed
}

TEST(KeaCsv, LaterKeaColumnsAndOrderAreFollowed) {  // Kea 2.4 adds pool_id
  const LeaseFile file = read_kea_csv(
      "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context,pool_id\n"
      "198.18.0.100,02:00:00:00:00:01,,3600,2000003600,1,0,0,,0,,0\n");
  ASSERT_TRUE(file.failures.empty());
  ASSERT_EQ(file.leases.size(), 1U);
}

// Kea's fqdn_fwd/fqdn_rev with the hostname: the name Kea put in DNS, kept as the lease's fqdn.
TEST(LeaseFile, KeaNameInDnsIsKept) {
  const LeaseFile file = read_kea_csv(
      "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state\n"
      "198.18.0.100,02:00:00:00:00:01,,3600,2000003600,1,1,0,Host-1.Lab.Example.,0\n"
      "198.18.0.101,02:00:00:00:00:02,,3600,2000003600,1,0,0,plain,0\n");
  ASSERT_TRUE(file.failures.empty());
  ASSERT_EQ(file.leases.size(), 2U);
  EXPECT_EQ(file.leases[0].fqdn, "host-1.lab.example");
  EXPECT_EQ(file.leases[0].dns_sides, (lease::DnsSides{true, false}));
  EXPECT_EQ(file.leases[0].hostname, "Host-1.Lab.Example.");
  EXPECT_EQ(file.leases[1].fqdn, "");
  EXPECT_FALSE(file.leases[1].dns_sides.any());
}

TEST(KeaCsv, BadRowsAreFailuresWithTheirLine) {
  const LeaseFile file = read_kea_csv(
      "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context\n"
      "198.18.0.300,02:00:00:00:00:01,,3600,2000003600,1,0,0,,0,\n"
      "198.18.0.100,02:00:00:00:00:01,,3600,soon,1,0,0,,0,\n");
  ASSERT_EQ(file.failures.size(), 2U);
  EXPECT_EQ(file.failures[0].line, 2);
  EXPECT_NE(file.failures[0].reason.find("bad address"), std::string::npos);
  EXPECT_EQ(file.failures[1].line, 3);
  EXPECT_TRUE(file.leases.empty());
}

TEST(KeaCsv, ANonKeaFileIsRefused) {
  const LeaseFile file = read_kea_csv("1764629000 02:00:00:00:00:01 198.18.0.100 * *\n");
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_NE(file.failures[0].reason.find("not a Kea lease4 file"), std::string::npos);
}

constexpr std::string_view kDhcpd = R"(# The format of this file is documented in the dhcpd.leases(5) manual page.
# This lease file was written by isc-dhcp-4.4.3-P1

# authoring-byte-order entry is generated, DO NOT DELETE
authoring-byte-order little-endian;

server-duid "\000\001\000\001,\352\234\252\002\000\000\000\000\001";

lease 198.18.0.100 {
  starts 2 2026/12/01 21:00:00;
  ends 2 2033/05/18 03:33:20;
  cltt 2 2026/12/01 21:00:00;
  binding state active;
  next binding state free;
  rewind binding state free;
  hardware ethernet 02:00:00:00:00:01;
  uid "\001\002\000\000\000\000\001";
  set vendor-class-identifier = "udhcp 1.35.0";
  client-hostname "alpha";
}
lease 198.18.0.101 {
  starts 2 2026/12/01 21:00:00;
  ends epoch 2000003600; # Wed May 18 04:33:20 2033
  binding state free;
  hardware ethernet 02:00:00:00:00:02;
  on expiry { set x = "y"; }
}
host fixed {
  dynamic;
  hardware ethernet 02:00:00:00:00:09;
  fixed-address 198.18.0.9;
}
lease 198.18.0.102 {
  ends never;
  binding state active;
  hardware ethernet 02:00:00:00:00:03;
  uid 01:02:00:00:00:00:03;
}
)";

TEST(DhcpdLeases, ReadsLeaseBlocksAndSkipsTheRest) {
  const LeaseFile file = read_dhcpd_leases(kDhcpd);
  ASSERT_TRUE(file.failures.empty()) << file.failures.front().reason;
  EXPECT_TRUE(file.journal);
  EXPECT_EQ(file.ignored, 1U);  // the host block
  ASSERT_EQ(file.leases.size(), 3U);
  const ForeignLease& first = file.leases[0];
  EXPECT_EQ(first.address.to_string(), "198.18.0.100");
  EXPECT_EQ(first.line, 9);
  EXPECT_EQ(unix_seconds(*first.expires), 2000000000);  // 2033/05/18 03:33:20 UTC
  EXPECT_TRUE(first.active);
  EXPECT_EQ(first.hardware.to_string(), "02:00:00:00:00:01");
  EXPECT_EQ(first.client_id.to_string(), "01:02:00:00:00:00:01");  // octal escapes
  EXPECT_EQ(first.hostname, "alpha");
  EXPECT_EQ(unix_seconds(*file.leases[1].expires), 2000003600);  // ends epoch
  EXPECT_FALSE(file.leases[1].active);
  EXPECT_EQ(file.leases[1].state, "free");
  EXPECT_FALSE(file.leases[2].expires.has_value());  // ends never
  EXPECT_EQ(file.leases[2].client_id.to_string(), "01:02:00:00:00:00:03");
}

// dhcpd's DDNS names: the forward name is the lease's fqdn, the reverse name says PTR is there.
TEST(DhcpdLeases, NameInDnsIsKept) {
  const LeaseFile file = read_dhcpd_leases(
      "lease 198.18.0.100 {\n  ends epoch 2000003600;\n  binding state active;\n"
      "  hardware ethernet 02:00:00:00:00:01;\n  client-hostname \"Alpha\";\n"
      "  set ddns-rev-name = \"100.0.18.198.in-addr.arpa.\";\n"
      "  set ddns-fwd-name = \"Alpha.Lab.Example\";\n}\n"
      "lease 198.18.0.101 {\n  ends epoch 2000003600;\n  binding state active;\n"
      "  hardware ethernet 02:00:00:00:00:02;\n}\n");
  ASSERT_TRUE(file.failures.empty()) << file.failures.front().reason;
  ASSERT_EQ(file.leases.size(), 2U);
  EXPECT_EQ(file.leases[0].hostname, "Alpha");
  EXPECT_EQ(file.leases[0].fqdn, "alpha.lab.example");
  EXPECT_EQ(file.leases[0].dns_sides, (lease::DnsSides{true, true}));
  EXPECT_EQ(file.leases[1].fqdn, "");
  EXPECT_FALSE(file.leases[1].dns_sides.any());
}

TEST(DhcpdLeases, AnUnreadableBlockIsAFailure) {
  const LeaseFile file = read_dhcpd_leases(
      "lease 198.18.0.100 {\n  ends 2 2033/05/18;\n  binding state active;\n}\n"
      "lease 198.18.0.101 {\n  hardware token-ring 02:00:00:00:00:02;\n}\n");
  ASSERT_EQ(file.failures.size(), 2U);
  EXPECT_EQ(file.failures[0].line, 1);
  EXPECT_EQ(file.failures[1].line, 5);
  EXPECT_NE(file.failures[1].reason.find("token-ring"), std::string::npos);
}

constexpr std::string_view kDnsmasq =
    "2000003600 02:00:00:00:00:01 198.18.0.100 alpha 01:02:00:00:00:00:01\n"
    "0 02:00:00:00:00:02 198.18.0.101 * *\n"
    "duid 00:01:00:01:2c:ea:9c:aa:02:00:00:00:00:01\n"
    "2000003600 1234 2001:db8::10 host6 00:01:00:01:2c:ea:9c:aa:02:00:00:00:00:05\n";

TEST(DnsmasqLeases, ReadsIpv4LinesAndCountsIpv6) {
  const LeaseFile file = read_dnsmasq_leases(kDnsmasq);
  ASSERT_TRUE(file.failures.empty()) << file.failures.front().reason;
  EXPECT_FALSE(file.journal);
  EXPECT_EQ(file.ignored, 1U);
  ASSERT_EQ(file.leases.size(), 2U);
  EXPECT_EQ(file.leases[0].hostname, "alpha");
  EXPECT_EQ(file.leases[0].client_id.to_string(), "01:02:00:00:00:00:01");
  EXPECT_EQ(unix_seconds(*file.leases[0].expires), 2000003600);
  EXPECT_TRUE(file.leases[1].hostname.empty());
  EXPECT_TRUE(file.leases[1].client_id.empty());
  EXPECT_FALSE(file.leases[1].expires.has_value());  // 0: infinite
}

TEST(DnsmasqLeases, AShortLineIsAFailure) {
  const LeaseFile file = read_dnsmasq_leases("2000003600 02:00:00:00:00:01\n");
  ASSERT_EQ(file.failures.size(), 1U);
  EXPECT_EQ(file.failures[0].line, 1);
}

}  // namespace
}  // namespace landlord::migrate
