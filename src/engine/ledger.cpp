// The one path that changes the engine's lease records (ledger.hpp): tokens by rule, the
// allocator filed after every change, the invariants asserted where they are kept.
#include "ledger.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::engine {

using lease::Lease;
using lease::LeaseState;

bool is_active(LeaseState state) {
  return state == LeaseState::Offered || state == LeaseState::Bound ||
         state == LeaseState::Declined;
}

Lease to_nobody(Lease record) {
  record.state = LeaseState::Expired;
  record.client = ClientKey{};
  record.client_id = ClientId{};
  record.hardware = HardwareAddress{};
  record.hostname.clear();
  record.classes.clear();
  // Nobody's record names nobody: the name's removal went with the record that ended it.
  record.fqdn.clear();
  record.dns_sides = {};
  record.dns_state = lease::DnsState::None;
  record.relay_agent_info.clear();
  record.last_extension = lease::Extension::None;
  return record;
}

void name_to_remove(Lease& record) {
  if (!record.fqdn.empty()) record.dns_state = lease::DnsState::Pending;
}

Lease released_at(Lease record, TimePoint now) {
  record.state = LeaseState::Released;
  name_to_remove(record);
  if (now < record.expires_at()) record.lease_time = std::max(Duration{0}, now - record.granted_at);
  return record;
}

bool may_change(const std::optional<lease::LeaseTable::Facts>& current, const Lease& change) {
  const bool own = current != std::nullopt && current->of_client;
  const bool nobody = change.client.empty();
  switch (change.state) {
    case LeaseState::Offered:  // a hold, never a record
      return false;
    case LeaseState::Bound:  // never over another client's offer, lease or decline hold
      return current == std::nullopt || own || !current->has_client || !is_active(current->state);
    case LeaseState::Released:  // by the client holding it (or an operator for it)
      return own && current->state == LeaseState::Bound;
    case LeaseState::Declined:  // by the client offered or holding it; offer-ping: by nobody
      return nobody || (own && (current->state == LeaseState::Offered || current->state == LeaseState::Bound));
    case LeaseState::Expired:  // a bound lease's end, or a record given back to nobody
      return nobody ? current != std::nullopt : own && current->state == LeaseState::Bound;
  }
  return false;
}

std::optional<Ledger::Facts> Ledger::last_lease(Ipv4 address, const ClientKey& client) const {
  const auto record = table_.facts(address, client);
  if (record == std::nullopt || record->state != LeaseState::Offered) return record;
  const auto covered = table_.covered(address);
  if (covered == std::nullopt) return std::nullopt;
  return Facts::of(*covered, client);
}

bool Ledger::stands(const Lease& written) const {
  const std::optional<Lease> current = table_.find(written.address);
  return current != std::nullopt && current->client == written.client &&
         current->state == written.state && current->fencing_token == written.fencing_token &&
         current->granted_at == written.granted_at && current->lease_time == written.lease_time;
}

// Every written record passes the store's rule (postgres_schema.hpp): a higher token, or the
// same token from the same client (and, bound, the same server).
lease::FencingToken Ledger::token(Token rule, const std::optional<Facts>& previous) const {
  if (previous == std::nullopt) return rule == Token::Kept ? 0 : 1;
  switch (rule) {
    case Token::Kept:
      return previous->fencing_token;
    case Token::Follows: {
      const bool ours = previous->of_client && !token_elsewhere(previous->address);
      return ours ? previous->fencing_token : previous->fencing_token + 1;
    }
    case Token::NewEpoch:
      return previous->fencing_token + 1;
  }
  LANDLORD_ASSERT(false && "a token rule without a token");
  return 0;
}

void Ledger::write(Lease& change, Token rule) {
  const auto current = table_.facts(change.address, change.client);
  LANDLORD_ASSERT(may_change(current, change));
  std::optional<Facts> previous = current;
  if (current != std::nullopt && current->state == LeaseState::Offered) {
    const auto covered = table_.covered(change.address);
    previous = covered ? std::optional<Facts>{Facts::of(*covered, change.client)} : std::nullopt;
  }
  change.fencing_token = token(rule, previous);
  // The token never goes backwards for an address: the store would refuse the record.
  LANDLORD_ASSERT(previous == std::nullopt || change.fencing_token >= previous->fencing_token);
  put(change);
}

void Ledger::settle_dns(Lease record, lease::DnsState state) {
  const std::optional<Lease> current = table_.find(record.address);
  LANDLORD_ASSERT(current != std::nullopt && current->state != LeaseState::Offered &&
                  current->client == record.client && current->state == record.state &&
                  current->fencing_token == record.fencing_token);
  record.dns_state = state;
  put(std::move(record));
}

void Ledger::hold(Lease offer, TimePoint until) {
  LANDLORD_ASSERT(offer.state == LeaseState::Offered);
  offer.fencing_token = token(Token::Kept, last_lease(offer.address, offer.client));
  const Ipv4 address = offer.address;
  const auto before = table_.availability(address);
  table_.hold(std::move(offer), until);
  file(address, before);
}

void Ledger::end_hold(Ipv4 address) {
  const auto before = table_.availability(address);
  table_.end_hold(address);
  file(address, before);
}

void Ledger::learn(Lease record) { put(std::move(record)); }

void Ledger::put(Lease record) {
  const Ipv4 address = record.address;
  note_writer(record);
  const auto before = table_.availability(address);
  table_.put(std::move(record));
  file(address, before);
}

void Ledger::file(Ipv4 address, const lease::Availability& before) {
  const auto after = table_.availability(address);
  allocator_.move(address, before, after);
  // Pool bookkeeping: the address is filed where its record says (free and clean, free with
  // an ended lease's affinity, or taken), and the pool's free addresses never outnumber it.
  LANDLORD_ASSERT(allocator_.files_as(address, after));
  if (const auto usage = allocator_.usage_of_pool_at(address)) {
    LANDLORD_ASSERT(usage->clean + usage->affinity <= usage->total);
  }
}

// Whose the address's token is after `record` goes in, as the store decides it: the row's
// writer, which a record from the store names (observe, restore); a record of our own makes
// the token ours when it is bound or raises the token (the store's rule, postgres_schema.hpp).
void Ledger::note_writer(const Lease& record) {
  const std::uint32_t address = record.address.to_uint();
  if (!record.writer.is_zero()) {
    if (own_server_id_ && record.writer == *own_server_id_) {
      tokens_elsewhere_.erase(address);
    } else {
      tokens_elsewhere_.insert(address);
    }
    return;
  }
  if (tokens_elsewhere_.empty() || !tokens_elsewhere_.contains(address)) return;
  const auto previous = table_.facts(record.address, record.client);
  if (record.state == LeaseState::Bound || previous == std::nullopt ||
      record.fencing_token > previous->fencing_token) {
    tokens_elsewhere_.erase(address);
  }
}

void Ledger::rebuild(const Topology& topology, std::optional<Ipv4> own_server_id) {
  own_server_id_ = own_server_id;
  allocator_ = lease::Allocator{};
  for (const SubnetView& view : topology.subnets()) {
    const config::Subnet& subnet = *view.subnet;
    for (const config::Reservation& reservation : subnet.reservations) {
      allocator_.exclude(reservation.address);
    }
    if (subnet.subnet.prefix_length <= 30) {  // no hosts on the network and broadcast address
      allocator_.exclude(subnet.subnet.network);
      allocator_.exclude(subnet.subnet.broadcast());
    }
    for (const config::AddressRange& pool : subnet.pools) {
      allocator_.add_pool(subnet.id, pool.first, pool.last);
    }
  }
  table_.for_each([&](const Lease& record) {
    allocator_.move(record.address, {}, lease::Availability::of(&record));
  });
}

}  // namespace landlord::engine
