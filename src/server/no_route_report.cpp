#include "landlord/server/no_route_report.hpp"

namespace landlord::server {

bool NoRouteReport::first_drop_to(Ipv4 destination) {
  ++drops_;
  if (reported_.contains(destination.to_uint())) return false;
  if (reported_.size() >= remembered_max_) reported_.clear();
  reported_.insert(destination.to_uint());
  return true;
}

}  // namespace landlord::server
