#pragma once
// The client classes of a message as the engine's handlers ask for them (classes.hpp decides
// membership, lease_classes.hpp what a lease keeps): none configured, every client is in none
// and may use every pool.
#include <cstdint>

#include "landlord/config/config.hpp"
#include "landlord/wire/message.hpp"
#include "ledger.hpp"

namespace landlord::engine {

class ClientClasses {
 public:
  ClientClasses(const config::Config& config, const Ledger& ledger) : config_(config), ledger_(ledger) {}

  // The classes the message matches.
  std::uint64_t of(const wire::Message& message) const;
  // The classes of a message about the client's own bound lease on `address` (a renewal, a
  // rebind, a reboot's confirmation, an INFORM): those kept with the lease count too unless
  // the message contradicts them (lease_classes.hpp).
  std::uint64_t of(const wire::Message& message, Ipv4 address, const ClientKey& client) const;
  // ... for a caller that already knows `address` is the client's own bound lease.
  std::uint64_t of_held(const wire::Message& message, Ipv4 address) const;
  // The lease times of the first class in `member_of` that has them, or null.
  const config::LeaseTimes* lease_times(std::uint64_t member_of) const;

 private:
  const config::Config& config_;
  const Ledger& ledger_;
};

}  // namespace landlord::engine
