#pragma once
// An authoritative server for the updater's tests: one zone store, RFC 2136's prerequisite
// checks (§3.2) and updates (§3.4) done for real, TSIG checked on every request and signed on
// every answer, and knobs to drop, garble, truncate or refuse. Tests look at its records.
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "landlord/ddns/message.hpp"
#include "landlord/ddns/tsig.hpp"

namespace landlord::ddns::testing {

struct StoredRecord {
  std::string name;  // canonical text
  std::uint16_t type;
  std::vector<std::uint8_t> rdata;
  auto operator<=>(const StoredRecord&) const = default;
};

class FakeDnsServer {
 public:
  FakeDnsServer(std::vector<Name> zones, std::optional<TsigKey> key) : zones_(std::move(zones)), key_(std::move(key)) {}

  // The answer to one request (nullopt: dropped). `tcp` says how it arrived.
  std::optional<std::vector<std::uint8_t>> handle(std::span<const std::uint8_t> request, bool tcp, std::int64_t now_s);

  void put(const Name& name, std::uint16_t type, std::vector<std::uint8_t> rdata);
  bool has(const Name& name, std::uint16_t type) const;
  std::vector<std::vector<std::uint8_t>> rdatas(const Name& name, std::uint16_t type) const;
  std::size_t size() const { return records_.size(); }

  // Knobs: the next N requests are dropped / answered SERVFAIL / answered truncated over UDP.
  int drop_next = 0;
  int servfail_next = 0;
  bool truncate_udp = false;
  std::optional<Rcode> always;          // answer every request with this rcode
  std::optional<Rcode> tsig_error;      // answer with this TSIG error (BADKEY, BADSIG, BADTIME)
  int requests = 0;
  int tcp_requests = 0;
  std::vector<std::vector<std::uint8_t>> seen;  // every request, for byte checks

 private:
  Rcode apply(const Response& request);
  bool in_zone(const Name& name, const Name& zone) const { return name.is_within(zone); }

  std::vector<Name> zones_;
  std::optional<TsigKey> key_;
  std::set<StoredRecord> records_;
};

}  // namespace landlord::ddns::testing
