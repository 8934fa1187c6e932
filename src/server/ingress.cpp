#include "landlord/server/ingress.hpp"

namespace landlord::server {

engine::Ingress make_ingress(const Datagram& datagram, const Link* link) {
  engine::Ingress ingress;
  ingress.interface_index = datagram.interface_index;
  ingress.source_address = datagram.source;
  ingress.source_port = datagram.source_port;
  if (link != nullptr) {
    ingress.interface_name = link->name;
    ingress.to_broadcast = link->is_broadcast_of(datagram.header_destination);
    // Our address on that link: the one the client unicast to, else the link's first.
    ingress.interface_address = !ingress.to_broadcast && link->attaches(datagram.header_destination)
                                    ? datagram.header_destination
                                    : link->primary_address();
  }
  return ingress;
}

bool serves(const wire::Message& request, const engine::Ingress& ingress,
            const std::unordered_set<std::uint32_t>& served_interfaces) {
  if (!request.giaddr.is_zero()) return true;
  if (served_interfaces.contains(ingress.interface_index)) return true;
  return !ingress.to_broadcast && !request.ciaddr.is_zero();
}

bool waited_too_long(const Datagram& datagram, std::int64_t now_ns, Duration max_wait) {
  if (max_wait <= Duration{0} || datagram.queued_at_ns == 0) return false;
  return now_ns - datagram.queued_at_ns > std::chrono::nanoseconds{max_wait}.count();
}

}  // namespace landlord::server
