#pragma once
// The engine's lease records and the one path that changes them. Every change of a record,
// whoever decides it (a handler, reclaim, an operator, the store's answer), is a Ledger::write,
// which sets the record's fencing token by one of three rules (Token) and keeps the allocator
// in step with the table. The table is private and handed out only as const: a change that
// does not go through write(), hold(), end_hold() or learn() does not compile
// (tests/unit/engine/ledger_bypass.cpp checks that it does not).
//
// Fencing: a record naming a client other than the address's last holder (a grant, a decline
// of an offer, the end of a decline hold) takes the last record's token plus one, and so does a
// record of ours over a token another server holds, and a new grant epoch (the rebind at T2 of
// the client's own lease, a reboot confirmed by one of several servers); the same holder
// otherwise keeps it. Records are replaced, never removed, so the last token of each address
// survives the end of its lease and a restart.
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "landlord/lease/allocator.hpp"
#include "landlord/lease/lease_table.hpp"
#include "topology.hpp"

namespace landlord::engine {

// An offer, a bound lease or a decline hold: the address is taken.
bool is_active(lease::LeaseState state);

// How a change sets the record's token, from the address's last lease (its record, or the
// record an offer hold covers).
enum class Token : std::uint8_t {
  Kept,      // the last lease's (0 for none): an offer hold, a release, an expiry, the same
             // grant shortened, the memory of a refused write
  Follows,   // the last lease's, plus one when it named another client or the token is another
             // server's (1 for a first holder): a grant, a decline, the end of a decline hold
  NewEpoch,  // the last lease's plus one whoever held it (1 for none): a rebind at T2, a
             // reboot confirmed by one of several servers sharing a store
};

// `record` given back to nobody: no client, no identity, Expired (the end of a decline hold,
// an operator's revoke of one, a grant the store refused). Its token is write()'s to set.
lease::Lease to_nobody(lease::Lease record);

// Whether a record of ours may replace the address's `current` one (facts asked for the
// change's client): the lease state transitions the engine makes. The store's own records
// (Ledger::learn) are not held to them: what it says stands.
bool may_change(const std::optional<lease::LeaseTable::Facts>& current, const lease::Lease& change);

// A lease that ends (released, expired, declined) takes its name out of DNS: the record keeps
// the name, its state Pending until the daemon's updater has removed the records.
void name_to_remove(lease::Lease& record);

// `record` (bound) given back by its client now: Released, its lease ending now, so that
// expires_at() is when the address became free (a RELEASE, an operator's revoke).
lease::Lease released_at(lease::Lease record, TimePoint now);

class Ledger {
 public:
  using Facts = lease::LeaseTable::Facts;

  // `own_server_id`: config.server.server_id, to tell whether a store's row is our write.
  explicit Ledger(std::optional<Ipv4> own_server_id) : own_server_id_(own_server_id) {}

  // ---- read side
  const lease::LeaseTable& table() const { return table_; }
  const lease::Allocator& allocator() const { return allocator_; }
  // The address's last real lease: the record, or the one an offer hold covers; of_client
  // tells whether it was `client`'s.
  std::optional<Facts> last_lease(Ipv4 address, const ClientKey& client) const;
  // Whether the address's token is another server's (a shared store: its last bound write).
  bool token_elsewhere(Ipv4 address) const { return tokens_elsewhere_.contains(address.to_uint()); }
  // Whether `written` (a record this engine produced) is still what the address holds: not
  // superseded by a later grant, extension, expiry or hold of the address.
  bool stands(const lease::Lease& written) const;

  // ---- the one path that changes records
  // The token `rule` gives a record after `previous` (the address's last lease).
  lease::FencingToken token(Token rule, const std::optional<Facts>& previous) const;
  // Sets `change`'s token by `rule` and makes it the address's record (asserted: may_change).
  void write(lease::Lease& change, Token rule);
  // The record's name in DNS settled (the daemon's updater finished its work): the same record,
  // the same state and token, only dns_state changes.
  void settle_dns(lease::Lease record, lease::DnsState state);
  // Makes `offer` an in-memory hold until `until`, with the last lease's token (Token::Kept).
  void hold(lease::Lease offer, TimePoint until);
  void end_hold(Ipv4 address);
  // A record from the store with the store's token (restore at start-up, a shared store's
  // feed): the caller has checked that it is not older than what the address holds.
  void learn(lease::Lease record);
  // Which server's the token of `record` (a row read back from the store) is may be news.
  void note_writer(const lease::Lease& record);

  // The pools and exclusions of `topology`, every record filed again (start, reconfigure).
  void rebuild(const Topology& topology, std::optional<Ipv4> own_server_id);

 private:
  void put(lease::Lease record);
  // Files `address` in the allocator as its record now says (it was filed as `before`).
  void file(Ipv4 address, const lease::Availability& before);

  lease::LeaseTable table_;
  lease::Allocator allocator_;
  std::optional<Ipv4> own_server_id_;
  // A shared store: the addresses whose token another server holds (its last bound write, or
  // its new token: lease.hpp `writer`). A bound record of ours for one takes the next token.
  std::unordered_set<std::uint32_t> tokens_elsewhere_;
};

}  // namespace landlord::engine
