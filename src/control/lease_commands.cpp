// lease4-get, -add, -update, -del, -wipe and leases-reclaim (lease4-get-all and -get-page are in
// lease_list_commands.cpp). Reads come from the engine's table, a lookup by client in pieces
// between packets (table_scan.hpp); every change is decided by the engine
// (engine::Engine::admin_*) and answered only once the daemon has made its records durable.
#include <algorithm>
#include <memory>
#include <utility>

#include "arguments.hpp"
#include "handlers.hpp"
#include "landlord/control/change_in_pieces.hpp"
#include "landlord/ddns/name.hpp"
#include "lease_json.hpp"

namespace landlord::control::handlers {
namespace {

constexpr std::uint64_t kMaxSubnetId = 0xffffffffu;

int result_of(engine::AdminRefusal::Kind kind) {
  return kind == engine::AdminRefusal::Kind::NotFound ? kEmpty : kError;
}

// Changes refused up front while the store is down: nothing is changed in memory either.
bool refuse_if_store_down(Daemon& daemon, const Reply& reply) {
  if (daemon.counters().store_healthy) return false;
  reply(answer(kError, "the lease store is not accepting writes; nothing was changed"));
  return true;
}

// Changes that end a holder's lease (lease4-del, lease4-wipe, leases-reclaim) or write one's end
// (lease4-add, lease4-update) keep the expiry timer's rule (Daemon::may_end_leases: not while this
// server's clock disagrees with a shared store's, or has not been compared with it yet): refused
// up front, nothing changed.
bool refuse_if_may_not_end_leases(Daemon& daemon, const Reply& reply, const std::string& nothing, Json arguments) {
  auto allowed = daemon.may_end_leases();
  if (allowed) return false;
  reply(answer(kError, allowed.error() + "; " + nothing, std::move(arguments)));
  return true;
}

void commit_then_answer(Daemon& daemon, engine::Outcome change, std::string success, Json arguments,
                        Reply reply) {
  daemon.commit(std::move(change), [success = std::move(success), arguments = std::move(arguments),
                                    reply = std::move(reply)](Expected<void, std::string> done) {
    if (!done) return reply(answer(kError, done.error()));
    reply(answer(kSuccess, success, arguments));
  });
}

// The lease an identifier names: ip-address, or identifier-type + identifier + subnet-id.
struct Lookup {
  std::optional<lease::Lease> lease;
  std::string error;
};

// Calls `found` with the lookup: at once for an address; for a client, once a scan of the table
// (in pieces between packets) has found its most recent record in the subnet (a client keyed by
// its client id is found by its hardware address too).
void find_lease(Daemon& daemon, TableScanner& scanner, const Json& arguments, std::function<void(Lookup)> found) {
  Arguments args{arguments};
  const auto address = args.address("ip-address");
  if (address) return found({daemon.engine().find(*address), {}});
  const auto type = args.text("identifier-type", !args.failed());
  const auto identifier = args.text("identifier", !args.failed());
  const auto subnet = args.number("subnet-id", 1, kMaxSubnetId, !args.failed());
  if (args.failed()) {
    return found({std::nullopt, args.error() + " (give ip-address, or identifier-type, identifier and subnet-id)"});
  }
  std::optional<HardwareAddress> hardware;
  std::optional<ClientId> client_id;
  if (*type == "hw-address") {
    hardware = HardwareAddress::parse(*identifier);
  } else if (*type == "client-id") {
    client_id = ClientId::parse(*identifier);
  } else {
    return found({std::nullopt, "'identifier-type' must be hw-address or client-id"});
  }
  if (!hardware && !client_id) return found({std::nullopt, "'identifier': '" + *identifier + "' is not colon hex"});
  auto best = std::make_shared<std::optional<lease::Lease>>();
  scanner.scan(
      [best, hardware, client_id, subnet_id = *subnet](const lease::Lease& lease) {
        if (lease.subnet_id != subnet_id) return;
        if (hardware ? !(lease.hardware == *hardware) : !(lease.client_id == *client_id)) return;
        if (!*best || (*best)->granted_at < lease.granted_at) *best = lease;
      },
      [best, found = std::move(found)] { found({std::move(*best), {}}); });
}

std::optional<engine::AdminLease> read_admin_lease(Arguments& args) {
  engine::AdminLease lease;
  const auto address = args.address("ip-address", true);
  const auto hardware = args.hardware("hw-address");
  const auto client_id = args.client_id("client-id");
  const auto hostname = args.hostname("hostname");
  const auto subnet = args.number("subnet-id", 0, kMaxSubnetId);
  const auto lifetime = args.number("valid-lft", 1, 0xfffffffeu);
  const auto forward = args.flag("fqdn-fwd");
  const auto reverse = args.flag("fqdn-rev");
  if (args.failed()) return std::nullopt;
  if (forward || reverse) {
    lease.dns_sides = lease::DnsSides{forward.value_or(false), reverse.value_or(false)};
    // The name whose records these are must be one DNS can hold.
    if (lease.dns_sides->any() && hostname && !hostname->empty() &&
        (hostname->size() > 254 || !ddns::Name::from_text(*hostname))) {
      args.fail("'hostname' is not a DNS name, so 'fqdn-fwd' and 'fqdn-rev' cannot name its records");
      return std::nullopt;
    }
  }
  lease.address = *address;
  if (hardware) lease.hardware = *hardware;
  if (client_id) lease.client_id = *client_id;
  lease.hostname = hostname.value_or("");
  lease.subnet_id = static_cast<std::uint32_t>(subnet.value_or(0));
  if (lifetime) lease.lease_time = std::chrono::seconds{*lifetime};
  return lease;
}

// lease4-add and lease4-update write a lease end by this server's clock: while that clock
// disagrees with a shared store's, the other servers would not read it as the same moment, so
// they wait for the clocks as DHCP answers do (Daemon::may_end_leases).
void grant(Daemon& daemon, const Json& arguments, bool update, Reply reply) {
  Arguments args{arguments};
  const auto request = read_admin_lease(args);
  const bool force_create = args.flag("force-create").value_or(false);
  if (args.failed()) return reply(answer(kError, args.error()));
  if (refuse_if_store_down(daemon, reply)) return;
  if (refuse_if_may_not_end_leases(daemon, reply, "nothing was changed", nullptr)) return;
  const TimePoint now = daemon.now();
  auto change = daemon.engine().admin_grant(*request, update, now);
  if (!change && update && force_create && change.error().kind == engine::AdminRefusal::Kind::NotFound) {
    change = daemon.engine().admin_grant(*request, false, now);
  }
  if (!change) return reply(answer(result_of(change.error().kind), change.error().reason));
  const lease::Lease& granted = change->mutations.front();
  const std::string text = "Lease for address " + granted.address.to_string() + ", subnet-id " +
                           std::to_string(granted.subnet_id) + (update ? " updated." : " added.");
  Json shown = lease_to_json(granted, now);
  commit_then_answer(daemon, std::move(*change), text, std::move(shown), std::move(reply));
}

// lease4-wipe in progress: the addresses its scan found, revoked in pieces (change_in_pieces.hpp).
struct Wipe {
  std::uint32_t subnet_id = 0;
  std::vector<Ipv4> addresses;  // found by the scan
  std::size_t next = 0;         // addresses[next...] not revoked yet
};

void answer_wipe(const Wipe& wipe, const PiecesDone& done, const Reply& reply) {
  const std::string subnet = std::to_string(wipe.subnet_id);
  if (!done.error.empty()) {
    return reply(answer(kError, done.error + "; of " + std::to_string(wipe.addresses.size()) + " lease(s) in subnet " +
                                    subnet + ", " + std::to_string(done.durable) + " revoked and durable, " +
                                    std::to_string(done.changed - done.durable) +
                                    " revoked and waiting for the store, " +
                                    std::to_string(wipe.addresses.size() - wipe.next) + " left as they were",
                        {{"deleted", done.durable}}));
  }
  if (done.changed == 0) return reply(answer(kEmpty, "no leases in subnet " + subnet));
  reply(answer(kSuccess, "Deleted " + std::to_string(done.changed) + " IPv4 lease(s) from subnet(s) " + subnet,
               {{"deleted", done.changed}}));
}

}  // namespace

void lease4_get(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply) {
  find_lease(daemon, scanner, arguments, [&daemon, reply = std::move(reply)](const Lookup& lookup) {
    if (!lookup.error.empty()) return reply(answer(kError, lookup.error));
    if (!lookup.lease) return reply(answer(kEmpty, "Lease not found."));
    reply(answer(kSuccess, "IPv4 lease found.", lease_to_json(*lookup.lease, daemon.now())));
  });
}

void lease4_add(Daemon& daemon, TableScanner&, const Json& arguments, Reply reply) {
  grant(daemon, arguments, false, std::move(reply));
}

void lease4_update(Daemon& daemon, TableScanner&, const Json& arguments, Reply reply) {
  grant(daemon, arguments, true, std::move(reply));
}

// Revokes: the lease ends now and its record stays (Released), so the client's next renewal
// is NAKed and its address is free for others.
void lease4_del(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply) {
  find_lease(daemon, scanner, arguments, [&daemon, reply = std::move(reply)](const Lookup& lookup) {
    if (!lookup.error.empty()) return reply(answer(kError, lookup.error));
    if (!lookup.lease) return reply(answer(kEmpty, "IPv4 lease not found."));
    if (refuse_if_store_down(daemon, reply)) return;
    if (refuse_if_may_not_end_leases(daemon, reply, "nothing was changed", nullptr)) return;
    // The engine decides on the address as it is now, whatever the scan read.
    auto change = daemon.engine().admin_revoke(lookup.lease->address, daemon.now());
    if (!change) return reply(answer(result_of(change.error().kind), change.error().reason));
    commit_then_answer(daemon, std::move(*change), "IPv4 lease deleted.", nullptr, reply);
  });
}

// Every bound or declined lease of one subnet revoked; needs "confirm": true. The candidates are
// found by a scan (in pieces between packets), then revoked in pieces (change_in_pieces.hpp: a
// piece per turn of the event loop, each committed as soon as it is made, at most
// kPiecesAtTheStore at the store); the answer comes once every piece is durable. A failing store,
// or this server's clock ceasing to agree with a shared store's (Daemon::may_end_leases), stops
// it: what was revoked stays revoked (and is written when the store recovers), the rest is left
// as it was, and the answer says how many of each.
void lease4_wipe(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto subnet = args.number("subnet-id", 1, kMaxSubnetId, true);
  const auto confirm = args.flag("confirm");
  if (args.failed()) return reply(answer(kError, args.error()));
  if (*subnet > daemon.config().subnets.size()) {
    return reply(answer(kError, "no subnet " + std::to_string(*subnet)));
  }
  if (!confirm.value_or(false)) {
    return reply(answer(kError, "lease4-wipe revokes every lease of subnet " + std::to_string(*subnet) +
                                    ": repeat with \"confirm\": true"));
  }
  if (refuse_if_store_down(daemon, reply)) return;
  if (refuse_if_may_not_end_leases(daemon, reply, "nothing was revoked", {{"deleted", 0}})) return;
  auto wipe = std::make_shared<Wipe>();
  wipe->subnet_id = static_cast<std::uint32_t>(*subnet);
  scanner.scan(
      [wipe](const lease::Lease& lease) {
        if (lease.subnet_id == wipe->subnet_id &&
            (lease.state == lease::LeaseState::Bound || lease.state == lease::LeaseState::Declined)) {
          wipe->addresses.push_back(lease.address);
        }
      },
      [&daemon, wipe, reply = std::move(reply)] {
        change_in_pieces(
            daemon, {engine::EventKind::Admin, {}, "revoked by operator"},
            [&daemon, wipe](engine::Outcome& change, std::size_t most) {
              const TimePoint now = daemon.now();
              const std::size_t until = std::min(wipe->addresses.size(), wipe->next + most);
              for (; wipe->next < until; ++wipe->next) {
                // The engine decides on the address as it is now, whatever the scan read.
                auto revoked = daemon.engine().admin_revoke(wipe->addresses[wipe->next], now);
                if (revoked) change.mutations.push_back(std::move(revoked->mutations.front()));
              }
              return wipe->next == wipe->addresses.size();
            },
            [wipe, reply](const PiecesDone& done) { answer_wipe(*wipe, done, reply); },
            [&daemon] { return daemon.may_end_leases(); });
      });
}

// Expires every lease past its end now rather than at the expiry timer, in pieces like
// lease4-wipe (change_in_pieces.hpp): what is due when a piece is made, until nothing is due;
// the answer once every piece is durable. The expiry timer reclaims from the same engine
// meanwhile (no record is reclaimed twice); the answer counts this command's. Records are never
// removed (an address's fencing token lives on in its record), whatever "remove" says. The
// expiry timer's rule holds for it (Daemon::may_end_leases): refused up front, and stopped
// before the next piece, while this server's clock disagrees with a shared store's.
void leases_reclaim(Daemon& daemon, TableScanner&, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto remove = args.flag("remove");
  if (args.failed()) return reply(answer(kError, args.error()));
  if (refuse_if_store_down(daemon, reply)) return;
  if (refuse_if_may_not_end_leases(daemon, reply, "nothing was reclaimed", {{"reclaimed", 0}})) return;
  std::string kept;
  if (remove.value_or(false)) kept = " Records are kept: landlord never removes one (its fencing token lives on).";
  change_in_pieces(
      daemon, {engine::EventKind::Expire, {}, "reclaimed by operator"},
      [&daemon](engine::Outcome& change, std::size_t most) {
        const TimePoint now = daemon.now();
        change.mutations = daemon.engine().reclaim(now, most);
        const auto due = daemon.engine().next_deadline();
        return !due || *due > now;
      },
      [kept = std::move(kept), reply = std::move(reply)](const PiecesDone& done) {
        if (!done.error.empty()) {
          return reply(answer(kError, done.error + "; " + std::to_string(done.durable) + " reclaimed and durable, " +
                                          std::to_string(done.changed - done.durable) +
                                          " reclaimed and waiting for the store",
                              {{"reclaimed", done.durable}}));
        }
        reply(answer(kSuccess,
                     "Reclamation of expired leases is complete: " + std::to_string(done.changed) + " reclaimed." + kept,
                     {{"reclaimed", done.changed}}));
      },
      [&daemon] { return daemon.may_end_leases(); });
}

}  // namespace landlord::control::handlers
