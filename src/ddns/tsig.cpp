#include "landlord/ddns/tsig.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <utility>

#include "landlord/base/assert.hpp"
#include "landlord/base/big_endian.hpp"

namespace landlord::ddns {
namespace {

struct AlgorithmEntry {
  TsigAlgorithm algorithm;
  const char* text;
  const char* wire_name;
  const EVP_MD* (*digest)();
};

constexpr AlgorithmEntry kAlgorithms[] = {
    {TsigAlgorithm::kHmacMd5, "hmac-md5", "hmac-md5.sig-alg.reg.int.", EVP_md5},
    {TsigAlgorithm::kHmacSha1, "hmac-sha1", "hmac-sha1.", EVP_sha1},
    {TsigAlgorithm::kHmacSha224, "hmac-sha224", "hmac-sha224.", EVP_sha224},
    {TsigAlgorithm::kHmacSha256, "hmac-sha256", "hmac-sha256.", EVP_sha256},
    {TsigAlgorithm::kHmacSha384, "hmac-sha384", "hmac-sha384.", EVP_sha384},
    {TsigAlgorithm::kHmacSha512, "hmac-sha512", "hmac-sha512.", EVP_sha512},
};

const AlgorithmEntry& entry(TsigAlgorithm algorithm) {
  for (const auto& candidate : kAlgorithms) {
    if (candidate.algorithm == algorithm) return candidate;
  }
  LANDLORD_ASSERT(false);
  return kAlgorithms[0];
}

void put16(std::vector<std::uint8_t>& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value >> 8));
  out.push_back(static_cast<std::uint8_t>(value));
}

void put48(std::vector<std::uint8_t>& out, std::int64_t value) {
  const auto unsigned_value = static_cast<std::uint64_t>(value);
  for (int shift = 40; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(unsigned_value >> shift));
}

// The TSIG variables of RFC 8945 §4.3.3, appended to what the MAC covers.
void append_variables(std::vector<std::uint8_t>& out, const TsigKey& key, std::int64_t time_signed_s,
                      std::uint16_t fudge_s, std::uint16_t error, std::span<const std::uint8_t> other) {
  const Name key_name = key.name.canonical();
  out.insert(out.end(), key_name.wire().begin(), key_name.wire().end());
  put16(out, rr_class::kAny);
  put16(out, 0);
  put16(out, 0);  // TTL 0
  const Name algorithm = tsig_algorithm_name(key.algorithm).canonical();
  out.insert(out.end(), algorithm.wire().begin(), algorithm.wire().end());
  put48(out, time_signed_s);
  put16(out, fudge_s);
  put16(out, error);
  put16(out, static_cast<std::uint16_t>(other.size()));
  out.insert(out.end(), other.begin(), other.end());
}

std::vector<std::uint8_t> hmac(const TsigKey& key, std::span<const std::uint8_t> data) {
  std::vector<std::uint8_t> mac(EVP_MAX_MD_SIZE);
  unsigned length = 0;
  const unsigned char* result =
      HMAC(entry(key.algorithm).digest(), key.secret.data(), static_cast<int>(key.secret.size()),
           data.data(), data.size(), mac.data(), &length);
  LANDLORD_ASSERT(result != nullptr);
  mac.resize(length);
  return mac;
}

}  // namespace

std::optional<TsigFields> parse_tsig_rdata(std::span<const std::uint8_t> rdata) {
  TsigFields fields;
  std::size_t at = 0;
  auto algorithm = read_name(rdata, at);
  if (!algorithm) return std::nullopt;
  fields.algorithm = std::move(*algorithm);
  if (at + 10 > rdata.size()) return std::nullopt;
  fields.time_signed_s = static_cast<std::int64_t>(std::uint64_t{load_be16(&rdata[at])} << 32 | load_be32(&rdata[at + 2]));
  fields.fudge_s = load_be16(&rdata[at + 6]);
  const std::size_t mac_size = load_be16(&rdata[at + 8]);
  at += 10;
  if (at + mac_size + 6 > rdata.size()) return std::nullopt;
  fields.mac.assign(rdata.begin() + static_cast<long>(at), rdata.begin() + static_cast<long>(at + mac_size));
  at += mac_size;
  fields.original_id = load_be16(&rdata[at]);
  fields.error = load_be16(&rdata[at + 2]);
  const std::size_t other_size = load_be16(&rdata[at + 4]);
  at += 6;
  if (at + other_size != rdata.size()) return std::nullopt;
  fields.other.assign(rdata.begin() + static_cast<long>(at), rdata.end());
  return fields;
}

std::optional<TsigAlgorithm> tsig_algorithm_from_text(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  std::string lowered(text);
  for (auto& c : lowered) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
  for (const auto& candidate : kAlgorithms) {
    std::string wire(candidate.wire_name);
    wire.pop_back();
    if (lowered == candidate.text || lowered == wire) return candidate.algorithm;
  }
  return std::nullopt;
}

const char* tsig_algorithm_text(TsigAlgorithm algorithm) { return entry(algorithm).text; }

Name tsig_algorithm_name(TsigAlgorithm algorithm) {
  auto name = Name::from_text(entry(algorithm).wire_name);
  LANDLORD_ASSERT(name.has_value());
  return *name;
}

std::size_t tsig_mac_size(TsigAlgorithm algorithm) {
  return static_cast<std::size_t>(EVP_MD_get_size(entry(algorithm).digest()));
}

SignedMessage tsig_sign(std::vector<std::uint8_t> message, const TsigKey& key,
                        std::int64_t time_signed_s, std::uint16_t fudge_s,
                        std::optional<std::span<const std::uint8_t>> request_mac, std::uint16_t error) {
  LANDLORD_ASSERT(message.size() >= 12);
  std::vector<std::uint8_t> covered;
  if (request_mac) {
    put16(covered, static_cast<std::uint16_t>(request_mac->size()));
    covered.insert(covered.end(), request_mac->begin(), request_mac->end());
  }
  covered.insert(covered.end(), message.begin(), message.end());
  append_variables(covered, key, time_signed_s, fudge_s, error, {});
  SignedMessage signed_message{std::move(message), hmac(key, covered)};
  std::vector<std::uint8_t> rdata;
  const Name algorithm = tsig_algorithm_name(key.algorithm);
  rdata.insert(rdata.end(), algorithm.wire().begin(), algorithm.wire().end());
  put48(rdata, time_signed_s);
  put16(rdata, fudge_s);
  put16(rdata, static_cast<std::uint16_t>(signed_message.mac.size()));
  rdata.insert(rdata.end(), signed_message.mac.begin(), signed_message.mac.end());
  rdata.push_back(signed_message.bytes[0]);  // original id
  rdata.push_back(signed_message.bytes[1]);
  put16(rdata, error);
  put16(rdata, 0);  // other len
  append_record(signed_message.bytes, Record{key.name, rr_type::kTsig, rr_class::kAny, 0, std::move(rdata)});
  std::uint8_t* arcount = &signed_message.bytes[10];
  store_be16(arcount, static_cast<std::uint16_t>(load_be16(arcount) + 1));
  return signed_message;
}

const char* tsig_result_name(TsigResult result) {
  switch (result) {
    case TsigResult::kOk: return "ok";
    case TsigResult::kUnsigned: return "unsigned";
    case TsigResult::kMalformed: return "malformed TSIG";
    case TsigResult::kWrongKey: return "signed with another key";
    case TsigResult::kBadSignature: return "bad signature";
    case TsigResult::kBadTime: return "signed outside the time window";
    case TsigResult::kServerBadSig: return "BADSIG";
    case TsigResult::kServerBadKey: return "BADKEY";
    case TsigResult::kServerBadTime: return "BADTIME";
  }
  return "?";
}

TsigResult tsig_verify(std::span<const std::uint8_t> bytes, const Response& response,
                       const TsigKey& key, std::optional<std::span<const std::uint8_t>> request_mac,
                       std::int64_t now_s) {
  if (!response.tsig) return TsigResult::kUnsigned;
  LANDLORD_ASSERT(response.tsig_offset >= 12 && response.tsig_offset <= bytes.size());
  const auto fields = parse_tsig_rdata(response.tsig->rdata);
  if (!fields) return TsigResult::kMalformed;
  if (!(response.tsig->name == key.name) || !(fields->algorithm == tsig_algorithm_name(key.algorithm))) {
    return TsigResult::kWrongKey;
  }
  // BADSIG and BADKEY come unsigned (RFC 8945 §5.3.2): nothing to verify.
  if (fields->error == static_cast<std::uint16_t>(Rcode::kBadSig)) return TsigResult::kServerBadSig;
  if (fields->error == static_cast<std::uint16_t>(Rcode::kBadKey)) return TsigResult::kServerBadKey;
  // Only full-length MACs: truncation (§5.2.2.1) is not something BIND sends unasked.
  if (fields->mac.size() != tsig_mac_size(key.algorithm)) return TsigResult::kBadSignature;
  std::vector<std::uint8_t> covered;
  covered.reserve(2 + (request_mac ? request_mac->size() : 0) + bytes.size() + 128);
  if (request_mac) {
    put16(covered, static_cast<std::uint16_t>(request_mac->size()));
    covered.insert(covered.end(), request_mac->begin(), request_mac->end());
  }
  const std::size_t message_start = covered.size();
  covered.insert(covered.end(), bytes.begin(), bytes.begin() + static_cast<long>(response.tsig_offset));
  std::uint8_t* header = &covered[message_start];
  store_be16(header, fields->original_id);
  store_be16(header + 10, static_cast<std::uint16_t>(load_be16(header + 10) - 1));  // ARCOUNT without TSIG
  append_variables(covered, key, fields->time_signed_s, fields->fudge_s, fields->error, fields->other);
  const auto expected = hmac(key, covered);
  if (CRYPTO_memcmp(expected.data(), fields->mac.data(), expected.size()) != 0) {
    return TsigResult::kBadSignature;
  }
  if (fields->error == static_cast<std::uint16_t>(Rcode::kBadTime)) return TsigResult::kServerBadTime;
  const std::int64_t skew = now_s - fields->time_signed_s;
  if (skew > fields->fudge_s || -skew > fields->fudge_s) return TsigResult::kBadTime;
  return TsigResult::kOk;
}

}  // namespace landlord::ddns
