#pragma once
// LeaseTable's in-memory form of a Lease (issue #6: ≤ 150 bytes per lease at 1 M leases; a
// Lease is 176 bytes on its own). Internal to the lease table: everyone else sees lease::Lease,
// which encode() and decode() convert from and to, and nothing else does.
//
// Most of a Lease is redundant or rare for a real client:
//   - the client key is ClientKey::from(client_id, hardware) for every lease the engine makes
//     (or empty once a decline hold ends), so it is derived, not stored;
//   - option 61 is usually htype + chaddr ("01" + MAC), so it is derived from the hardware
//     address as well; any other client id goes to the record's LeaseExtra;
//   - a hostname (a minority of clients), the name put in DNS, option 82 (relayed clients) and
//     the client classes (only where classes are configured) live in the LeaseExtra too.
// A lease that does not fit these forms (chaddr longer than 6 bytes, option 61, fqdn or
// option 82 longer than 255,
// a key not derived from id and chaddr, T1/T2 that are not whole seconds) is kept whole in its
// LeaseExtra, so every Lease round-trips exactly.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "landlord/lease/lease.hpp"

namespace landlord::lease {

// Option 61 of a compact record.
enum class ClientIdForm : std::uint8_t {
  None,     // the client sent none
  Chaddr,   // htype followed by chaddr: the RFC 2132 §9.14 form most clients send
  InExtra,  // anything else: LeaseExtra::client_id()
};

// What a record keeps out of line (48 bytes). A record points at one only when it needs it.
struct LeaseExtra {
  // Option 61 when the record's client_id_form is InExtra, then the hostname, the fqdn, option
  // 82 and the class names: one string, so a short hostname costs no allocation and a record
  // pays for one string, not five.
  std::string text;
  std::uint8_t client_id_size = 0;  // option 61 is at most 255 bytes (longer: kept whole)
  std::uint8_t fqdn_size = 0;       // a DNS name is at most 253 (longer: kept whole)
  std::uint16_t classes_size = 0;   // longer class lists keep the lease whole
  std::uint8_t relay_agent_info_size = 0;  // option 82 is at most 255 (longer: kept whole)
  // Bits 0 and 1: DnsSides forward and reverse; bits 2-4: DnsState. In the padding: free.
  std::uint8_t dns = 0;
  std::unique_ptr<Lease> whole;     // the lease as is, when it has no compact form

  std::string_view client_id() const { return std::string_view(text).substr(0, client_id_size); }
  std::string_view hostname() const {
    return std::string_view(text).substr(
        client_id_size, text.size() - client_id_size - fqdn_size - relay_agent_info_size - classes_size);
  }
  std::string_view fqdn() const {
    return std::string_view(text).substr(text.size() - classes_size - relay_agent_info_size - fqdn_size,
                                         fqdn_size);
  }
  std::string_view relay_agent_info() const {
    return std::string_view(text).substr(text.size() - classes_size - relay_agent_info_size,
                                         relay_agent_info_size);
  }
  std::string_view classes() const { return std::string_view(text).substr(text.size() - classes_size); }
  DnsSides dns_sides() const { return {(dns & 1) != 0, (dns & 2) != 0}; }
  DnsState dns_state() const { return static_cast<DnsState>(dns >> 2); }
  bool empty() const { return text.empty() && dns == 0 && whole == nullptr; }
};

// 56 bytes. Each field is as wide as the values it must hold exactly. A record kept whole sets
// only address, state and extra.
struct CompactLease {
  static constexpr std::uint32_t kNoExtra = 0xffffffffu;
  static constexpr std::size_t kInlineChaddr = 6;  // Ethernet; longer chaddrs keep the whole lease

  // Milliseconds, 64-bit: `now` is any millisecond since the epoch, and a released lease ends
  // at an arbitrary millisecond (lease_time = now - granted_at), up to 2^32-2 s when configured.
  std::int64_t granted_at_ms = 0;
  std::int64_t lease_time_ms = 0;
  FencingToken fencing_token = 0;  // the store compares all 64 bits
  std::uint32_t address = 0;       // 0.0.0.0: the slot is free
  std::uint32_t subnet_id = 0;     // configured ids are any 32-bit value
  // T1 and T2 are sent in whole seconds (the config only accepts whole seconds) and never
  // exceed the lease time, itself at most 2^32-2 s: 32-bit seconds hold every one the engine
  // makes. Any other value keeps the whole lease in the extra.
  std::uint32_t renew_time_s = 0;
  std::uint32_t rebind_time_s = 0;
  std::uint32_t extra = kNoExtra;  // index of this record's LeaseExtra in the table
  std::array<std::uint8_t, kInlineChaddr> chaddr{};
  std::uint8_t htype = 0;
  std::uint8_t hlen = 0;  // ≤ kInlineChaddr
  LeaseState state = LeaseState::Offered;
  Extension last_extension = Extension::None;
  ClientIdForm client_id_form = ClientIdForm::None;
  // Whether the record has a client key (ClientKey::from(client_id, hardware)), or none.
  bool keyed = false;

  bool in_use() const { return address != 0; }
  bool has_extra() const { return extra != kNoExtra; }
};
static_assert(sizeof(CompactLease) == 56, "see the field widths above");
static_assert(sizeof(LeaseExtra) == 48, "one string and a pointer; the sizes fill padding");

// `lease` in compact form; whatever does not fit inline is moved into `extra` (left empty when
// nothing needs it). The record's `extra` index is the caller's to set.
CompactLease encode(Lease lease, LeaseExtra& extra);
// The Lease `record` (with its extra, if it has one) was made from.
Lease decode(const CompactLease& record, const LeaseExtra* extra);
// The parts of decode() the table's indexes and the allocator need, without building the rest.
ClientKey client_key_of(const CompactLease& record, const LeaseExtra* extra);
bool has_client_key(const CompactLease& record, const LeaseExtra* extra, const ClientKey& key);
bool has_client(const CompactLease& record, const LeaseExtra* extra);  // a non-empty key
TimePoint granted_at_of(const CompactLease& record, const LeaseExtra* extra);
TimePoint expires_at_of(const CompactLease& record, const LeaseExtra* extra);

}  // namespace landlord::lease
