#pragma once
// The server-side half of the checks. The fleet's auditor judges the server from its replies
// alone; these look inside: the engine's table, the durable store, and how the two relate to
// what the clients were told. Each rule has a short name that failing runs print.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "landlord/engine/engine.hpp"
#include "landlord/sim/fleet.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::simulation {

struct Finding {
  TimePoint at;
  std::string rule;
  std::string detail;
};

// The store's records by address, as load() streams them.
using StoreSnapshot = std::map<Ipv4, lease::Lease>;

std::string describe(const lease::Lease& lease);
ClientKey key_of(const sim::Client& client);

class Invariants {
 public:
  // `expiry_slack`: how long a bound record may outlive its expiry in the store (a reclaim
  // pass, a commit, a server restart in between).
  explicit Invariants(Duration expiry_slack) : expiry_slack_(expiry_slack) {}

  // Every commit: the engine never writes a stale token, per address tokens never go
  // backwards in the store, and each token follows the rule (+1 on a change of client).
  // A refusal is no violation when an earlier record of another client for the same address
  // failed and is not written yet: the store saw the new holder first (counted, not reported).
  void on_commit(std::span<const lease::Lease> batch, std::span<const store::WriteResult> results,
                 TimePoint now);
  // A failed commit: none of `batch` is in the store.
  void on_failed_commit(std::span<const lease::Lease> batch);
  // A crash: whatever waited for a retry is gone with the process; a restarted engine reads
  // the rival's writes from the store.
  void on_crash() {
    unwritten_.clear();
    unobserved_.clear();
  }
  // A rival server's write the store took. Until this server observes it, a refusal of this
  // server's write to the address is the fence working, and the engine may disagree with the
  // store about the address.
  void on_rival_write(const lease::Lease& record);
  void on_observed(Ipv4 address, TimePoint now) {
    unobserved_.erase(address);
    observed_at_.insert_or_assign(address, now);
  }
  // The store's token for `address` as far as the commits seen tell (0: never written).
  lease::FencingToken store_token(Ipv4 address) const;
  std::size_t rival_fenced() const { return rival_fenced_; }
  std::size_t out_of_order_refusals() const { return out_of_order_refusals_; }
  // The table alone: one record per address, one bound lease per client and subnet, the
  // by-client index agrees with the records, nothing bound past its expiry, the allocator's
  // free counts agree with the records (`pool_size`: the one pool's addresses).
  void check_engine(const engine::Engine& engine, std::uint64_t pool_size, TimePoint now);
  // With nothing waiting to commit: the engine holds exactly what the store holds (offer
  // holds aside: they live in memory only).
  void check_engine_matches_store(const engine::Engine& engine, const StoreSnapshot& store,
                                  TimePoint now);
  // Nothing acknowledged is lost: a client holding a lease (ACKed, unexpired) finds it in the
  // store, bound to it, on the same address, running at least as long as the client thinks.
  void check_client_leases_durable(const sim::Fleet& fleet, const StoreSnapshot& store,
                                   TimePoint now);
  // Leases nobody renews (vanished clients) end in the store within lease time + slack.
  void check_store_expiry(const StoreSnapshot& store, TimePoint now);
  // The store holds exactly the last record committed for each address: nothing committed
  // is lost or rolled back, across a reopen too.
  void check_store_keeps_commits(const StoreSnapshot& store, TimePoint now);

  void report(TimePoint at, std::string_view rule, std::string detail);
  const std::vector<Finding>& findings() const { return findings_; }
  std::size_t count() const { return count_; }

 private:
  Duration expiry_slack_;
  std::unordered_map<Ipv4, lease::FencingToken> highest_token_;
  std::unordered_map<Ipv4, lease::Lease> last_committed_;
  std::unordered_multimap<Ipv4, ClientKey> unwritten_;  // failed records not written since
  std::size_t out_of_order_refusals_ = 0;
  std::unordered_map<Ipv4, lease::Lease> rival_;  // the rival's last write per address
  std::unordered_set<Ipv4> unobserved_;           // ... not yet seen by this server's engine
  std::unordered_map<Ipv4, TimePoint> observed_at_;
  std::size_t rival_fenced_ = 0;
  std::vector<Finding> findings_;  // the first few, in order
  std::size_t count_ = 0;
};

}  // namespace landlord::simulation
