#pragma once
// DNS messages for dynamic update (RFC 2136): building an UPDATE with its zone, prerequisite and
// update sections, and parsing the server's response (RFC 1035 §4.1, names decompressed).
// Plain values; TSIG signing and verification live in tsig.hpp.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/ddns/name.hpp"

namespace landlord::ddns {

namespace rr_type {
inline constexpr std::uint16_t kA = 1;
inline constexpr std::uint16_t kSoa = 6;
inline constexpr std::uint16_t kPtr = 12;
inline constexpr std::uint16_t kAaaa = 28;
inline constexpr std::uint16_t kDhcid = 49;
inline constexpr std::uint16_t kTsig = 250;
inline constexpr std::uint16_t kAny = 255;
}  // namespace rr_type

namespace rr_class {
inline constexpr std::uint16_t kIn = 1;
inline constexpr std::uint16_t kNone = 254;
inline constexpr std::uint16_t kAny = 255;
}  // namespace rr_class

// Response codes (RFC 1035, RFC 2136 §2.2; the TSIG errors of RFC 8945 §3 travel in the TSIG
// record and are reported apart).
enum class Rcode : std::uint16_t {
  kNoError = 0, kFormErr = 1, kServFail = 2, kNxDomain = 3, kNotImp = 4, kRefused = 5,
  kYxDomain = 6, kYxRrset = 7, kNxRrset = 8, kNotAuth = 9, kNotZone = 10,
  kBadSig = 16, kBadKey = 17, kBadTime = 18,
};
const char* rcode_name(Rcode rcode);

inline constexpr std::uint16_t kOpcodeUpdate = 5;

struct Record {
  Name name;
  std::uint16_t type = 0;
  std::uint16_t klass = rr_class::kIn;
  std::uint32_t ttl = 0;
  std::vector<std::uint8_t> rdata;
  bool operator==(const Record&) const = default;
};

// RDATA of the types an update carries.
std::vector<std::uint8_t> a_rdata(Ipv4 address);
std::vector<std::uint8_t> ptr_rdata(const Name& target);  // uncompressed, as RFC 3597 wants

// The RRs of RFC 2136 §2.4 (prerequisites) and §2.5 (updates), by their meaning.
namespace prerequisite {
Record name_in_use(const Name& name);                           // YXDOMAIN
Record name_not_in_use(const Name& name);                       // NXDOMAIN
Record rrset_exists(const Name& name, std::uint16_t type);      // YXRRSET, any value
Record rrset_does_not_exist(const Name& name, std::uint16_t type);  // NXRRSET
Record rrset_exists_with(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata);
}  // namespace prerequisite
namespace update {
Record add(const Name& name, std::uint16_t type, std::uint32_t ttl, std::vector<std::uint8_t> rdata);
Record delete_rrset(const Name& name, std::uint16_t type);
Record delete_rr(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata);
}  // namespace update

struct UpdateMessage {
  std::uint16_t id = 0;
  Name zone;
  std::vector<Record> prerequisites;
  std::vector<Record> updates;
};

// The message without TSIG (ARCOUNT 0); tsig.hpp signs it by appending a record.
std::vector<std::uint8_t> encode(const UpdateMessage& message);
// Appends one resource record in wire form (no compression).
void append_record(std::vector<std::uint8_t>& out, const Record& record);

struct Response {
  std::uint16_t id = 0;
  bool is_response = false;
  std::uint16_t opcode = 0;
  bool truncated = false;
  Rcode rcode = Rcode::kNoError;
  std::uint16_t counts[4] = {0, 0, 0, 0};  // zone/question, prerequisite/answer, update/authority, additional
  std::vector<Record> records;            // every section in order, TSIG included
  // The TSIG record when the last additional record is one (RFC 8945 §5.1), and where it starts:
  // the bytes before it are what the MAC covers.
  std::optional<Record> tsig;
  std::size_t tsig_offset = 0;
};

inline constexpr std::size_t kMaxMessageSize = 65535;

// A response as the server sent it; every length is checked, names may be compressed. Records
// are bounded by the message size, so a hostile count costs nothing.
Expected<Response, std::string> parse_response(std::span<const std::uint8_t> bytes);

}  // namespace landlord::ddns
