// TSIG (RFC 8945) against BIND: messages nsupdate signed with keys tsig-keygen made, for every
// algorithm tsig-keygen offers, verify with our code and re-sign to the same bytes.
#include <gtest/gtest.h>

#include "landlord/base/big_endian.hpp"
#include "landlord/ddns/base64.hpp"
#include "landlord/ddns/tsig.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::name;

TsigKey load_key(const std::string& file) {
  auto keys = parse_key_file(testing::read_text(file), file);
  EXPECT_TRUE(keys.has_value()) << (keys ? "" : keys.error());
  return keys.has_value() ? keys->front() : TsigKey{};
}

class NsupdateVector : public ::testing::TestWithParam<const char*> {};

TEST_P(NsupdateVector, VerifiesAndResignsToTheSameBytes) {
  const std::string algorithm = GetParam();
  const TsigKey key = load_key(algorithm + ".key");
  EXPECT_STREQ(tsig_algorithm_text(key.algorithm), algorithm.c_str());
  const auto captured = testing::read_testdata("nsupdate-" + algorithm + ".bin");
  auto message = parse_response(captured);
  ASSERT_TRUE(message.has_value()) << message.error();
  ASSERT_TRUE(message->tsig.has_value());
  const auto fields = parse_tsig_rdata(message->tsig->rdata);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->algorithm, tsig_algorithm_name(key.algorithm));
  EXPECT_EQ(fields->mac.size(), tsig_mac_size(key.algorithm));
  const std::int64_t signed_at = fields->time_signed_s;

  EXPECT_EQ(tsig_verify(captured, *message, key, std::nullopt, signed_at), TsigResult::kOk);
  EXPECT_EQ(tsig_verify(captured, *message, key, std::nullopt, signed_at + 300), TsigResult::kOk);
  EXPECT_EQ(tsig_verify(captured, *message, key, std::nullopt, signed_at + 301), TsigResult::kBadTime);
  EXPECT_EQ(tsig_verify(captured, *message, key, std::nullopt, signed_at - 301), TsigResult::kBadTime);

  // The unsigned message with ARCOUNT 0, signed again at the same time: BIND's exact bytes.
  std::vector<std::uint8_t> unsigned_message(captured.begin(), captured.begin() + static_cast<long>(message->tsig_offset));
  store_be16(&unsigned_message[10], 0);
  const auto resigned = tsig_sign(unsigned_message, key, signed_at, fields->fudge_s);
  EXPECT_EQ(resigned.bytes, captured);
  EXPECT_EQ(resigned.mac, fields->mac);

  // One bit of the body changed: the MAC no longer verifies.
  auto tampered = captured;
  tampered[message->tsig_offset - 1] ^= 1;
  auto tampered_message = parse_response(tampered);
  ASSERT_TRUE(tampered_message.has_value());
  EXPECT_EQ(tsig_verify(tampered, *tampered_message, key, std::nullopt, signed_at), TsigResult::kBadSignature);

  // Another secret: bad signature; another key name: the wrong key.
  TsigKey other = key;
  other.secret[0] ^= 0xff;
  EXPECT_EQ(tsig_verify(captured, *message, other, std::nullopt, signed_at), TsigResult::kBadSignature);
  other = key;
  other.name = name("other-key");
  EXPECT_EQ(tsig_verify(captured, *message, other, std::nullopt, signed_at), TsigResult::kWrongKey);
}

INSTANTIATE_TEST_SUITE_P(TsigKeygenAlgorithms, NsupdateVector,
                         ::testing::Values("hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256",
                                           "hmac-sha384", "hmac-sha512"),
                         [](const auto& parameter) {
                           std::string text = parameter.param;
                           for (auto& c : text) c = c == '-' ? '_' : c;
                           return text;
                         });

std::vector<std::uint8_t> response_to(std::uint16_t id, Rcode rcode) {
  UpdateMessage message;
  message.id = id;
  message.zone = name("lab.test");
  auto bytes = encode(message);
  bytes[2] = static_cast<std::uint8_t>(0x80 | kOpcodeUpdate << 3);
  bytes[3] = static_cast<std::uint8_t>(rcode);
  return bytes;
}

TEST(TsigResponse, SignedOverTheRequestMac) {
  const TsigKey key = load_key("hmac-sha256.key");
  UpdateMessage request;
  request.id = 77;
  request.zone = name("lab.test");
  const auto signed_request = tsig_sign(encode(request), key, 1'800'000'000);
  const auto response = tsig_sign(response_to(77, Rcode::kNoError), key, 1'800'000'001, 300,
                                  std::span<const std::uint8_t>(signed_request.mac));
  auto parsed = parse_response(response.bytes);
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_EQ(tsig_verify(response.bytes, *parsed, key, std::span<const std::uint8_t>(signed_request.mac), 1'800'000'002),
            TsigResult::kOk);
  // The same response offered as the answer to another request does not verify.
  std::vector<std::uint8_t> other_mac = signed_request.mac;
  other_mac[0] ^= 1;
  EXPECT_EQ(tsig_verify(response.bytes, *parsed, key, std::span<const std::uint8_t>(other_mac), 1'800'000'002),
            TsigResult::kBadSignature);
  // An unsigned response to a signed request.
  const auto bare = response_to(77, Rcode::kNoError);
  auto bare_parsed = parse_response(bare);
  EXPECT_EQ(tsig_verify(bare, *bare_parsed, key, std::span<const std::uint8_t>(signed_request.mac), 1'800'000'002),
            TsigResult::kUnsigned);
}

TEST(TsigResponse, ServerErrorsBadKeyBadSigBadTime) {
  const TsigKey key = load_key("hmac-sha256.key");
  const std::vector<std::uint8_t> request_mac(32, 0xab);
  // BADKEY and BADSIG: RFC 8945 §5.3.2, the TSIG record carries the error and an empty MAC.
  for (const auto& [error, expected] : {std::pair{Rcode::kBadKey, TsigResult::kServerBadKey},
                                       std::pair{Rcode::kBadSig, TsigResult::kServerBadSig}}) {
    auto bytes = response_to(9, Rcode::kNotAuth);
    std::vector<std::uint8_t> rdata;
    const Name algorithm = tsig_algorithm_name(key.algorithm);
    rdata.insert(rdata.end(), algorithm.wire().begin(), algorithm.wire().end());
    const std::vector<std::uint8_t> rest{0, 0, 0x6b, 0x49, 0xd2, 0, 1, 0x2c, 0, 0, 0, 9, 0,
                                         static_cast<std::uint8_t>(error), 0, 0};
    rdata.insert(rdata.end(), rest.begin(), rest.end());
    append_record(bytes, Record{key.name, rr_type::kTsig, rr_class::kAny, 0, rdata});
    bytes[11] = 1;
    auto parsed = parse_response(bytes);
    ASSERT_TRUE(parsed.has_value()) << parsed.error();
    EXPECT_EQ(tsig_verify(bytes, *parsed, key, std::span<const std::uint8_t>(request_mac), 1'800'000'000), expected);
  }
  // BADTIME is signed (§5.2.3): verified, then reported.
  const auto signed_badtime = tsig_sign(response_to(9, Rcode::kNotAuth), key, 1'800'000'000, 300,
                                        std::span<const std::uint8_t>(request_mac),
                                        static_cast<std::uint16_t>(Rcode::kBadTime));
  auto parsed = parse_response(signed_badtime.bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(tsig_verify(signed_badtime.bytes, *parsed, key, std::span<const std::uint8_t>(request_mac), 1'800'000'000),
            TsigResult::kServerBadTime);
}

TEST(KeyFile, TsigKeygenOutputAndComments) {
  auto keys = parse_key_file(
      "# made by tsig-keygen\nkey \"ddns-key.lab\" {\n\talgorithm hmac-sha512; // the default is sha256\n"
      "\tsecret \"AAECAw==\";\n};\n/* a second\n key */ key other { algorithm HMAC-MD5.SIG-ALG.REG.INT; secret \"BA==\"; };\n",
      "ddns.key");
  ASSERT_TRUE(keys.has_value()) << keys.error();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].name.to_text(), "ddns-key.lab.");
  EXPECT_EQ((*keys)[0].algorithm, TsigAlgorithm::kHmacSha512);
  EXPECT_EQ((*keys)[0].secret, (std::vector<std::uint8_t>{0, 1, 2, 3}));
  EXPECT_EQ((*keys)[1].algorithm, TsigAlgorithm::kHmacMd5);
  EXPECT_EQ((*keys)[1].secret, (std::vector<std::uint8_t>{4}));
}

TEST(KeyFile, ErrorsNameTheFileAndLine) {
  const auto error = [](const char* text) {
    auto keys = parse_key_file(text, "/etc/landlord/ddns.key");
    EXPECT_FALSE(keys.has_value()) << text;
    return keys.has_value() ? std::string() : keys.error();
  };
  EXPECT_EQ(error("key \"k\" {\n algorithm hmac-sha999;\n secret \"AA==\";\n};"),
            "/etc/landlord/ddns.key:2: unknown algorithm 'hmac-sha999' (hmac-md5, hmac-sha1, "
            "hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512)");
  EXPECT_EQ(error("key \"k\" {\n algorithm hmac-sha256;\n secret \"not base64!\";\n};"),
            "/etc/landlord/ddns.key:3: secret is not base64");
  EXPECT_EQ(error("key \"k\" { algorithm hmac-sha256; };"), "/etc/landlord/ddns.key:1: key 'k.' has no secret");
  EXPECT_EQ(error(""), "/etc/landlord/ddns.key:1: no key statement");
  EXPECT_EQ(error("options { };"), "/etc/landlord/ddns.key:1: expected a key statement, found 'options'");
  EXPECT_EQ(error("key \"k\" { secret \"AA==\" }"), "/etc/landlord/ddns.key:1: expected ';' after 'secret'");
  EXPECT_EQ(error("key \"k\" {\n/* open"), "/etc/landlord/ddns.key:2: unterminated comment");
}

TEST(Base64, RoundTripAndStrictness) {
  for (std::size_t length = 0; length < 8; ++length) {
    std::vector<std::uint8_t> bytes(length);
    for (std::size_t i = 0; i < length; ++i) bytes[i] = static_cast<std::uint8_t>(0xf0 + i * 7);
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
  }
  EXPECT_EQ(base64_encode(std::vector<std::uint8_t>{'f', 'o', 'o', 'b'}), "Zm9vYg==");  // RFC 4648 §10
  EXPECT_EQ(base64_decode("Zm9v YmFy"), (std::vector<std::uint8_t>{'f', 'o', 'o', 'b', 'a', 'r'}));
  EXPECT_FALSE(base64_decode("Zm9").has_value());
  EXPECT_FALSE(base64_decode("Z=9v").has_value());
  EXPECT_FALSE(base64_decode("Zg==Zg==").has_value());
  EXPECT_FALSE(base64_decode("Zm9*").has_value());
}

TEST(TsigAlgorithm, NamesAndSizes) {
  EXPECT_EQ(tsig_algorithm_from_text("hmac-sha256"), TsigAlgorithm::kHmacSha256);
  EXPECT_EQ(tsig_algorithm_from_text("hmac-sha256."), TsigAlgorithm::kHmacSha256);
  EXPECT_EQ(tsig_algorithm_from_text("hmac-md5"), TsigAlgorithm::kHmacMd5);
  EXPECT_FALSE(tsig_algorithm_from_text("gss-tsig").has_value());
  EXPECT_EQ(tsig_algorithm_name(TsigAlgorithm::kHmacMd5).to_text(), "hmac-md5.sig-alg.reg.int.");
  EXPECT_EQ(tsig_mac_size(TsigAlgorithm::kHmacSha1), 20u);
  EXPECT_EQ(tsig_mac_size(TsigAlgorithm::kHmacSha512), 64u);
}

}  // namespace
}  // namespace landlord::ddns
