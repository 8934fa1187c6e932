// The limits of a config file (src/config/limits.hpp) and the mistakes the parser alone would
// explain badly: each refused with FILE:LINE:COLUMN and what to do about it.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "landlord/config/loader.hpp"

namespace landlord::config {
namespace {

std::string hex(int byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return {kDigits[(byte >> 4) & 15], kDigits[byte & 15]};
}

std::string errors_of(const std::string& yaml) {
  const auto loaded = load_string(yaml, "t.yaml");
  return loaded ? std::string{} : format_errors(loaded.error());
}

TEST(ConfigLimits, APoolLargerThanASlashEightIsRefused) {
  // A /1 pool was accepted and would have asked the allocator for 2^31 addresses.
  EXPECT_EQ(errors_of("subnets:\n  - subnet: 0.0.0.0/1\n    pools: [0.0.0.1-127.255.255.254]\n"),
            "t.yaml:3:13: pool 0.0.0.1-127.255.255.254 has 2147483646 addresses; a pool holds at "
            "most 16777216 (a /8)\n");
  EXPECT_EQ(errors_of("subnets:\n  - subnet: 10.0.0.0/8\n    pools: [10.0.0.1-10.255.255.254]\n"), "");
}

TEST(ConfigLimits, AllPoolsTogetherAreLimited) {
  EXPECT_EQ(errors_of("subnets:\n"
                      "  - subnet: 10.0.0.0/8\n    pools: [10.0.0.1-10.255.255.254]\n"
                      "  - subnet: 11.0.0.0/24\n    pools: [11.0.0.1-11.0.0.10]\n"),
            "t.yaml:5:13: pool 11.0.0.1-11.0.0.10 brings the pools to 16777224 addresses in all, "
            "more than the 16777216 a server holds\n");
}

TEST(ConfigLimits, SubnetsPoolsAndReservationsAreCounted) {
  std::string yaml = "subnets:\n";
  for (int i = 0; i < 4097; ++i) {
    yaml += "  - {subnet: 10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24}\n";
  }
  EXPECT_EQ(errors_of(yaml),
            "t.yaml:4098:5: 4097 subnets in the file, more than the 4096 allowed; the rest are "
            "not read\n");

  std::string pools = "subnets:\n  - subnet: 10.0.0.0/16\n    pools:\n";
  for (int i = 0; i < 257; ++i) pools += "      - 10.0." + std::to_string(i % 256) + ".1-10.0." + std::to_string(i % 256) + ".1\n";
  EXPECT_NE(errors_of(pools).find("t.yaml:260:9: 257 pools in subnet 1 (10.0.0.0/16), more than "
                                  "the 256 allowed"),
            std::string::npos)
      << errors_of(pools);

  std::string reservations = "subnets:\n  - subnet: 10.0.0.0/8\n    reservations:\n";
  for (int i = 0; i < 65537; ++i) {  // 02:00:00:00:HH:LL at 10.1.HH.LL, all distinct
    const std::string low = std::to_string(i % 256);
    reservations += "      - {mac: \"02:00:00:" + hex(i >> 16) + ":" + hex(i >> 8) + ":" +
                    hex(i) + "\", address: 10." + std::to_string(1 + i / 65536) + "." +
                    std::to_string(i / 256 % 256) + "." + low + "}\n";
  }
  EXPECT_NE(errors_of(reservations).find("t.yaml:65540:9: 65537 reservations in subnet 1 "
                                         "(10.0.0.0/8), more than the 65536 allowed"),
            std::string::npos);
}

TEST(ConfigLimits, DeepNestingIsRefusedBeforeTheParserSeesIt) {
  EXPECT_EQ(errors_of("subnets: " + std::string(100000, '[') + "\n"),
            "t.yaml:1:1: nested deeper than 32 levels of maps and lists; a landlord config needs "
            "6 at most\n");
  std::string block = "subnets:\n";
  for (int level = 1; level < 40; ++level) block += std::string(2 * level, ' ') + "a:\n";
  EXPECT_NE(errors_of(block).find("nested deeper than 32 levels"), std::string::npos);
  // Brackets inside quotes and comments are text, not nesting.
  EXPECT_EQ(errors_of("# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
                      "subnets: [{subnet: 198.18.0.0/24, interfaces: []}]  # " + std::string(40, '{') + "\n"
                      "server: {server-id: 198.18.0.1}\n"),
            "");
}

TEST(ConfigLimits, TabsInTheIndentationAreExplained) {
  EXPECT_EQ(errors_of("subnets:\n\t- subnet: 198.18.0.0/24\n"),
            "t.yaml:2:1: a tab in the indentation: YAML indents with spaces only (a tab's width "
            "is not defined); replace it with spaces\n");
}

TEST(ConfigLimits, MergeKeysAreRefusedWithAReason) {
  const std::string errors = errors_of(
      "subnets:\n  - &base {subnet: 198.18.0.0/24}\n  - <<: *base\n    subnet: 198.18.1.0/24\n");
  EXPECT_EQ(errors,
            "t.yaml:3:5: YAML merge keys ('<<') are not supported: write the keys out; for settings "
            "shared by all subnets use the top-level 'lease' and 'options', which every subnet "
            "inherits\n");
}

TEST(ConfigLimits, AtMostTwentyErrorsArePrintedThenACount) {
  std::string yaml = "subnets:\n  - subnet: 198.18.0.0/24\n    pools:\n";
  for (int i = 0; i < 25; ++i) yaml += "      - nonsense\n";
  const auto loaded = load_string(yaml, "t.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().size(), 25u);  // all kept for callers; only the printing stops
  const std::string printed = format_errors(loaded.error());
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 21) << printed;
  EXPECT_NE(printed.find("t.yaml: 5 more errors not shown (25 in all)\n"), std::string::npos)
      << printed;
}

TEST(ConfigLimits, ALargeFileIsRefusedBySize) {
  const std::string huge(17 * 1024 * 1024, '#');
  EXPECT_EQ(errors_of(huge), "t.yaml: the file is 17825792 bytes, more than a config file may "
                             "be (16777216)\n");
}

class ConfigFiles : public testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("landlord-limits-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::filesystem::path directory_;
};

TEST_F(ConfigFiles, ADirectoryIsNamedAsSuch) {
  const auto loaded = load_file(directory_.string());
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(format_errors(loaded.error()), directory_.string() + ": is a directory, not a config file\n");
}

TEST_F(ConfigFiles, AnUnreadableFileIsNamedAsSuch) {
  const auto path = directory_ / "secret.yaml";
  std::ofstream{path} << "subnets: [{subnet: 198.18.0.0/24}]\n";
  ::chmod(path.c_str(), 0);
  // Root reads any file (CAP_DAC_OVERRIDE): as root, read it as nobody, as the daemon's user would.
  const bool root = ::geteuid() == 0;
  if (root) {
    ::chmod(directory_.c_str(), 0755);
    ASSERT_EQ(::seteuid(65534), 0);
  }
  const bool readable = ::faccessat(AT_FDCWD, path.c_str(), R_OK, AT_EACCESS) == 0;
  const auto loaded = load_file(path.string());
  if (root) {
    ASSERT_EQ(::seteuid(0), 0);
  }
  ASSERT_FALSE(readable);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(format_errors(loaded.error()),
            path.string() + ": cannot be read: permission denied (the file exists)\n");
}

TEST_F(ConfigFiles, AMissingFileSaysSo) {
  const auto loaded = load_file((directory_ / "none.yaml").string());
  ASSERT_FALSE(loaded.has_value());
  EXPECT_NE(format_errors(loaded.error()).find("cannot open: No such file or directory"),
            std::string::npos);
}

}  // namespace
}  // namespace landlord::config
