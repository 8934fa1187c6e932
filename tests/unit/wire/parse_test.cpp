#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "landlord/wire/message.hpp"
#include "raw_packet.hpp"

namespace landlord::wire {
namespace {

using test::kCookieAt;
using test::kFileAt;
using test::kOptionsAt;
using test::kSnameAt;
using test::put;
using test::raw_packet;

std::vector<std::uint8_t> bytes_of(std::span<const std::uint8_t> span) {
  return {span.begin(), span.end()};
}

TEST(Parse, ReadsHeaderFieldsAndOptions) {
  auto packet = raw_packet({53, 1, 3, 50, 4, 198, 18, 0, 7, 12, 2, 'p', 'c', 255});
  packet[3] = 1;                                     // hops
  put(packet, 8, {0x00, 0x05, 0x80, 0x00});          // secs 5, broadcast flag
  put(packet, 12, {198, 18, 0, 7});                  // ciaddr
  put(packet, 24, {198, 18, 1, 1});                  // giaddr
  put(packet, kSnameAt, {'s', 'r', 'v'});
  const auto message = parse(packet);
  ASSERT_TRUE(message) << to_string(message.error().kind);
  EXPECT_EQ(message->op, Op::BootRequest);
  EXPECT_EQ(message->hops, 1);
  EXPECT_EQ(message->xid, 0x01020304u);
  EXPECT_EQ(message->secs, 5);
  EXPECT_TRUE(message->broadcast());
  EXPECT_EQ(message->ciaddr, Ipv4(198, 18, 0, 7));
  EXPECT_EQ(message->giaddr, Ipv4(198, 18, 1, 1));
  EXPECT_EQ(message->hardware_address().to_string(), "02:00:00:00:00:01");
  EXPECT_EQ(message->sname[0], 's');
  EXPECT_EQ(message->type(), MessageType::Request);
  EXPECT_EQ(message->options.get_ipv4(option::kRequestedAddress), Ipv4(198, 18, 0, 7));
  EXPECT_EQ(message->options.get_text(option::kHostname), "pc");
  EXPECT_TRUE(message->client_id().empty());
}

TEST(Parse, ReportsBootReplyAsData) {
  // The simulator parses server replies, so op 2 parses; the engine is the one to drop it.
  auto packet = raw_packet({53, 1, 2, 255});
  packet[0] = 2;
  const auto message = parse(packet);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->op, Op::BootReply);
  EXPECT_EQ(message->type(), MessageType::Offer);
}

TEST(Parse, ClientIdIsOption61Verbatim) {
  const auto message = parse(raw_packet({53, 1, 1, 61, 3, 0, 'i', 'd', 255}));
  ASSERT_TRUE(message);
  EXPECT_EQ(message->client_id().to_string(), "00:69:64");
  EXPECT_NE(message->client_key(), ClientKey::from({}, message->hardware_address()));
}

TEST(Parse, ToleratesMissingEndWhenTheLastOptionEndsThePacket) {
  const auto message = parse(raw_packet({53, 1, 1, 12, 2, 'p', 'c'}));
  ASSERT_TRUE(message) << to_string(message.error().kind);
  EXPECT_EQ(message->options.get_text(option::kHostname), "pc");
}

TEST(Parse, IgnoresBytesAfterEnd) {
  const auto message = parse(raw_packet({53, 1, 1, 255, 0xde, 0xad, 0xbe, 0xef, 12}));
  ASSERT_TRUE(message);
  EXPECT_EQ(message->options.size(), 1u);
}

TEST(Parse, PadBetweenOptionsIsSkipped) {
  const auto message = parse(raw_packet({0, 0, 53, 1, 8, 0, 12, 1, 'h', 0, 255}));
  ASSERT_TRUE(message);
  EXPECT_EQ(message->type(), MessageType::Inform);
  EXPECT_EQ(bytes_of(message->options.codes()), (std::vector<std::uint8_t>{53, 12}));
}

TEST(Parse, AcceptsSixteenByteHardwareAddress) {
  auto packet = raw_packet({53, 1, 1, 255});
  packet[2] = 16;
  const auto message = parse(packet);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->hardware_address().length(), 16);
}

TEST(Parse, UnknownOptionsAreKept) {
  const auto message = parse(raw_packet({53, 1, 1, 200, 3, 1, 2, 3, 145, 1, 1, 255}));
  ASSERT_TRUE(message);
  EXPECT_EQ(bytes_of(message->options.get(200)), (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(bytes_of(message->options.codes()), (std::vector<std::uint8_t>{53, 200, 145}));
}

TEST(Parse, ParseIntoReusesTheMessageWithoutLeftovers) {
  Message message;
  ASSERT_FALSE(parse_into(raw_packet({53, 1, 1, 12, 1, 'a', 61, 1, 9, 255}), message));
  ASSERT_FALSE(parse_into(raw_packet({53, 1, 3, 255}), message));
  EXPECT_EQ(message.options.size(), 1u);
  EXPECT_FALSE(message.options.has(option::kHostname));
  EXPECT_EQ(message.type(), MessageType::Request);
}

struct Malformed {
  std::string name;
  std::function<std::vector<std::uint8_t>()> packet;
  ParseError::Kind kind;
  std::size_t offset;
};

std::vector<std::uint8_t> with(std::vector<std::uint8_t> packet, std::size_t at, std::uint8_t value) {
  packet.at(at) = value;
  return packet;
}

// A packet overloading `file` (52 = 1) whose file field holds `file_options`.
std::vector<std::uint8_t> overloaded_file(std::initializer_list<std::uint8_t> file_options) {
  auto packet = raw_packet({52, 1, 1, 53, 1, 1, 255});
  put(packet, kFileAt, file_options);
  return packet;
}

class ParseMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(ParseMalformed, IsATypedErrorWithOffset) {
  const auto& param = GetParam();
  const auto packet = param.packet();
  const auto result = parse(packet);
  ASSERT_FALSE(result) << param.name;
  EXPECT_EQ(result.error().kind, param.kind)
      << param.name << ": " << to_string(result.error().kind);
  EXPECT_EQ(result.error().offset, param.offset) << param.name;
  EXPECT_FALSE(to_string(result.error().kind).empty());
}

using Kind = ParseError::Kind;
INSTANTIATE_TEST_SUITE_P(
    Table, ParseMalformed,
    ::testing::Values(
        Malformed{"empty", [] { return std::vector<std::uint8_t>{}; }, Kind::TooShort, 0},
        Malformed{"header without cookie",
                  [] {
                    auto packet = raw_packet({});
                    packet.resize(239);
                    return packet;
                  },
                  Kind::TooShort, 239},
        Malformed{"more than kMaxPacketSize",
                  [] {
                    auto packet = raw_packet({53, 1, 1, 255});
                    packet.resize(kMaxPacketSize + 1, 0);
                    return packet;
                  },
                  Kind::TooLong, kMaxPacketSize},
        Malformed{"op 0", [] { return with(raw_packet({53, 1, 1, 255}), 0, 0); }, Kind::BadOp, 0},
        Malformed{"op 3", [] { return with(raw_packet({53, 1, 1, 255}), 0, 3); }, Kind::BadOp, 0},
        Malformed{"hlen 17", [] { return with(raw_packet({53, 1, 1, 255}), 2, 17); },
                  Kind::BadHardwareLength, 2},
        Malformed{"hlen 255", [] { return with(raw_packet({53, 1, 1, 255}), 2, 255); },
                  Kind::BadHardwareLength, 2},
        Malformed{"bad cookie", [] { return with(raw_packet({53, 1, 1, 255}), kCookieAt + 3, 98); },
                  Kind::BadCookie, kCookieAt},
        Malformed{"option length past the end", [] { return raw_packet({53, 1, 1, 12, 5, 'a', 'b'}); },
                  Kind::OptionOverrun, kOptionsAt + 3},
        Malformed{"code without length byte", [] { return raw_packet({53, 1, 1, 12}); },
                  Kind::OptionOverrun, kOptionsAt + 3},
        Malformed{"message type length past the end", [] { return raw_packet({53, 2, 1}); },
                  Kind::OptionOverrun, kOptionsAt},
        Malformed{"file option running into the cookie",
                  [] {
                    auto packet = overloaded_file({});
                    put(packet, kFileAt + 120, {12, 10, 'a'});
                    return packet;
                  },
                  Kind::OptionOverrun, kFileAt + 120},
        Malformed{"overloaded file without END",
                  [] {
                    auto packet = overloaded_file({});
                    for (std::size_t i = 0; i < 128; i += 4) put(packet, kFileAt + i, {200, 2, 1, 1});
                    return packet;
                  },
                  Kind::MissingEnd, kFileAt + 128},
        Malformed{"overloaded file that is all PAD", [] { return overloaded_file({}); },
                  Kind::MissingEnd, kFileAt + 128},
        Malformed{"overload value 0", [] { return raw_packet({52, 1, 0, 53, 1, 1, 255}); },
                  Kind::BadOverload, kOptionsAt},
        Malformed{"overload value 4", [] { return raw_packet({53, 1, 1, 52, 1, 4, 255}); },
                  Kind::BadOverload, kOptionsAt + 3},
        Malformed{"overload length 2", [] { return raw_packet({52, 2, 1, 0, 53, 1, 1, 255}); },
                  Kind::BadOverload, kOptionsAt},
        Malformed{"overload given twice", [] { return raw_packet({52, 1, 1, 52, 1, 1, 53, 1, 1, 255}); },
                  Kind::BadOverload, kOptionsAt + 3},
        Malformed{"overload inside the file field", [] { return overloaded_file({52, 1, 2, 255}); },
                  Kind::BadOverload, kFileAt},
        Malformed{"no message type", [] { return raw_packet({12, 1, 'a', 255}); },
                  Kind::MissingMessageType, kOptionsAt},
        Malformed{"no options at all", [] { return raw_packet({}); }, Kind::MissingMessageType,
                  kOptionsAt},
        Malformed{"message type 0", [] { return raw_packet({12, 1, 'a', 53, 1, 0, 255}); },
                  Kind::MissingMessageType, kOptionsAt + 3},
        Malformed{"message type 9", [] { return raw_packet({53, 1, 9, 255}); },
                  Kind::MissingMessageType, kOptionsAt},
        Malformed{"message type of two bytes", [] { return raw_packet({53, 2, 1, 1, 255}); },
                  Kind::MissingMessageType, kOptionsAt},
        Malformed{"message type split in two (joins to 2 bytes)",
                  [] { return raw_packet({53, 1, 1, 12, 1, 'a', 53, 1, 1, 255}); },
                  Kind::MissingMessageType, kOptionsAt}),
    [](const auto& test_info) {
      std::string name;
      for (const char c : test_info.param.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(ParseOverload, JoinsOptionsFieldThenFileThenSname) {
  auto packet = raw_packet({53, 1, 1, 52, 1, 3, 12, 2, 'a', 'b', 255});
  put(packet, kFileAt, {12, 2, 'c', 'd', 66, 3, 't', 'f', 't', 255});
  put(packet, kSnameAt, {0, 12, 1, 'e', 67, 1, 'x', 255});
  const auto message = parse(packet);
  ASSERT_TRUE(message) << to_string(message.error().kind) << " at " << message.error().offset;
  EXPECT_EQ(message->options.get_text(option::kHostname), "abcde");
  EXPECT_EQ(message->options.get_text(66), "tft");
  EXPECT_EQ(message->options.get_text(67), "x");
  EXPECT_FALSE(message->options.has(option::kOverload));  // framing, consumed by the parser
  EXPECT_EQ(bytes_of(message->options.codes()), (std::vector<std::uint8_t>{53, 12, 66, 67}));
  // Overloaded fields held options, not names.
  EXPECT_EQ(message->file, decltype(message->file){});
  EXPECT_EQ(message->sname, decltype(message->sname){});
}

TEST(ParseOverload, OnlyTheNamedFieldIsReadAsOptions) {
  auto packet = raw_packet({53, 1, 1, 52, 1, 2, 255});
  put(packet, kSnameAt, {12, 1, 'h', 255});
  put(packet, kFileAt, {'p', 'x', 'e', 'l', 'i', 'n', 'u', 'x'});
  const auto message = parse(packet);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->options.get_text(option::kHostname), "h");
  EXPECT_EQ(message->file[0], 'p');  // not overloaded: still the boot file name
  EXPECT_EQ(message->sname, decltype(message->sname){});
}

TEST(ParseOverload, MessageTypeMayLiveInFile) {
  const auto message = parse(overloaded_file({0, 0, 53, 1, 7, 255}));
  // overloaded_file also has 53 in the options field: the two instances join to 2 bytes.
  ASSERT_FALSE(message);
  auto packet = raw_packet({52, 1, 1, 255});
  put(packet, kFileAt, {53, 1, 7, 255});
  const auto released = parse(packet);
  ASSERT_TRUE(released);
  EXPECT_EQ(released->type(), MessageType::Release);
}

TEST(ParseLongOptions, JoinsSplitInstancesInOrder) {
  // RFC 3396: instances of one code, wherever they are, are concatenated in order.
  std::vector<std::uint8_t> first(255, 'a');
  std::vector<std::uint8_t> second(45, 'b');
  auto packet = raw_packet({53, 1, 1, 43, 255});
  packet.insert(packet.end(), first.begin(), first.end());
  packet.insert(packet.end(), {12, 1, 'h', 43, 45});
  packet.insert(packet.end(), second.begin(), second.end());
  packet.push_back(255);
  const auto message = parse(packet);
  ASSERT_TRUE(message);
  const auto joined = message->options.get(43);
  ASSERT_EQ(joined.size(), 300u);
  EXPECT_EQ(joined[254], 'a');
  EXPECT_EQ(joined[255], 'b');
  EXPECT_EQ(bytes_of(message->options.codes()), (std::vector<std::uint8_t>{53, 43, 12}));
}

TEST(ParseLongOptions, ZeroLengthInstancesJoinToNothing) {
  const auto message = parse(raw_packet({53, 1, 1, 80, 0, 80, 0, 255}));
  ASSERT_TRUE(message);
  EXPECT_TRUE(message->options.has(80));
  EXPECT_TRUE(message->options.get(80).empty());
  EXPECT_EQ(message->options.size(), 2u);
}

TEST(ParseLimits, LargestPacketOfOptionsParses) {
  // kMaxPacketSize bytes of 2-byte options with every field overloaded: the storage holds it.
  auto packet = raw_packet({53, 1, 1, 52, 1, 3});
  while (packet.size() + 2 <= kMaxPacketSize) packet.insert(packet.end(), {1, 0});
  for (std::size_t i = 0; i + 2 <= 126; i += 2) put(packet, kFileAt + i, {2, 0});
  put(packet, kFileAt + 126, {255});
  for (std::size_t i = 0; i + 2 <= 62; i += 2) put(packet, kSnameAt + i, {3, 0});
  put(packet, kSnameAt + 62, {255});
  const auto message = parse(packet);
  ASSERT_TRUE(message) << to_string(message.error().kind);
  EXPECT_EQ(message->options.size(), 4u);
}

TEST(ParseErrorNames, EveryKindAndTypeHasAName) {
  for (int kind = 0; kind <= static_cast<int>(Kind::MissingMessageType); ++kind) {
    EXPECT_NE(to_string(static_cast<Kind>(kind)), "unknown parse error") << kind;
  }
  EXPECT_EQ(to_string(MessageType::Discover), "DHCPDISCOVER");
  EXPECT_EQ(to_string(MessageType::Inform), "DHCPINFORM");
  EXPECT_EQ(to_string(MessageType::Nak), "DHCPNAK");
}

}  // namespace
}  // namespace landlord::wire
