// RFC 2136 UPDATE messages: the section layout, each prerequisite and update form (§2.4, §2.5),
// checked against a message BIND's nsupdate sent; and response parsing.
#include <gtest/gtest.h>

#include "landlord/ddns/base64.hpp"
#include "landlord/ddns/message.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::name;

TEST(UpdateMessage, HeaderAndZoneSection) {
  UpdateMessage message;
  message.id = 0x1234;
  message.zone = name("lab.test");
  message.prerequisites.push_back(prerequisite::name_not_in_use(name("alpha.lab.test")));
  message.updates.push_back(update::add(name("alpha.lab.test"), rr_type::kA, 1200, a_rdata(Ipv4(198, 18, 0, 5))));
  const auto bytes = encode(message);
  const std::vector<std::uint8_t> header{0x12, 0x34, 0x28, 0x00, 0, 1, 0, 1, 0, 1, 0, 0};
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 12), header);
  // zone: lab.test SOA IN
  const std::vector<std::uint8_t> zone{3, 'l', 'a', 'b', 4, 't', 'e', 's', 't', 0, 0, 6, 0, 1};
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 12, bytes.begin() + 26), zone);
  // prerequisite NXDOMAIN: class NONE, type ANY, ttl 0, rdlength 0 (RFC 2136 §2.4.5)
  const std::vector<std::uint8_t> nxdomain{0, 0xff, 0, 0xfe, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 26 + 16, bytes.begin() + 26 + 26), nxdomain);
  // update: A IN 1200 rdlength 4 198.18.0.5
  const std::vector<std::uint8_t> add{0, 1, 0, 1, 0, 0, 0x04, 0xb0, 0, 4, 198, 18, 0, 5};
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.end() - 14, bytes.end()), add);
}

TEST(UpdateMessage, PrerequisiteAndUpdateFormsRfc2136) {
  const Name n = name("alpha.lab.test");
  struct Form {
    Record record;
    std::uint16_t type, klass;
    bool has_rdata;
  };
  const std::vector<std::uint8_t> rdata{1, 2, 3};
  const Form forms[] = {
      {prerequisite::name_in_use(n), rr_type::kAny, rr_class::kAny, false},          // §2.4.4
      {prerequisite::name_not_in_use(n), rr_type::kAny, rr_class::kNone, false},     // §2.4.5
      {prerequisite::rrset_exists(n, rr_type::kA), rr_type::kA, rr_class::kAny, false},  // §2.4.1
      {prerequisite::rrset_does_not_exist(n, rr_type::kA), rr_type::kA, rr_class::kNone, false},  // §2.4.3
      {prerequisite::rrset_exists_with(n, rr_type::kDhcid, rdata), rr_type::kDhcid, rr_class::kIn, true},  // §2.4.2
      {update::delete_rrset(n, rr_type::kA), rr_type::kA, rr_class::kAny, false},    // §2.5.2
      {update::delete_rr(n, rr_type::kA, rdata), rr_type::kA, rr_class::kNone, true},  // §2.5.4
  };
  for (const auto& form : forms) {
    EXPECT_EQ(form.record.type, form.type);
    EXPECT_EQ(form.record.klass, form.klass);
    EXPECT_EQ(form.record.ttl, 0u);
    EXPECT_EQ(!form.record.rdata.empty(), form.has_rdata);
  }
  const Record added = update::add(n, rr_type::kA, 600, rdata);  // §2.5.1
  EXPECT_EQ(added.klass, rr_class::kIn);
  EXPECT_EQ(added.ttl, 600u);
}

TEST(UpdateMessage, SameRecordsAsBindNsupdate) {
  // tests/unit/ddns/testdata/nsupdate-hmac-sha256.bin: what `nsupdate -k hmac-sha256.key` sent
  // for: zone lab.test; prereq nxdomain alpha.lab.test; update add alpha.lab.test 1200 A
  // 198.18.0.5; update add alpha.lab.test 1200 DHCID AAAB...= (names compressed by BIND).
  const auto captured = testing::read_testdata("nsupdate-hmac-sha256.bin");
  auto parsed = parse_response(captured);
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_FALSE(parsed->is_response);
  EXPECT_EQ(parsed->opcode, kOpcodeUpdate);
  EXPECT_EQ(parsed->counts[0], 1);
  EXPECT_EQ(parsed->counts[1], 1);
  EXPECT_EQ(parsed->counts[2], 2);
  EXPECT_EQ(parsed->counts[3], 1);
  ASSERT_EQ(parsed->records.size(), 4u);
  const Name alpha = name("alpha.lab.test");
  const auto dhcid = base64_decode("AAABxLmlskllE0MVjd57zHcWmEH3pCQ6VytcKD//7es/deY=");
  ASSERT_TRUE(dhcid.has_value());
  EXPECT_EQ(parsed->records[0], prerequisite::name_not_in_use(alpha));
  EXPECT_EQ(parsed->records[1], update::add(alpha, rr_type::kA, 1200, a_rdata(Ipv4(198, 18, 0, 5))));
  EXPECT_EQ(parsed->records[2], update::add(alpha, rr_type::kDhcid, 1200, *dhcid));
  ASSERT_TRUE(parsed->tsig.has_value());
  EXPECT_EQ(parsed->tsig->name, name("vector-key"));

  // Ours, with BIND's id, differs only in compression: same length once BIND's pointers
  // are expanded, and parses to the same records.
  UpdateMessage ours;
  ours.id = parsed->id;
  ours.zone = name("lab.test");
  ours.prerequisites = {parsed->records[0]};
  ours.updates = {parsed->records[1], parsed->records[2]};
  auto reparsed = parse_response(encode(ours));
  ASSERT_TRUE(reparsed.has_value()) << reparsed.error();
  EXPECT_EQ(reparsed->id, parsed->id);
  EXPECT_EQ(std::vector<Record>(parsed->records.begin(), parsed->records.begin() + 3), reparsed->records);
}

std::vector<std::uint8_t> response_header(std::uint16_t id, std::uint16_t flags) {
  return {static_cast<std::uint8_t>(id >> 8), static_cast<std::uint8_t>(id), static_cast<std::uint8_t>(flags >> 8),
          static_cast<std::uint8_t>(flags), 0, 0, 0, 0, 0, 0, 0, 0};
}

TEST(Response, RcodeIdAndTruncation) {
  // QR=1, opcode UPDATE, rcode YXDOMAIN (6)
  auto parsed = parse_response(response_header(0xbeef, 0x8000 | 5 << 11 | 6));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->id, 0xbeef);
  EXPECT_TRUE(parsed->is_response);
  EXPECT_EQ(parsed->opcode, kOpcodeUpdate);
  EXPECT_EQ(parsed->rcode, Rcode::kYxDomain);
  EXPECT_FALSE(parsed->truncated);
  parsed = parse_response(response_header(1, 0x8000 | 5 << 11 | 0x0200 | 2));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->truncated);
  EXPECT_EQ(parsed->rcode, Rcode::kServFail);
  EXPECT_STREQ(rcode_name(Rcode::kNotAuth), "NOTAUTH");
}

TEST(Response, HostileBytesAreErrors) {
  EXPECT_FALSE(parse_response(std::vector<std::uint8_t>(11, 0)).has_value());
  auto header = response_header(1, 0x8000);
  header[7] = 1;  // one answer record, absent
  EXPECT_FALSE(parse_response(header).has_value());
  header = response_header(1, 0x8000);
  header.push_back(0);  // trailing byte
  EXPECT_FALSE(parse_response(header).has_value());
  // 65535 claimed records in a 12-byte message: refused at once.
  header = response_header(1, 0x8000);
  header[6] = header[7] = 0xff;
  EXPECT_FALSE(parse_response(header).has_value());
  // A TSIG record that is not last.
  std::vector<std::uint8_t> message = response_header(1, 0x8000);
  message[11] = 2;
  const std::vector<std::uint8_t> tsig{0, 0, 250, 0, 255, 0, 0, 0, 0, 0, 0};
  const std::vector<std::uint8_t> a{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  message.insert(message.end(), tsig.begin(), tsig.end());
  message.insert(message.end(), a.begin(), a.end());
  EXPECT_FALSE(parse_response(message).has_value());
}

}  // namespace
}  // namespace landlord::ddns
