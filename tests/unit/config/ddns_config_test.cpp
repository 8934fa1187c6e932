// The `ddns:` section: the shape docs/ddns.md shows, defaults, the key file, and the errors an
// operator gets for each mistake (with its place, never the key file's contents).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

std::string errors_of(std::string_view yaml) {
  const auto loaded = load_string(yaml, "t.yaml");
  return loaded ? std::string{} : format_errors(loaded.error());
}

// A key file in a fresh temp directory, removed with it.
class DdnsConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ddns_config.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream{path} << text;
    return path;
  }
  std::string dir_;
};

constexpr const char* kKey =
    "key \"ddns-key\" {\n\talgorithm hmac-sha256;\n\tsecret \"kVmq9ahFU0CNR2ULBYVfBgdRIfWlxFl2n2aVw5B+eHE=\";\n};\n";

TEST_F(DdnsConfig, TheDocumentedShapeWithItsDefaults) {
  const auto key = write("ddns.key", kKey);
  const auto loaded = load_string("ddns:\n  server: 198.18.0.1\n  key-file: " + key +
                                      "\n  forward-zone: lab.test\n  reverse-zone: 0.18.198.in-addr.arpa\n"
                                      "subnets:\n  - subnet: 198.18.0.0/24\n",
                                  "t.yaml");
  ASSERT_TRUE(loaded) << format_errors(loaded.error());
  const DdnsSection& ddns = loaded->ddns;
  EXPECT_TRUE(ddns.enabled);
  EXPECT_EQ(ddns.settings.server.address, *Ipv4::parse("198.18.0.1"));
  EXPECT_EQ(ddns.settings.server.port, 53);
  EXPECT_EQ(ddns.settings.forward_zone.to_text(), "lab.test.");
  ASSERT_EQ(ddns.settings.reverse_zones.size(), 1u);
  EXPECT_EQ(ddns.settings.reverse_zones[0].to_text(), "0.18.198.in-addr.arpa.");
  ASSERT_TRUE(ddns.settings.key);
  EXPECT_EQ(ddns.settings.key->name.to_text(), "ddns-key.");
  EXPECT_EQ(ddns.settings.key->algorithm, ddns::TsigAlgorithm::kHmacSha256);
  EXPECT_EQ(ddns.settings.key->secret.size(), 32u);
  EXPECT_EQ(ddns.key_file, key);
  EXPECT_EQ(ddns.settings.conflict_mode, ddns::ConflictMode::kCheckWithDhcid);
  EXPECT_DOUBLE_EQ(ddns.settings.ttl.lease_fraction, 1.0 / 3.0);
  EXPECT_FALSE(ddns.settings.ttl.fixed_s);
  EXPECT_TRUE(loaded->subnets[0].ddns);
}

TEST_F(DdnsConfig, WithoutTheSectionNothingIsSent) {
  const auto loaded = load_string("subnets:\n  - subnet: 198.18.0.0/24\n", "t.yaml");
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->ddns.enabled);
}

TEST_F(DdnsConfig, EveryKeySetsItsSetting) {
  const auto key = write("two.key", std::string(kKey) + "key \"other\" { algorithm hmac-sha512; secret \"AAAA\"; };\n");
  const auto loaded = load_string("ddns:\n  server: 198.18.0.1:5353\n  key-file: " + key +
                                      "\n  key-name: other\n  forward-zone: lab.test.\n"
                                      "  reverse-zone: [18.198.in-addr.arpa, 19.198.in-addr.arpa]\n"
                                      "  ttl: 10m\n  ttl-min: 30s\n  ttl-max: 2h\n"
                                      "  conflict-resolution: no-check-with-dhcid\n  override-client-update: true\n"
                                      "  override-no-update: true\n  tcp: true\n  timeout: 500ms\n  max-attempts: 3\n"
                                      "subnets:\n  - subnet: 198.18.0.0/24\n    ddns: {enabled: false}\n"
                                      "  - subnet: 198.18.1.0/24\n",
                                  "t.yaml");
  ASSERT_TRUE(loaded) << format_errors(loaded.error());
  const ddns::Settings& settings = loaded->ddns.settings;
  EXPECT_EQ(settings.server.port, 5353);
  EXPECT_EQ(settings.key->name.to_text(), "other.");
  EXPECT_EQ(settings.key->algorithm, ddns::TsigAlgorithm::kHmacSha512);
  EXPECT_EQ(settings.reverse_zones.size(), 2u);
  EXPECT_EQ(settings.ttl.fixed_s, 600u);
  EXPECT_EQ(settings.ttl.min_s, 30u);
  EXPECT_EQ(settings.ttl.max_s, 7200u);
  EXPECT_EQ(settings.conflict_mode, ddns::ConflictMode::kNoCheckWithDhcid);
  EXPECT_TRUE(settings.override_client_update);
  EXPECT_TRUE(settings.override_no_update);
  EXPECT_TRUE(settings.always_tcp);
  EXPECT_EQ(settings.exchange_timeout, std::chrono::milliseconds{500});
  EXPECT_EQ(settings.max_attempts, 3u);
  EXPECT_FALSE(loaded->subnets[0].ddns);
  EXPECT_TRUE(loaded->subnets[1].ddns);

  const auto percent = load_string("ddns: {server: 198.18.0.1, forward-zone: lab.test, ttl: 25%}\n"
                                   "subnets:\n  - subnet: 198.18.0.0/24\n", "t.yaml");
  ASSERT_TRUE(percent) << format_errors(percent.error());
  EXPECT_DOUBLE_EQ(percent->ddns.settings.ttl.lease_fraction, 0.25);
  EXPECT_FALSE(percent->ddns.settings.key) << "no key-file: unsigned updates";
}

TEST_F(DdnsConfig, MistakesAreErrorsAtTheirPlace) {
  const std::string subnets = "subnets:\n  - subnet: 198.18.0.0/24\n";
  EXPECT_EQ(errors_of("ddns:\n  forward-zone: lab.test\n" + subnets),
            "t.yaml:2:3: 'ddns' needs 'server' (the DNS server that takes the updates)\n");
  EXPECT_EQ(errors_of("ddns:\n  server: 198.18.0.1\n" + subnets),
            "t.yaml:2:3: 'ddns' needs 'forward-zone' (the zone clients' names go in)\n");
  EXPECT_EQ(errors_of("ddns: {server: dns.lab, forward-zone: lab.test}\n" + subnets),
            "t.yaml:1:16: 'server': an IPv4 address, with :PORT when not 53 (e.g. 198.18.0.1)\n");
  EXPECT_EQ(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, reverse-zone: lab.test}\n" + subnets),
            "t.yaml:1:7: 'ddns': reverse-zone 'lab.test.' is not below in-addr.arpa\n");
  EXPECT_EQ(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, key-file: relative.key}\n" + subnets),
            "t.yaml:1:62: 'key-file' must be an absolute path\n");
  EXPECT_EQ(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, conflict-resolution: maybe}\n" + subnets),
            "t.yaml:1:73: 'conflict-resolution': unknown mode 'maybe'; use check-with-dhcid, "
            "check-exists-with-dhcid, no-check-with-dhcid or no-check-without-dhcid\n");
  EXPECT_EQ(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, ttl: 150%}\n" + subnets),
            "t.yaml:1:57: 'ttl': a percentage between 0% and 100% (e.g. 33%) or a duration (e.g. 10m)\n");
  EXPECT_EQ(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, ttl-min: 2h, ttl-max: 1h}\n" + subnets),
            "t.yaml:1:7: 'ddns': ttl: min above max\n");
  EXPECT_EQ(errors_of("subnets:\n  - subnet: 198.18.0.0/24\n    ddns: {enabled: false}\n"),
            "t.yaml:3:5: 'ddns' in subnet 1 (198.18.0.0/24) needs the top-level 'ddns' section (the DNS server and zones)\n");
  EXPECT_NE(errors_of("ddns: {server: 198.18.0.1, forward-zone: lab.test, ttls: 1m}\n" + subnets).find("'ttls'"),
            std::string::npos);
}

TEST_F(DdnsConfig, AKeyFileThatIsMissingMalformedOrAmbiguousIsAnErrorWithItsLine) {
  const std::string subnets = "subnets:\n  - subnet: 198.18.0.0/24\n";
  const auto with_key = [&](const std::string& path, const std::string& extra = "") {
    return errors_of("ddns:\n  server: 198.18.0.1\n  forward-zone: lab.test\n  key-file: " + path + "\n" + extra +
                     subnets);
  };
  EXPECT_EQ(with_key(dir_ + "/absent.key"),
            "t.yaml:4:13: 'key-file' " + dir_ + "/absent.key: cannot open: No such file or directory\n");
  EXPECT_EQ(with_key(dir_), "t.yaml:4:13: 'key-file' " + dir_ + ": is a directory, not a key file\n");
  const auto bad = write("bad.key", "key \"k\" {\n  algorithm hmac-sha256;\n  secret \"***\";\n};\n");
  EXPECT_EQ(with_key(bad), "t.yaml:4:13: 'key-file': " + bad + ":3: secret is not base64\n");
  const auto two = write("two.key", std::string(kKey) + kKey);
  EXPECT_EQ(with_key(two), "t.yaml:4:13: 'key-file': " + two + " holds 2 keys; say which with 'key-name'\n");
  EXPECT_EQ(with_key(two, "  key-name: nobody\n"),
            "t.yaml:5:13: 'key-name': " + two + " has no key 'nobody.'\n");
  // A file that is not a key file (here, lines like /etc/shadow's): its words never come back.
  const auto shadow = write("shadow", "root:$y$j9T$SECRETSALT$HASHHASHHASH:19000:0:99999:7:::\n");
  const std::string error = with_key(shadow);
  EXPECT_EQ(error.find("SECRET"), std::string::npos) << error;
  EXPECT_EQ(error.find("root"), std::string::npos) << error;
  EXPECT_NE(error.find(shadow + ":1: expected a key statement"), std::string::npos) << error;
}

}  // namespace
}  // namespace landlord::config
