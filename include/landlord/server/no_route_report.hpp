#pragma once
// Replies dropped because the host has no route to their destination (a renewing client or a
// relay agent reachable only through a default route, or not at all): every drop is counted,
// and each destination is reported once, so a client retrying every few seconds does not fill
// the log while a new unreachable destination is always named.
#include <cstddef>
#include <cstdint>
#include <unordered_set>

#include "landlord/base/ipv4.hpp"

namespace landlord::server {

class NoRouteReport {
 public:
  // At most `remembered_max` destinations are remembered; past that the memory starts over,
  // so each is reported once again (bounded memory against a flood of spoofed ciaddrs).
  explicit NoRouteReport(std::size_t remembered_max = 4096) : remembered_max_(remembered_max) {}

  // Counts a drop; true when `destination` has not been reported yet.
  bool first_drop_to(Ipv4 destination);
  std::uint64_t drops() const { return drops_; }

 private:
  std::size_t remembered_max_;
  std::unordered_set<std::uint32_t> reported_;
  std::uint64_t drops_ = 0;
};

}  // namespace landlord::server
