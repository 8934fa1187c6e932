// The client's name: option 81 (RFC 4702), option 12 and a reservation's hostname, sanitised
// (RFC 1123), qualified, and the server's decision with the reply's option 81.
#include <gtest/gtest.h>

#include "landlord/ddns/fqdn.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::name;

std::vector<std::uint8_t> wire_option(std::uint8_t flags, std::initializer_list<const char*> labels, bool full) {
  std::vector<std::uint8_t> data{flags, 0, 0};
  for (const char* label : labels) {
    data.push_back(static_cast<std::uint8_t>(std::string_view(label).size()));
    data.insert(data.end(), label, label + std::string_view(label).size());
  }
  if (full) data.push_back(0);
  return data;
}

std::vector<std::uint8_t> ascii_option(std::uint8_t flags, std::string_view text) {
  std::vector<std::uint8_t> data{flags, 0, 0};
  data.insert(data.end(), text.begin(), text.end());
  return data;
}

Settings lab() {
  Settings settings;
  settings.forward_zone = name("lab.test");
  settings.reverse_zones = {name("18.198.in-addr.arpa")};
  return settings;
}

TEST(ClientFqdn, WireFormFullAndPartialRfc4702Section2_5) {
  auto full = parse_client_fqdn(wire_option(ClientFqdn::kFlagS | ClientFqdn::kFlagE, {"alpha", "lab", "test"}, true));
  ASSERT_TRUE(full.has_value()) << full.error();
  EXPECT_TRUE(full->s());
  EXPECT_TRUE(full->e());
  EXPECT_TRUE(full->fully_qualified);
  EXPECT_EQ(full->labels, (std::vector<std::string>{"alpha", "lab", "test"}));
  auto partial = parse_client_fqdn(wire_option(ClientFqdn::kFlagE, {"alpha"}, false));
  ASSERT_TRUE(partial.has_value());
  EXPECT_FALSE(partial->fully_qualified);
  EXPECT_EQ(partial->labels, (std::vector<std::string>{"alpha"}));
  // Encoding gives the same bytes back.
  EXPECT_EQ(encode_client_fqdn(*full), wire_option(ClientFqdn::kFlagS | ClientFqdn::kFlagE, {"alpha", "lab", "test"}, true));
  EXPECT_EQ(encode_client_fqdn(*partial), wire_option(ClientFqdn::kFlagE, {"alpha"}, false));
}

TEST(ClientFqdn, AsciiFormTrailingDotIsFull) {
  auto full = parse_client_fqdn(ascii_option(ClientFqdn::kFlagS, "alpha.lab.test."));
  ASSERT_TRUE(full.has_value());
  EXPECT_FALSE(full->e());
  EXPECT_TRUE(full->fully_qualified);
  EXPECT_EQ(full->labels.size(), 3u);
  auto partial = parse_client_fqdn(ascii_option(0, "alpha"));
  ASSERT_TRUE(partial.has_value());
  EXPECT_FALSE(partial->fully_qualified);
  auto empty = parse_client_fqdn(ascii_option(ClientFqdn::kFlagS, ""));
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->labels.empty());
  EXPECT_EQ(encode_client_fqdn(*full), ascii_option(ClientFqdn::kFlagS, "alpha.lab.test."));
}

TEST(ClientFqdn, MalformedOptionsAreErrors) {
  EXPECT_FALSE(parse_client_fqdn(std::vector<std::uint8_t>{ClientFqdn::kFlagS, 0}).has_value());
  // N and S together (RFC 4702 §2.1: S must be 0 when N is 1).
  EXPECT_FALSE(parse_client_fqdn(wire_option(ClientFqdn::kFlagS | ClientFqdn::kFlagN, {}, false)).has_value());
  // A compression pointer, a label past the end, bytes after the root.
  EXPECT_FALSE(parse_client_fqdn(std::vector<std::uint8_t>{ClientFqdn::kFlagE, 0, 0, 0xc0, 0x00}).has_value());
  EXPECT_FALSE(parse_client_fqdn(std::vector<std::uint8_t>{ClientFqdn::kFlagE, 0, 0, 5, 'a'}).has_value());
  EXPECT_FALSE(parse_client_fqdn(std::vector<std::uint8_t>{ClientFqdn::kFlagE, 0, 0, 1, 'a', 0, 1, 'b'}).has_value());
  // A label of 64 bytes in ASCII form.
  EXPECT_FALSE(parse_client_fqdn(ascii_option(0, std::string(64, 'a') + ".lab")).has_value());
}

TEST(Sanitise, Rfc1123Labels) {
  EXPECT_EQ(sanitise_label("Alpha"), "alpha");
  EXPECT_EQ(sanitise_label("my_laptop"), "mylaptop");
  EXPECT_EQ(sanitise_label("-edge-"), "edge");
  EXPECT_EQ(sanitise_label("$(rm -rf)"), "rm-rf");
  EXPECT_EQ(sanitise_label("caf\xc3\xa9"), "caf");
  EXPECT_FALSE(sanitise_label("---").has_value());
  EXPECT_FALSE(sanitise_label("\xc3\xa9\xc3\xa9").has_value());
  EXPECT_FALSE(sanitise_label("").has_value());
  EXPECT_TRUE(sanitise_label(std::string(63, 'a')).has_value());
  EXPECT_FALSE(sanitise_label(std::string(64, 'a')).has_value());
  // Dropping invalid bytes can bring a long label under the limit.
  EXPECT_EQ(sanitise_label(std::string(63, 'a') + "_"), std::string(63, 'a'));
}

Expected<Name, std::string> qualify_text(const std::string& text) {
  bool full = false;
  const auto labels = split_labels(text, full);
  return qualify(labels, full, name("lab.test"));
}

TEST(Qualify, PartialNamesGetTheForwardZone) {
  EXPECT_EQ(qualify_text("alpha")->to_text(), "alpha.lab.test.");
  EXPECT_EQ(qualify_text("Alpha.LAB.test")->to_text(), "alpha.lab.test.");
  EXPECT_EQ(qualify_text("host.other.org.")->to_text(), "host.other.org.");
  EXPECT_EQ(qualify_text("a.b")->to_text(), "a.b.lab.test.");
  EXPECT_FALSE(qualify_text("a..b").has_value());
  EXPECT_FALSE(qualify_text("").has_value());
  // 253 characters is the limit of a name in text (255 in wire form).
  const std::string l63(63, 'x');
  EXPECT_FALSE(qualify_text(l63 + "." + l63 + "." + l63 + "." + std::string(60, 'y')).has_value());
  EXPECT_TRUE(qualify_text(l63 + "." + l63 + "." + l63 + "." + std::string(52, 'y')).has_value());
}

TEST(DecideName, OptionSWithPartialNameServerDoesBothRfc4702Section4) {
  const auto option = wire_option(ClientFqdn::kFlagS | ClientFqdn::kFlagE, {"alpha"}, false);
  const NameDecision decision = decide_name(lab(), {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_EQ(decision.source, NameSource::kClientFqdn);
  ASSERT_TRUE(decision.fqdn.has_value());
  EXPECT_EQ(decision.fqdn->to_text(), "alpha.lab.test.");
  EXPECT_TRUE(decision.forward);
  EXPECT_TRUE(decision.reverse);
  ASSERT_TRUE(decision.reply_fqdn.has_value());
  // Reply: S=1, O=0, E as the client's, N=0, RCODEs 255, the full name in wire form.
  EXPECT_EQ(encode_client_fqdn(*decision.reply_fqdn),
            (std::vector<std::uint8_t>{ClientFqdn::kFlagS | ClientFqdn::kFlagE, 255, 255, 5, 'a', 'l', 'p', 'h', 'a',
                                       3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0}));
}

TEST(DecideName, SZeroClientDoesTheAServerThePtrUnlessOverridden) {
  const auto option = wire_option(ClientFqdn::kFlagE, {"alpha", "lab", "test"}, true);
  Settings settings = lab();
  NameDecision decision = decide_name(settings, {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_FALSE(decision.forward);
  EXPECT_TRUE(decision.reverse);
  EXPECT_EQ(decision.reply_fqdn->flags, ClientFqdn::kFlagE);  // S=0, O=0, N=0
  settings.override_client_update = true;
  decision = decide_name(settings, {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_TRUE(decision.forward);
  EXPECT_EQ(decision.reply_fqdn->flags, ClientFqdn::kFlagE | ClientFqdn::kFlagS | ClientFqdn::kFlagO);
}

TEST(DecideName, NFlagMeansNoUpdateUnlessOverridden) {
  const auto option = ascii_option(ClientFqdn::kFlagN, "alpha");
  Settings settings = lab();
  NameDecision decision = decide_name(settings, {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_FALSE(decision.forward);
  EXPECT_FALSE(decision.reverse);
  EXPECT_EQ(decision.reply_fqdn->flags, ClientFqdn::kFlagN);
  auto expected = ascii_option(ClientFqdn::kFlagN, "alpha.lab.test.");
  expected[1] = expected[2] = 255;
  EXPECT_EQ(encode_client_fqdn(*decision.reply_fqdn), expected);
  settings.override_no_update = true;
  decision = decide_name(settings, {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_TRUE(decision.forward);
  EXPECT_TRUE(decision.reverse);
  EXPECT_EQ(decision.reply_fqdn->flags, ClientFqdn::kFlagS | ClientFqdn::kFlagO);
}

TEST(DecideName, HostnameOption12AndReservationFallback) {
  NameDecision decision = decide_name(lab(), {std::nullopt, std::string_view("Beta"), std::string_view("ignored")});
  EXPECT_EQ(decision.source, NameSource::kHostname);
  EXPECT_EQ(decision.fqdn->to_text(), "beta.lab.test.");
  EXPECT_TRUE(decision.forward && decision.reverse);
  EXPECT_EQ(decision.reply_hostname, "beta");
  EXPECT_FALSE(decision.reply_fqdn.has_value());
  decision = decide_name(lab(), {std::nullopt, std::nullopt, std::string_view("printer")});
  EXPECT_EQ(decision.source, NameSource::kReservation);
  EXPECT_EQ(decision.fqdn->to_text(), "printer.lab.test.");
  decision = decide_name(lab(), {std::nullopt, std::nullopt, std::nullopt});
  EXPECT_EQ(decision.source, NameSource::kNone);
  EXPECT_FALSE(decision.forward || decision.reverse);
}

TEST(DecideName, EmptyOption81LeavesTheNameToTheServer) {
  const auto option = wire_option(ClientFqdn::kFlagS | ClientFqdn::kFlagE, {}, false);
  const NameDecision decision =
      decide_name(lab(), {std::span<const std::uint8_t>(option), std::string_view("gamma"), std::nullopt});
  EXPECT_EQ(decision.source, NameSource::kClientFqdn);
  EXPECT_EQ(decision.fqdn->to_text(), "gamma.lab.test.");
  EXPECT_EQ(decision.reply_fqdn->labels, (std::vector<std::string>{"gamma", "lab", "test"}));
}

TEST(DecideName, HostileNamesAreNotSentAndSayWhy) {
  for (const std::string& hostile : {std::string("---"), std::string("a..b"), std::string("\xc3\xa9\xc3\xa9"),
                                    std::string(64, 'a'), std::string(".")}) {
    const NameDecision decision = decide_name(lab(), {std::nullopt, std::string_view(hostile), std::nullopt});
    EXPECT_FALSE(decision.fqdn.has_value()) << hostile;
    EXPECT_FALSE(decision.forward || decision.reverse) << hostile;
    EXPECT_FALSE(decision.problem.empty()) << hostile;
  }
  // A malformed option 81 falls back to the hostname, and says so.
  const std::vector<std::uint8_t> broken{ClientFqdn::kFlagS | ClientFqdn::kFlagN, 0, 0};
  const NameDecision decision =
      decide_name(lab(), {std::span<const std::uint8_t>(broken), std::string_view("delta"), std::nullopt});
  EXPECT_EQ(decision.source, NameSource::kHostname);
  EXPECT_EQ(decision.fqdn->to_text(), "delta.lab.test.");
  EXPECT_EQ(decision.problem, "option 81: N and S both set");
}

TEST(DecideName, FullNameOutsideTheForwardZoneGetsNoARecord) {
  const auto option = ascii_option(ClientFqdn::kFlagS, "host.other.org.");
  const NameDecision decision = decide_name(lab(), {std::span<const std::uint8_t>(option), std::nullopt, std::nullopt});
  EXPECT_TRUE(decision.outside_zone);
  EXPECT_FALSE(decision.forward);
  EXPECT_TRUE(decision.reverse);
  EXPECT_EQ(decision.reply_fqdn->flags, ClientFqdn::kFlagO);  // S refused: O set
}

}  // namespace
}  // namespace landlord::ddns
