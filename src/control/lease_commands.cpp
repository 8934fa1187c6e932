// lease4-get, -get-all, -get-page, -add, -update, -del, -wipe and leases-reclaim. Reads come
// from the engine's table; every change is decided by the engine (engine::Engine::admin_*) and
// answered only once the daemon has made its records durable.
#include <algorithm>
#include <memory>

#include "arguments.hpp"
#include "handlers.hpp"
#include "lease_json.hpp"

namespace landlord::control::handlers {
namespace {

constexpr std::uint64_t kMaxSubnetId = 0xffffffffu;
constexpr std::uint64_t kMaxPageLimit = 65536;
constexpr std::size_t kReclaimAtOnce = 65536;

std::string plural_leases(std::size_t count) { return std::to_string(count) + " IPv4 lease(s) found."; }

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

Lookup find_lease(Daemon& daemon, const Json& arguments) {
  Arguments args{arguments};
  const auto address = args.address("ip-address");
  if (address) return {daemon.engine().find(*address), {}};
  const auto type = args.text("identifier-type", !args.failed());
  const auto identifier = args.text("identifier", !args.failed());
  const auto subnet = args.number("subnet-id", 1, kMaxSubnetId, !args.failed());
  if (args.failed()) return {std::nullopt, args.error() + " (give ip-address, or identifier-type, identifier and subnet-id)"};
  std::optional<HardwareAddress> hardware;
  std::optional<ClientId> client_id;
  if (*type == "hw-address") {
    hardware = HardwareAddress::parse(*identifier);
  } else if (*type == "client-id") {
    client_id = ClientId::parse(*identifier);
  } else {
    return {std::nullopt, "'identifier-type' must be hw-address or client-id"};
  }
  if (!hardware && !client_id) return {std::nullopt, "'identifier': '" + *identifier + "' is not colon hex"};
  // The client's most recent record in the subnet (a client keyed by its client id is found by
  // its hardware address too).
  std::optional<lease::Lease> found;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (lease.subnet_id != *subnet) return;
    if (hardware ? !(lease.hardware == *hardware) : !(lease.client_id == *client_id)) return;
    if (!found || found->granted_at < lease.granted_at) found = lease;
  });
  return {found, {}};
}

std::optional<lease::LeaseState> parse_state(std::string_view text) {
  for (auto state : {lease::LeaseState::Offered, lease::LeaseState::Bound, lease::LeaseState::Released,
                     lease::LeaseState::Expired, lease::LeaseState::Declined}) {
    if (lease::to_string(state) == text) return state;
  }
  return std::nullopt;
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

}  // namespace

void lease4_get(Daemon& daemon, const Json& arguments, Reply reply) {
  const Lookup lookup = find_lease(daemon, arguments);
  if (!lookup.error.empty()) return reply(answer(kError, lookup.error));
  if (!lookup.lease) return reply(answer(kEmpty, "Lease not found."));
  reply(answer(kSuccess, "IPv4 lease found.", lease_to_json(*lookup.lease, daemon.now())));
}

// "subnets": [ids] (Kea) and landlord's "state": bound, released, expired, declined, offered.
void lease4_get_all(Daemon& daemon, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto subnets = args.numbers("subnets");
  const auto state_name = args.text("state");
  if (args.failed()) return reply(answer(kError, args.error()));
  const auto state = state_name ? parse_state(*state_name) : std::nullopt;
  if (state_name && !state) {
    return reply(answer(kError, "'state' must be one of offered, bound, released, expired, declined"));
  }
  const TimePoint now = daemon.now();
  std::vector<lease::Lease> found;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (subnets && std::find(subnets->begin(), subnets->end(), lease.subnet_id) == subnets->end()) return;
    if (state && lease.state != *state) return;
    found.push_back(lease);
  });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
  Json leases = Json::array();
  for (const auto& lease : found) leases.push_back(lease_to_json(lease, now));
  reply(answer(found.empty() ? kEmpty : kSuccess, plural_leases(found.size()), {{"leases", std::move(leases)}}));
}

// Pages in address order: "from" is "start" or the last address of the previous page.
void lease4_get_page(Daemon& daemon, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto from_text = args.text("from", true);
  const auto limit = args.number("limit", 1, kMaxPageLimit, true);
  if (args.failed()) return reply(answer(kError, args.error()));
  std::optional<Ipv4> from;
  if (*from_text != "start") {
    from = Ipv4::parse(*from_text);
    if (!from) return reply(answer(kError, "'from' must be \"start\" or an IPv4 address"));
  }
  std::vector<lease::Lease> found;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (!from || *from < lease.address) found.push_back(lease);
  });
  const auto count = std::min<std::size_t>(found.size(), *limit);
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(count), found.end(),
                    [](const auto& a, const auto& b) { return a.address < b.address; });
  const TimePoint now = daemon.now();
  Json leases = Json::array();
  for (std::size_t i = 0; i < count; ++i) leases.push_back(lease_to_json(found[i], now));
  reply(answer(count == 0 ? kEmpty : kSuccess, plural_leases(count),
               {{"leases", std::move(leases)}, {"count", count}}));
}

void lease4_add(Daemon& daemon, const Json& arguments, Reply reply) {
  grant(daemon, arguments, false, std::move(reply));
}

void lease4_update(Daemon& daemon, const Json& arguments, Reply reply) {
  grant(daemon, arguments, true, std::move(reply));
}

// Revokes: the lease ends now and its record stays (Released), so the client's next renewal
// is NAKed and its address is free for others.
void lease4_del(Daemon& daemon, const Json& arguments, Reply reply) {
  const Lookup lookup = find_lease(daemon, arguments);
  if (!lookup.error.empty()) return reply(answer(kError, lookup.error));
  if (!lookup.lease) return reply(answer(kEmpty, "IPv4 lease not found."));
  if (refuse_if_store_down(daemon, reply)) return;
  auto change = daemon.engine().admin_revoke(lookup.lease->address, daemon.now());
  if (!change) return reply(answer(result_of(change.error().kind), change.error().reason));
  commit_then_answer(daemon, std::move(*change), "IPv4 lease deleted.", nullptr, std::move(reply));
}

// Every bound or declined lease of one subnet revoked, in one commit; needs "confirm": true.
void lease4_wipe(Daemon& daemon, const Json& arguments, Reply reply) {
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
  std::vector<Ipv4> addresses;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (lease.subnet_id == *subnet &&
        (lease.state == lease::LeaseState::Bound || lease.state == lease::LeaseState::Declined)) {
      addresses.push_back(lease.address);
    }
  });
  const TimePoint now = daemon.now();
  engine::Outcome change{std::nullopt, {}, {engine::EventKind::Admin, {}, "revoked by operator"}};
  for (const Ipv4 address : addresses) {
    auto revoked = daemon.engine().admin_revoke(address, now);
    if (revoked) change.mutations.push_back(std::move(revoked->mutations.front()));
  }
  const auto count = change.mutations.size();
  if (count == 0) return reply(answer(kEmpty, "no leases in subnet " + std::to_string(*subnet)));
  commit_then_answer(daemon, std::move(change),
                     "Deleted " + std::to_string(count) + " IPv4 lease(s) from subnet(s) " + std::to_string(*subnet),
                     {{"deleted", count}}, std::move(reply));
}

// Expires every lease past its end now rather than at the expiry timer. Records are never
// removed (an address's fencing token lives on in its record), whatever "remove" says.
void leases_reclaim(Daemon& daemon, const Json& arguments, Reply reply) {
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
