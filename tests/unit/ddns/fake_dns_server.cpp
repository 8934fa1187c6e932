#include "fake_dns_server.hpp"

#include <algorithm>

#include "landlord/base/big_endian.hpp"

namespace landlord::ddns::testing {
namespace {

std::string key_of(const Name& name) { return name.canonical().to_text(); }

}  // namespace

void FakeDnsServer::put(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata) {
  records_.insert({key_of(name), type, std::move(rdata)});
}

bool FakeDnsServer::has(const Name& name, std::uint16_t type) const { return !rdatas(name, type).empty(); }

std::vector<std::vector<std::uint8_t>> FakeDnsServer::rdatas(const Name& name, std::uint16_t type) const {
  std::vector<std::vector<std::uint8_t>> out;
  for (const auto& record : records_) {
    if (record.name == key_of(name) && record.type == type) out.push_back(record.rdata);
  }
  return out;
}

Rcode FakeDnsServer::apply(const Response& request) {
  if (request.counts[0] != 1) return Rcode::kFormErr;
  // The zone section is not kept by parse_response: the zone is the one every record lies in.
  const std::size_t prerequisites = request.counts[1];
  const std::size_t updates = request.counts[2];
  std::vector<Record> records(request.records.begin(), request.records.begin() + static_cast<long>(prerequisites + updates));
  const auto zone = std::find_if(zones_.begin(), zones_.end(), [&](const Name& candidate) {
    return std::all_of(records.begin(), records.end(), [&](const Record& r) { return in_zone(r.name, candidate); });
  });
  if (zone == zones_.end()) return Rcode::kNotZone;
  auto name_exists = [&](const std::string& name) {
    return std::any_of(records_.begin(), records_.end(), [&](const StoredRecord& r) { return r.name == name; });
  };
  auto rrset = [&](const std::string& name, std::uint16_t type) {
    std::vector<std::vector<std::uint8_t>> out;
    for (const auto& r : records_) {
      if (r.name == name && r.type == type) out.push_back(r.rdata);
    }
    return out;
  };
  // RFC 2136 §3.2.
  for (std::size_t i = 0; i < prerequisites; ++i) {
    const Record& p = records[i];
    const std::string name = key_of(p.name);
    if (p.klass == rr_class::kAny) {
      if (p.type == rr_type::kAny) {
        if (!name_exists(name)) return Rcode::kNxDomain;
      } else if (rrset(name, p.type).empty()) {
        return Rcode::kNxRrset;
      }
    } else if (p.klass == rr_class::kNone) {
      if (p.type == rr_type::kAny) {
        if (name_exists(name)) return Rcode::kYxDomain;
      } else if (!rrset(name, p.type).empty()) {
        return Rcode::kYxRrset;
      }
    } else if (p.klass == rr_class::kIn) {
      const auto values = rrset(name, p.type);
      if (std::find(values.begin(), values.end(), p.rdata) == values.end()) return Rcode::kNxRrset;
    } else {
      return Rcode::kFormErr;
    }
  }
  // RFC 2136 §3.4.
  for (std::size_t i = prerequisites; i < records.size(); ++i) {
    const Record& u = records[i];
    const std::string name = key_of(u.name);
    if (u.klass == rr_class::kIn) {
      records_.insert({name, u.type, u.rdata});
    } else if (u.klass == rr_class::kAny) {
      std::erase_if(records_, [&](const StoredRecord& r) {
        return r.name == name && (u.type == rr_type::kAny || r.type == u.type);
      });
    } else if (u.klass == rr_class::kNone) {
      records_.erase({name, u.type, u.rdata});
    } else {
      return Rcode::kFormErr;
    }
  }
  return Rcode::kNoError;
}

std::optional<std::vector<std::uint8_t>> FakeDnsServer::handle(std::span<const std::uint8_t> bytes, bool tcp,
                                                              std::int64_t now_s) {
  ++requests;
  tcp_requests += tcp;
  seen.emplace_back(bytes.begin(), bytes.end());
  if (drop_next > 0) {
    --drop_next;
    return std::nullopt;
  }
  auto request = parse_response(bytes);
  if (!request || request->is_response || request->opcode != kOpcodeUpdate) return std::nullopt;
  std::vector<std::uint8_t> request_mac;
  if (key_) {
    if (tsig_verify(bytes, *request, *key_, std::nullopt, now_s) != TsigResult::kOk) return std::nullopt;
    request_mac = parse_tsig_rdata(request->tsig->rdata)->mac;
  }
  Rcode rcode = Rcode::kNoError;
  bool truncated = false;
  if (tsig_error) {
    rcode = Rcode::kNotAuth;
  } else if (servfail_next > 0) {
    --servfail_next;
    rcode = Rcode::kServFail;
  } else if (always) {
    rcode = *always;
  } else if (truncate_udp && !tcp) {
    truncated = true;
  } else {
    rcode = apply(*request);
  }
  std::vector<std::uint8_t> answer(12, 0);
  store_be16(&answer[0], request->id);
  store_be16(&answer[2], static_cast<std::uint16_t>(0x8000 | kOpcodeUpdate << 11 | (truncated ? 0x0200 : 0) |
                                                      static_cast<std::uint16_t>(rcode)));
  if (!key_) return answer;
  return tsig_sign(std::move(answer), *key_, now_s, kDefaultFudgeSeconds, std::span<const std::uint8_t>(request_mac),
                   tsig_error ? static_cast<std::uint16_t>(*tsig_error) : 0)
      .bytes;
}

}  // namespace landlord::ddns::testing
