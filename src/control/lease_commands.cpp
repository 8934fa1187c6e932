// lease4-get, -add, -update, -del, -wipe and leases-reclaim (lease4-get-all and -get-page are in
// lease_list_commands.cpp). Reads come from the engine's table, a lookup by client in pieces
// between packets (table_scan.hpp); every change is decided by the engine
// (engine::Engine::admin_*) and answered only once the daemon has made its records durable.
#include <algorithm>
#include <memory>
#include <utility>

#include "arguments.hpp"
#include "handlers.hpp"
#include "lease_json.hpp"

namespace landlord::control::handlers {
namespace {

constexpr std::uint64_t kMaxSubnetId = 0xffffffffu;
constexpr std::size_t kReclaimAtOnce = 65536;
// lease4-wipe's revocations per turn of the event loop: each is a change to the table's indexes
// and a record for the store, dearer than reading a record, so fewer than a scan's piece.
constexpr std::size_t kRevokePiece = 1024;
// lease4-wipe's pieces at the store at once (submitted, not answered yet). The store's commit
// queue takes 16,384 records (store::CommitQueueOptions::capacity_records) and refuses beyond,
// for DHCP's records too; a piece is made in far less time than it takes to commit, so without
// this bound a large wipe filled the queue (18 pieces in, the 19th refused) and stopped.
constexpr std::size_t kPiecesAtTheStore = 4;

int result_of(engine::AdminRefusal::Kind kind) {
  return kind == engine::AdminRefusal::Kind::NotFound ? kEmpty : kError;
}

// Changes refused up front while the store is down: nothing is changed in memory either.
bool refuse_if_store_down(Daemon& daemon, const Reply& reply) {
  if (daemon.counters().store_healthy) return false;
  reply(answer(kError, "the lease store is not accepting writes; nothing was changed"));
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
  const auto hostname = args.text("hostname");
  const auto subnet = args.number("subnet-id", 0, kMaxSubnetId);
  const auto lifetime = args.number("valid-lft", 1, 0xfffffffeu);
  if (args.failed()) return std::nullopt;
  lease.address = *address;
  if (hardware) lease.hardware = *hardware;
  if (client_id) lease.client_id = *client_id;
  lease.hostname = hostname.value_or("");
  lease.subnet_id = static_cast<std::uint32_t>(subnet.value_or(0));
  if (lifetime) lease.lease_time = std::chrono::seconds{*lifetime};
  return lease;
}

void grant(Daemon& daemon, const Json& arguments, bool update, Reply reply) {
  Arguments args{arguments};
  const auto request = read_admin_lease(args);
  const bool force_create = args.flag("force-create").value_or(false);
  if (args.failed()) return reply(answer(kError, args.error()));
  if (refuse_if_store_down(daemon, reply)) return;
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

// lease4-wipe in progress.
struct Wipe {
  std::uint32_t subnet_id = 0;
  Reply reply;
  std::vector<Ipv4> addresses;  // found by the scan
  std::size_t next = 0;         // addresses[next...] not revoked yet
  std::size_t revoked = 0;      // records handed to the store
  std::size_t durable = 0;      // ... and written
  std::size_t committing = 0;   // pieces whose commit has not answered yet
  bool paused = false;          // kPiecesAtTheStore are committing: the next answer resumes
  bool stopped = false;         // no piece is revoked any more (all done, or the store failed)
  std::string error;            // the first failure
};

void answer_wipe(Wipe& wipe) {
  if (!wipe.stopped || wipe.committing > 0 || !wipe.reply) return;
  const Reply reply = std::exchange(wipe.reply, nullptr);
  const std::string subnet = std::to_string(wipe.subnet_id);
  if (!wipe.error.empty()) {
    return reply(answer(kError, wipe.error + "; of " + std::to_string(wipe.addresses.size()) + " lease(s) in subnet " +
                                    subnet + ", " + std::to_string(wipe.durable) + " revoked and durable, " +
                                    std::to_string(wipe.revoked - wipe.durable) +
                                    " revoked and waiting for the store, " +
                                    std::to_string(wipe.addresses.size() - wipe.next) + " left as they were",
                        {{"deleted", wipe.durable}}));
  }
  if (wipe.revoked == 0) return reply(answer(kEmpty, "no leases in subnet " + subnet));
  reply(answer(kSuccess, "Deleted " + std::to_string(wipe.revoked) + " IPv4 lease(s) from subnet(s) " + subnet,
               {{"deleted", wipe.revoked}}));
}

// One piece of lease4-wipe: up to kRevokePiece addresses revoked as they are now, committed; the
// next piece in a later turn of the event loop, or, while kPiecesAtTheStore pieces are
// committing, once one of them is answered.
void revoke_piece(Daemon& daemon, const std::shared_ptr<Wipe>& wipe) {
  if (wipe->error.empty() && !daemon.counters().store_healthy) {
    wipe->error = "the lease store is not accepting writes";
  }
  if (!wipe->error.empty()) {
    wipe->stopped = true;
    return answer_wipe(*wipe);
  }
  if (wipe->committing >= kPiecesAtTheStore) {
    wipe->paused = true;
    return;
  }
  const TimePoint now = daemon.now();
  engine::Outcome change{std::nullopt, {}, {engine::EventKind::Admin, {}, "revoked by operator"}};
  const std::size_t until = std::min(wipe->addresses.size(), wipe->next + kRevokePiece);
  for (; wipe->next < until; ++wipe->next) {
    auto revoked = daemon.engine().admin_revoke(wipe->addresses[wipe->next], now);
    if (revoked) change.mutations.push_back(std::move(revoked->mutations.front()));
  }
  wipe->stopped = wipe->next == wipe->addresses.size();
  if (const std::size_t count = change.mutations.size(); count > 0) {
    wipe->revoked += count;
    ++wipe->committing;
    daemon.commit(std::move(change), [&daemon, wipe, count](Expected<void, std::string> done) {
      --wipe->committing;
      if (done) {
        wipe->durable += count;
      } else if (wipe->error.empty()) {
        wipe->error = done.error();
      }
      if (std::exchange(wipe->paused, false)) {
        return daemon.defer([&daemon, wipe] { revoke_piece(daemon, wipe); });
      }
      answer_wipe(*wipe);
    });
  }
  if (!wipe->stopped) return daemon.defer([&daemon, wipe] { revoke_piece(daemon, wipe); });
  answer_wipe(*wipe);
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
    // The engine decides on the address as it is now, whatever the scan read.
    auto change = daemon.engine().admin_revoke(lookup.lease->address, daemon.now());
    if (!change) return reply(answer(result_of(change.error().kind), change.error().reason));
    commit_then_answer(daemon, std::move(*change), "IPv4 lease deleted.", nullptr, reply);
  });
}

// Every bound or declined lease of one subnet revoked; needs "confirm": true. The candidates are
// found by a scan (in pieces between packets), then revoked kRevokePiece at a time, a piece per
// turn of the event loop, each piece committed as soon as it is made; the answer comes once every
// piece is durable. A failing store stops it: what was revoked stays revoked (and is written when
// the store recovers), the rest is left as it was, and the answer says how many of each.
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
  auto wipe = std::make_shared<Wipe>();
  wipe->subnet_id = static_cast<std::uint32_t>(*subnet);
  wipe->reply = std::move(reply);
  scanner.scan(
      [wipe](const lease::Lease& lease) {
        if (lease.subnet_id == wipe->subnet_id &&
            (lease.state == lease::LeaseState::Bound || lease.state == lease::LeaseState::Declined)) {
          wipe->addresses.push_back(lease.address);
        }
      },
      [&daemon, wipe] { revoke_piece(daemon, wipe); });
}

// Expires every lease past its end now rather than at the expiry timer. Records are never
// removed (an address's fencing token lives on in its record), whatever "remove" says.
void leases_reclaim(Daemon& daemon, TableScanner&, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto remove = args.flag("remove");
  if (args.failed()) return reply(answer(kError, args.error()));
  if (refuse_if_store_down(daemon, reply)) return;
  engine::Outcome change{std::nullopt, daemon.engine().reclaim(daemon.now(), kReclaimAtOnce),
                         {engine::EventKind::Expire, {}, "reclaimed by operator"}};
  const auto count = change.mutations.size();
  std::string text = "Reclamation of expired leases is complete: " + std::to_string(count) + " reclaimed.";
  if (remove.value_or(false)) text += " Records are kept: landlord never removes one (its fencing token lives on).";
  commit_then_answer(daemon, std::move(change), std::move(text), {{"reclaimed", count}}, std::move(reply));
}

}  // namespace landlord::control::handlers
