#pragma once
// TSIG (RFC 8945): signing an UPDATE and verifying the server's response with a shared key, as
// BIND's `tsig-keygen` makes them (hmac-md5, hmac-sha1, -sha224, -sha256, -sha384, -sha512).
// The HMACs are OpenSSL's.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/ddns/message.hpp"
#include "landlord/ddns/name.hpp"

namespace landlord::ddns {

enum class TsigAlgorithm { kHmacMd5, kHmacSha1, kHmacSha224, kHmacSha256, kHmacSha384, kHmacSha512 };

// "hmac-sha256" as in BIND's key statement (a trailing dot and the long MD5 name accepted).
std::optional<TsigAlgorithm> tsig_algorithm_from_text(std::string_view text);
const char* tsig_algorithm_text(TsigAlgorithm algorithm);  // "hmac-sha256"
Name tsig_algorithm_name(TsigAlgorithm algorithm);         // hmac-sha256. on the wire
std::size_t tsig_mac_size(TsigAlgorithm algorithm);

struct TsigKey {
  Name name;
  TsigAlgorithm algorithm = TsigAlgorithm::kHmacSha256;
  std::vector<std::uint8_t> secret;
};

inline constexpr std::uint16_t kDefaultFudgeSeconds = 300;  // RFC 8945 §10

struct SignedMessage {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> mac;  // the request's MAC, which the response's MAC covers
};

// Appends the TSIG record to `message` (an encoded message whose ARCOUNT it increments). A
// request is signed without `request_mac`; a response (what a server, or a test's fake one,
// sends) over the request's MAC, with `error` a TSIG error code (RFC 8945 §5.3).
SignedMessage tsig_sign(std::vector<std::uint8_t> message, const TsigKey& key,
                        std::int64_t time_signed_s, std::uint16_t fudge_s = kDefaultFudgeSeconds,
                        std::optional<std::span<const std::uint8_t>> request_mac = std::nullopt,
                        std::uint16_t error = 0);

// The RDATA of a TSIG record (RFC 8945 §4.2).
struct TsigFields {
  Name algorithm;
  std::int64_t time_signed_s = 0;
  std::uint16_t fudge_s = 0;
  std::vector<std::uint8_t> mac;
  std::uint16_t original_id = 0;
  std::uint16_t error = 0;
  std::vector<std::uint8_t> other;
};
std::optional<TsigFields> parse_tsig_rdata(std::span<const std::uint8_t> rdata);

enum class TsigResult {
  kOk,
  kUnsigned,        // no TSIG on a response to a signed request
  kMalformed,       // a TSIG record we cannot read
  kWrongKey,        // signed with another key or algorithm than ours
  kBadSignature,    // the MAC does not verify
  kBadTime,         // signed outside the fudge window of our clock
  kServerBadSig,    // the server says our MAC did not verify (TSIG error BADSIG)
  kServerBadKey,    // the server does not know our key (BADKEY)
  kServerBadTime,   // the server's clock and ours differ by more than the fudge (BADTIME)
};
const char* tsig_result_name(TsigResult result);

// Verifies a message (parsed from `bytes`): a response against the request's MAC (RFC 8945
// §5.3.2, §5.4), or a request when `request_mac` is nullopt (§5.2; what a server checks).
TsigResult tsig_verify(std::span<const std::uint8_t> bytes, const Response& message,
                       const TsigKey& key, std::optional<std::span<const std::uint8_t>> request_mac,
                       std::int64_t now_s);

// A BIND key file (`tsig-keygen` output, named.conf syntax): every `key "name" { algorithm A;
// secret "base64"; };` in it, comments allowed. Errors name `source` and the line.
Expected<std::vector<TsigKey>, std::string> parse_key_file(std::string_view text,
                                                           std::string_view source);

}  // namespace landlord::ddns
