#pragma once
// Peers split new clients by hash and let a client whose peer may be down through once its
// `secs` reaches answer-all-after (load_balance.hpp). A client that always sends secs = 0 would
// never get through, so the server also remembers when it first saw each client's DISCOVER it
// left to a peer, and counts the time since; the same for an INIT-REBOOT left to the peer that
// holds the lease (engine.cpp, init_reboot), and a client that gives up rebooting and
// DISCOVERs goes on counting. Bounded: at most kCapacity clients remembered; a client silent
// for kForgetAfter starts over; one that sends any other REQUEST (it got an OFFER, from
// anyone, or holds a lease) is forgotten.
#include <unordered_map>

#include "landlord/base/client_id.hpp"
#include "landlord/base/time.hpp"

namespace landlord::engine {

class DiscoverWaits {
 public:
  // ~300 bytes a client at most (a 255-byte client identifier): a few MB under a flood.
  static constexpr std::size_t kCapacity = 16384;
  // RFC 2131 §4.1: DISCOVERs are retransmitted at most 64 s (±1 s) apart.
  static constexpr Duration kForgetAfter = std::chrono::seconds{70};

  // How long `client` has been sending DISCOVERs left to a peer, as this server saw it: zero at
  // its first one (or its first after a silence of kForgetAfter), which is remembered. A new
  // client is not remembered (zero, every time) while kCapacity others are, until they age out.
  Duration trying_for(const ClientKey& client, TimePoint now);
  void forget(const ClientKey& client) { seen_.erase(client); }
  std::size_t size() const { return seen_.size(); }

 private:
  struct Seen {
    TimePoint first, last;
  };
  void drop_silent(TimePoint now);

  std::unordered_map<ClientKey, Seen> seen_;
  TimePoint swept_at_{};  // a full table is swept at most once a second: no O(n) per packet
};

}  // namespace landlord::engine
