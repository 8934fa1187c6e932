#pragma once
// The lease lists of lease4-get-all and lease4-get-page, made so that the event loop only copies
// records and the answer is never one string in memory:
//   - on the loop, each record the scan reads is copied flat (ListedLease: fixed fields, its
//     strings in the batch's one text), a piece at a time, and each batch goes to the worker;
//   - on the worker, the batches are appended to a Listing, ordered by address (each address
//     once, the copy read last kept) and written out as JSON a few hundred KiB at a time, as the
//     transport asks for them (AnswerStream, commands.hpp).
// Flat copies cost the loop no allocation per record, and freeing a listing anywhere is a few
// frees, not one per record.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/time.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::control {

struct ListedLease {
  TimePoint granted_at;
  Duration lease_time{0}, renew_time{0}, rebind_time{0};
  lease::FencingToken fencing_token = 0;
  std::size_t text_at = 0;  // this lease's client id bytes, hostname, fqdn and classes in the text
  std::uint32_t address = 0, subnet_id = 0;
  std::uint32_t client_id_size = 0, hostname_size = 0, fqdn_size = 0, classes_size = 0;
  std::uint8_t hlen = 0;
  lease::DnsSides dns_sides;
  lease::DnsState dns_state = lease::DnsState::None;
  std::array<std::uint8_t, 16> chaddr{};
  lease::LeaseState state = lease::LeaseState::Offered;
};

// Leases copied flat, in the order read.
struct Listing {
  std::vector<ListedLease> leases;
  std::string text;

  // Positions in `leases` in address order, each address once (of two copies, the later in
  // `leases`), at most `limit` of them: set by order().
  std::vector<std::uint32_t> sequence;

  void add(const lease::Lease& lease);
  void append(Listing&& more);  // `more` read after this
  std::size_t size() const { return leases.size(); }
  void order(std::size_t limit);
  // Keeps only the leases in `sequence`, in its order (and frees the rest).
  void keep_ordered();
};

// One lease as lease_to_json(lease, now).dump() writes it (same keys, same order, same text),
// appended to `out` without building a JSON tree.
void append_lease_json(std::string& out, const Listing& listing, const ListedLease& lease, TimePoint now);

// `text` as a JSON string (quoted, escaped as nlohmann::json::dump does; invalid UTF-8 replaced
// by U+FFFD), appended to `out`.
void append_json_string(std::string& out, std::string_view text);

}  // namespace landlord::control
