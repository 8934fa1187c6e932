#pragma once
// Relayed copies of a unicast renewal. ISC dhcrelay reads its client-facing link with a packet
// socket, so on the router it also relays the unicast RENEWING request it forwards: the server
// gets the renewal twice, straight from the client (giaddr 0) and again with the relay's giaddr,
// which reads as REBINDING (RFC 2131 §4.3.2). The second is the same message: it must not count
// as a rebind, bump the lease's fencing token (a rebind is a new grant epoch) or cost a second
// store write. The engine drops it (the client has, or is about to get, the ACK of the first,
// which leaves only once durable) and counts it as a duplicate.
#include <array>
#include <cstdint>

#include "landlord/base/client_id.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

class RenewalCopies {
 public:
  // How long after a renewal its relayed copy is recognised (engine.hpp).
  static constexpr Duration kWindow = kRenewalCopyWindow;

  // A unicast renewal (giaddr 0, ciaddr set) from `client` was answered with an ACK at `now`.
  void remember(const wire::Message& renewal, const ClientKey& client, TimePoint now);
  // Whether `request` (relayed: giaddr set, ciaddr set) is the relayed copy of a renewal
  // remember()ed less than kWindow ago: same client, same xid, same ciaddr.
  bool is_copy(const wire::Message& request, const ClientKey& client, TimePoint now) const;

 private:
  struct Seen {
    std::uint64_t client_hash = 0;
    std::uint32_t xid = 0;
    Ipv4 ciaddr;
    TimePoint at;
  };
  // One slot per client hash: a fixed 16 KiB, no allocation per packet. Two clients renewing
  // into one slot within a second only cost the first its dedupe (its copy is handled as the
  // rebind it reads as, as before).
  static constexpr std::size_t kSlots = 512;
  std::array<Seen, kSlots> seen_{};
};

}  // namespace landlord::engine
