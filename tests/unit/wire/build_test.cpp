#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "landlord/wire/message.hpp"

namespace landlord::wire {
namespace {

using Bytes = std::vector<std::uint8_t>;
Bytes bytes_of(std::span<const std::uint8_t> span) { return {span.begin(), span.end()}; }

constexpr std::uint8_t kSentinel = 0xee;

// An ACK as the engine would make one, with `extra` options of the given sizes after the usual.
Message ack(std::initializer_list<std::pair<std::uint8_t, std::size_t>> extra = {}) {
  Message message;
  message.op = Op::BootReply;
  message.xid = 0xcafe0001;
  message.yiaddr = Ipv4(198, 18, 0, 100);
  message.chaddr = {0x02, 0, 0, 0, 0, 0x10};
  EXPECT_TRUE(message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(MessageType::Ack)));
  EXPECT_TRUE(message.options.set_ipv4(option::kServerId, Ipv4(198, 18, 0, 1)));
  EXPECT_TRUE(message.options.set_u32(option::kLeaseTime, 3600));
  EXPECT_TRUE(message.options.set_u32(option::kRenewalTime, 1800));
  EXPECT_TRUE(message.options.set_u32(option::kRebindingTime, 3150));
  EXPECT_TRUE(message.options.set_ipv4(option::kSubnetMask, Ipv4(255, 255, 255, 0)));
  EXPECT_TRUE(message.options.set_ipv4(option::kRouters, Ipv4(198, 18, 0, 1)));
  for (const auto& [code, size] : extra) {
    EXPECT_TRUE(message.options.set(code, Bytes(size, code)));
  }
  return message;
}

struct Built {
  Bytes buffer;  // the whole buffer, sentinel beyond the limit
  BuildResult result;
  Message reparsed;
};

// Builds into `limit` bytes of a larger buffer, so any write past the limit shows.
Built build_within(const Message& message, std::size_t limit) {
  Bytes buffer(limit + 64, kSentinel);
  const auto result = build(message, std::span<std::uint8_t>(buffer).first(limit));
  EXPECT_TRUE(result);
  if (!result) return {};
  EXPECT_LE(result->size, limit);
  EXPECT_TRUE(std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(limit), buffer.end(),
                          [](std::uint8_t byte) { return byte == kSentinel; }))
      << "wrote past the limit";
  const auto reparsed = parse(std::span<const std::uint8_t>(buffer).first(result->size));
  EXPECT_TRUE(reparsed) << (reparsed ? "" : to_string(reparsed.error().kind));
  if (!reparsed) return {};
  return {buffer, *result, *reparsed};
}

TEST(Build, RoundTripsHeaderAndOptions) {
  Message message = ack({{200, 3}});
  message.hops = 2;
  message.secs = 9;
  message.flags = kBroadcastFlag;
  message.ciaddr = Ipv4(198, 18, 0, 50);
  message.siaddr = Ipv4(198, 18, 0, 2);
  message.giaddr = Ipv4(198, 18, 1, 1);
  message.sname[0] = 'n';
  message.file[0] = 'f';
  const Built built = build_within(message, 576);
  EXPECT_EQ(built.result.size, kMinMessageSize);  // padded to the BOOTP minimum
  EXPECT_EQ(built.result.overload, 0);
  EXPECT_EQ(built.reparsed, message);
}

TEST(Build, PadsOnlyAsFarAsTheBufferAllows) {
  const Built built = build_within(ack(), 290);
  EXPECT_EQ(built.result.size, 290u);
  EXPECT_EQ(built.reparsed, ack());
}

TEST(Build, LongMessagesAreNotPadded) {
  const Built built = build_within(ack({{43, 200}}), 1500);
  EXPECT_GT(built.result.size, kMinMessageSize);
  EXPECT_EQ(built.buffer[built.result.size - 1], option::kEnd);
}

TEST(Build, SplitsValuesLongerThan255IntoInstances) {
  const Message message = ack({{43, 600}});
  const Built built = build_within(message, 1500);
  EXPECT_EQ(built.reparsed, message);
  // 43 is written as 255 + 255 + 90 bytes, back to back.
  const Bytes first_instance{43, 255};
  const auto at = std::search(built.buffer.begin(), built.buffer.end(), first_instance.begin(),
                              first_instance.end());
  ASSERT_NE(at, built.buffer.end());
  EXPECT_EQ(at[257], 43);
  EXPECT_EQ(at[258], 255);
  EXPECT_EQ(at[514], 43);
  EXPECT_EQ(at[515], 90);
}

TEST(Build, WritesZeroLengthOptions) {
  Message message = ack();
  ASSERT_TRUE(message.options.set(80, {}));
  const Built built = build_within(message, 576);
  EXPECT_TRUE(built.reparsed.options.has(80));
  EXPECT_EQ(built.reparsed, message);
}

TEST(Build, RelayAgentInformationGoesLastWhateverItsPlace) {
  Message message;
  ASSERT_TRUE(message.options.set_u8(option::kMessageType, 2));
  const Bytes relay_info{1, 2, 'e', '0', 2, 1, 'r'};
  ASSERT_TRUE(message.options.set(option::kRelayAgentInfo, relay_info));
  ASSERT_TRUE(message.options.set_u32(option::kLeaseTime, 60));
  const Built built = build_within(message, 576);
  EXPECT_EQ(bytes_of(built.reparsed.options.codes()), (Bytes{53, 51, 82}));
  EXPECT_EQ(bytes_of(built.reparsed.options.get(option::kRelayAgentInfo)), relay_info);
  // ... immediately before END.
  EXPECT_EQ(built.buffer[240 + 3 + 6], option::kRelayAgentInfo);
  EXPECT_EQ(built.buffer[240 + 3 + 6 + 2 + relay_info.size()], option::kEnd);
}

TEST(Build, OverloadOptionSetByTheCallerIsIgnored) {
  Message message = ack();
  ASSERT_TRUE(message.options.set_u8(option::kOverload, 3));
  const Built built = build_within(message, 576);
  EXPECT_EQ(built.result.overload, 0);
  EXPECT_FALSE(built.reparsed.options.has(option::kOverload));
}

// Option 57: the caller sizes `out` by reply_size_limit(client's 57).
TEST(ReplySizeLimit, CountsIpAndUdpHeadersAndClampsTo576) {
  EXPECT_EQ(reply_size_limit(std::nullopt), 548u);
  EXPECT_EQ(reply_size_limit(576), 548u);
  EXPECT_EQ(reply_size_limit(300), 548u);  // below the legal minimum: treated as 576
  EXPECT_EQ(reply_size_limit(1500), 1472u);
  EXPECT_EQ(reply_size_limit(65535), kMaxPacketSize);
}

struct LimitCase {
  const char* name;
  std::size_t limit;
  std::size_t big_option_size;  // option 43, after the usual ACK options
  std::uint8_t overload;        // expected option 52
  std::size_t omitted;
};

class BuildWithinLimit : public ::testing::TestWithParam<LimitCase> {};

TEST_P(BuildWithinLimit, OverloadsOrOmitsAsNeeded) {
  const LimitCase& param = GetParam();
  Message message = ack({{43, param.big_option_size}});
  ASSERT_TRUE(message.options.set_text(option::kDomainName, "lab.test"));
  const Built built = build_within(message, param.limit);
  EXPECT_EQ(built.result.overload, param.overload) << param.name;
  EXPECT_EQ(built.result.omitted, param.omitted) << param.name;
  EXPECT_EQ(built.reparsed.type(), MessageType::Ack);
  EXPECT_EQ(built.reparsed.options.has(43), param.omitted == 0) << param.name;
  for (const std::uint8_t code : built.reparsed.options.codes()) {
    EXPECT_EQ(bytes_of(built.reparsed.options.get(code)), bytes_of(message.options.get(code)));
  }
  EXPECT_EQ(built.reparsed.options.size() + built.result.omitted, message.options.size());
}

// The ACK's other options take 3 + 6 * 6 + 10 = 49 bytes; the options field of a 548-byte
// message has 308 (minus END).
INSTANTIATE_TEST_SUITE_P(
    Table, BuildWithinLimit,
    ::testing::Values(
        LimitCase{"fits_576", 548, 200, 0, 0},
        LimitCase{"overflows_576_into_file", 548, 257, 1, 0},  // 43 ends the options field
        LimitCase{"long_split_over_options_and_file", 548, 300, 1, 0},
        LimitCase{"long_split_into_sname_too", 548, 420, 3, 0},
        LimitCase{"too_long_for_576_is_omitted", 548, 600, 0, 1},
        LimitCase{"same_fits_1500", 1472, 600, 0, 0},
        LimitCase{"small_limit_300", 300, 100, 1, 0},
        LimitCase{"small_limit_300_too_big", 300, 255, 0, 1},
        LimitCase{"larger_than_anything", kMaxPacketSize, 2000, 0, 0}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// RFC 3396 §5/§6 with RFC 2131's 576-octet default (no option 57): a 190-byte domain name that
// no field holds whole (163 bytes left in the options field, 127 in file, 63 in sname) is split
// into two instances, the first ending the options field and the second in `file`, and the
// parser joins them back (RFC 3396 §7: options, then file, then sname).
TEST(Rfc3396, A576OctetReplySplitsA190ByteOptionRatherThanDropIt) {
  Message message = ack({{43, 100}});
  const std::string domain(190, 'd');
  ASSERT_TRUE(message.options.set_text(option::kDomainName, domain));
  const Built built = build_within(message, reply_size_limit(std::nullopt));
  EXPECT_EQ(built.result.omitted, 0u);
  EXPECT_EQ(built.result.overload, 1);  // file only
  EXPECT_EQ(built.reparsed.options.get_text(option::kDomainName), domain);
  EXPECT_EQ(bytes_of(built.reparsed.options.get(43)), Bytes(100, 43));
  // Two instances of 15: one in the options field, one in file.
  std::size_t in_options = 0, in_file = 0;
  for (std::size_t at = 240; at + 1 < built.result.size && built.buffer[at] != option::kEnd;
       at += 2 + built.buffer[at + 1]) {
    if (built.buffer[at] == option::kDomainName) in_options += built.buffer[at + 1];
  }
  if (built.buffer[108] == option::kDomainName) in_file = built.buffer[109];
  EXPECT_GT(in_options, 0u);
  EXPECT_EQ(in_options + in_file, domain.size());
}

// RFC 3396 §6 still prefers a whole instance: an option that fits one field is not split.
TEST(Rfc3396, AnOptionThatFitsAFieldWholeIsNotSplit) {
  Message message = ack({{43, 200}});
  ASSERT_TRUE(message.options.set(44, Bytes(100, 44)));
  const Built built = build_within(message, 548);
  EXPECT_EQ(built.result.omitted, 0u);
  EXPECT_EQ(built.buffer[108], 44);  // whole in file
  EXPECT_EQ(built.buffer[109], 100);
}

TEST(BuildOverload, KeepsANamedFileAndUsesOnlySname) {
  Message message = ack({{43, 40}, {44, 40}});
  const char boot_file[] = "pxelinux.0";
  std::copy(std::begin(boot_file), std::end(boot_file), message.file.begin());
  // 260 bytes: 20 in the options field; 43 and 44 need sname, file is taken.
  const Built built = build_within(message, 260);
  EXPECT_EQ(built.result.overload, 2);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(built.reparsed.file.data())), "pxelinux.0");
  EXPECT_GT(built.result.omitted, 0u);  // sname alone cannot hold everything
  EXPECT_EQ(built.reparsed.type(), MessageType::Ack);
}

TEST(BuildOverload, RelayInfoStaysInTheOptionsFieldBeforeEnd) {
  Message message = ack({{43, 100}});
  const Bytes relay_info{1, 4, 'p', 'o', 'r', 't'};
  ASSERT_TRUE(message.options.set(option::kRelayAgentInfo, relay_info));
  const Built built = build_within(message, 280);
  EXPECT_NE(built.result.overload, 0);
  // The options field holds no 255 before its END here (no mask or 0xff values in it).
  const auto end_at = std::find(built.buffer.begin() + 240, built.buffer.begin() + 280, option::kEnd);
  ASSERT_NE(end_at, built.buffer.begin() + 280);
  EXPECT_EQ(*(end_at - static_cast<std::ptrdiff_t>(2 + relay_info.size())), option::kRelayAgentInfo);
  EXPECT_EQ(bytes_of(built.reparsed.options.get(option::kRelayAgentInfo)), relay_info);
  EXPECT_EQ(built.result.omitted, 0u);
}

TEST(BuildOverload, NoOverloadOptionWhenNothingWentToTheFields) {
  // Too big for everything, 43 is dropped; the rest fits the options field, so no 52.
  const Message message = ack({{43, 1000}});
  const Built built = build_within(message, 548);
  EXPECT_EQ(built.result.omitted, 1u);
  EXPECT_EQ(built.result.overload, 0);
  EXPECT_EQ(built.buffer[240], option::kMessageType);
  EXPECT_EQ(built.reparsed.options.size(), message.options.size() - 1);
}

TEST(BuildErrors, RefusesABufferWithoutRoomForHeaderAndEnd) {
  Bytes buffer(240);
  const auto result = build(ack(), buffer);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, BuildError::Kind::BufferTooSmall);
}

TEST(BuildErrors, FailsRatherThanDropTheMessageType) {
  Bytes buffer(243);  // header, cookie, 3 bytes: 53 needs 3 plus END
  const auto result = build(ack(), buffer);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, BuildError::Kind::MessageTypeDoesNotFit);
  Bytes enough(244);
  const auto squeezed = build(ack(), enough);
  ASSERT_TRUE(squeezed);
  EXPECT_EQ(squeezed->omitted, ack().options.size() - 1);
  const auto reparsed = parse(enough);
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(reparsed->type(), MessageType::Ack);
}

}  // namespace
}  // namespace landlord::wire
