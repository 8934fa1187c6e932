#include "landlord/ddns/message.hpp"

#include <utility>

#include "landlord/base/big_endian.hpp"

namespace landlord::ddns {

const char* rcode_name(Rcode rcode) {
  switch (rcode) {
    case Rcode::kNoError: return "NOERROR";
    case Rcode::kFormErr: return "FORMERR";
    case Rcode::kServFail: return "SERVFAIL";
    case Rcode::kNxDomain: return "NXDOMAIN";
    case Rcode::kNotImp: return "NOTIMP";
    case Rcode::kRefused: return "REFUSED";
    case Rcode::kYxDomain: return "YXDOMAIN";
    case Rcode::kYxRrset: return "YXRRSET";
    case Rcode::kNxRrset: return "NXRRSET";
    case Rcode::kNotAuth: return "NOTAUTH";
    case Rcode::kNotZone: return "NOTZONE";
    case Rcode::kBadSig: return "BADSIG";
    case Rcode::kBadKey: return "BADKEY";
    case Rcode::kBadTime: return "BADTIME";
  }
  return "RCODE?";
}

std::vector<std::uint8_t> a_rdata(Ipv4 address) {
  std::vector<std::uint8_t> rdata(4);
  store_be32(rdata.data(), address.to_uint());
  return rdata;
}

std::vector<std::uint8_t> ptr_rdata(const Name& target) {
  return {target.wire().begin(), target.wire().end()};
}

namespace prerequisite {
Record name_in_use(const Name& name) { return {name, rr_type::kAny, rr_class::kAny, 0, {}}; }
Record name_not_in_use(const Name& name) { return {name, rr_type::kAny, rr_class::kNone, 0, {}}; }
Record rrset_exists(const Name& name, std::uint16_t type) { return {name, type, rr_class::kAny, 0, {}}; }
Record rrset_does_not_exist(const Name& name, std::uint16_t type) {
  return {name, type, rr_class::kNone, 0, {}};
}
Record rrset_exists_with(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata) {
  return {name, type, rr_class::kIn, 0, std::move(rdata)};
}
}  // namespace prerequisite

namespace update {
Record add(const Name& name, std::uint16_t type, std::uint32_t ttl, std::vector<std::uint8_t> rdata) {
  return {name, type, rr_class::kIn, ttl, std::move(rdata)};
}
Record delete_rrset(const Name& name, std::uint16_t type) { return {name, type, rr_class::kAny, 0, {}}; }
Record delete_rr(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata) {
  return {name, type, rr_class::kNone, 0, std::move(rdata)};
}
}  // namespace update

namespace {

void put16(std::vector<std::uint8_t>& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value >> 8));
  out.push_back(static_cast<std::uint8_t>(value));
}

}  // namespace

void append_record(std::vector<std::uint8_t>& out, const Record& record) {
  out.insert(out.end(), record.name.wire().begin(), record.name.wire().end());
  put16(out, record.type);
  put16(out, record.klass);
  put16(out, static_cast<std::uint16_t>(record.ttl >> 16));
  put16(out, static_cast<std::uint16_t>(record.ttl));
  LANDLORD_ASSERT(record.rdata.size() <= 0xffff);
  put16(out, static_cast<std::uint16_t>(record.rdata.size()));
  out.insert(out.end(), record.rdata.begin(), record.rdata.end());
}

std::vector<std::uint8_t> encode(const UpdateMessage& message) {
  std::vector<std::uint8_t> out;
  out.reserve(512);
  put16(out, message.id);
  put16(out, static_cast<std::uint16_t>(kOpcodeUpdate << 11));  // QR=0, opcode UPDATE
  put16(out, 1);                                                // ZOCOUNT
  put16(out, static_cast<std::uint16_t>(message.prerequisites.size()));
  put16(out, static_cast<std::uint16_t>(message.updates.size()));
  put16(out, 0);                                                // ARCOUNT: TSIG adds itself
  out.insert(out.end(), message.zone.wire().begin(), message.zone.wire().end());
  put16(out, rr_type::kSoa);
  put16(out, rr_class::kIn);
  for (const auto& record : message.prerequisites) append_record(out, record);
  for (const auto& record : message.updates) append_record(out, record);
  return out;
}

Expected<Response, std::string> parse_response(std::span<const std::uint8_t> bytes) {
  constexpr std::size_t kHeader = 12;
  if (bytes.size() > kMaxMessageSize) return unexpected(std::string("message over 65535 bytes"));
  if (bytes.size() < kHeader) return unexpected(std::string("shorter than a DNS header"));
  Response response;
  response.id = load_be16(&bytes[0]);
  const std::uint16_t flags = load_be16(&bytes[2]);
  response.is_response = (flags & 0x8000) != 0;
  response.opcode = static_cast<std::uint16_t>((flags >> 11) & 0xf);
  response.truncated = (flags & 0x0200) != 0;
  response.rcode = static_cast<Rcode>(flags & 0xf);
  for (int section = 0; section < 4; ++section) response.counts[section] = load_be16(&bytes[4 + 2 * section]);
  std::size_t at = kHeader;
  // The zone (question) section holds name, type and class only.
  for (unsigned i = 0; i < response.counts[0]; ++i) {
    auto name = read_name(bytes, at);
    if (!name) return unexpected("zone section: " + name.error());
    if (at + 4 > bytes.size()) return unexpected(std::string("zone section: truncated"));
    at += 4;
  }
  const unsigned total = unsigned{response.counts[1]} + response.counts[2] + response.counts[3];
  for (unsigned i = 0; i < total; ++i) {
    const std::size_t start = at;
    auto name = read_name(bytes, at);
    if (!name) return unexpected("record " + std::to_string(i) + ": " + name.error());
    if (at + 10 > bytes.size()) return unexpected("record " + std::to_string(i) + ": truncated");
    Record record{std::move(*name), load_be16(&bytes[at]), load_be16(&bytes[at + 2]),
                  load_be32(&bytes[at + 4]), {}};
    const std::size_t length = load_be16(&bytes[at + 8]);
    at += 10;
    if (at + length > bytes.size()) return unexpected("record " + std::to_string(i) + ": rdata truncated");
    record.rdata.assign(bytes.begin() + static_cast<long>(at), bytes.begin() + static_cast<long>(at + length));
    at += length;
    if (record.type == rr_type::kTsig) {
      // RFC 8945 §5.1: TSIG is the last record of the additional section, and only there.
      if (i + 1 != total || response.counts[3] == 0) {
        return unexpected(std::string("TSIG record not last in the additional section"));
      }
      response.tsig = record;
      response.tsig_offset = start;
    }
    response.records.push_back(std::move(record));
  }
  if (at != bytes.size()) return unexpected(std::string("trailing bytes after the last record"));
  return response;
}

}  // namespace landlord::ddns
