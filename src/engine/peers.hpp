#pragma once
// Peers (config.peers) and servers sharing a store: which of them answers a client's DISCOVER
// or INIT-REBOOT, and which peers the store says are down. Decides only; the handlers act.
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "discover_waits.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/engine/load_balance.hpp"
#include "ledger.hpp"
#include "topology.hpp"

namespace landlord::engine {

class Peers {
 public:
  Peers(const config::Config& config, const Ledger& ledger)
      : config_(config), ledger_(ledger), share_(peer_share(config)) {}

  // This server's part of the clients and pools when peers split them; none without peers.
  const std::optional<PeerShare>& share() const { return share_; }
  void reconfigure() { share_ = peer_share(config_); }

  // Whether this server answers the DISCOVER: by the subnet's primary (when it has one) or by
  // the client's RFC 3074 bucket, or because its `secs` says it has waited long enough.
  bool answers_here(const SubnetView& view, const wire::Message& message) const;
  // Whether the DISCOVER is answered now: answers_here(), or the client has been trying that
  // long as far as this server saw (a client that leaves secs at 0). Peers only.
  bool answers_discover_now(const SubnetView& view, const wire::Message& message,
                            const ClientKey& client, TimePoint now);
  // The peer whose client this is (by the subnet's primary or the client's bucket), when the
  // store says it is down (peers_up).
  std::optional<Ipv4> down_peer_of(const SubnetView& view, const wire::Message& message) const;
  // Whether this server answers the INIT-REBOOT for `requested` now (engine.cpp init_reboot);
  // when it does not, counted by whom it is left to: the holder of the lease's token, or the
  // client's own peer.
  bool answers_reboot(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                      Ipv4 requested, TimePoint now, Counters& counters);
  // A client that was offered an address or holds one is no longer waiting.
  void stopped_waiting(const ClientKey& client) { discover_waits_.forget(client); }
  // Several servers may confirm one reboot: peers (answer-all-after passed, the holder slow),
  // and any servers sharing a store without `peers:`, which all answer every INIT-REBOOT.
  bool shared_store() const;

  // Engine::peers_up.
  std::vector<Ipv4> up(std::span<const Ipv4> up);

 private:
  const config::Config& config_;
  const Ledger& ledger_;
  std::optional<PeerShare> share_;
  DiscoverWaits discover_waits_;  // how long clients left to a peer have been trying
  std::unordered_set<std::uint32_t> down_;  // server-ids of peers the store says are down
};

}  // namespace landlord::engine
