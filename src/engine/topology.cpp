#include "topology.hpp"

#include <algorithm>

namespace landlord::engine {

const config::Reservation* SubnetView::reservation_for(const ClientId& client_id,
                                                       const HardwareAddress& hardware) const {
  if (!client_id.empty()) {
    if (auto it = reservation_by_client_id.find(client_id.raw());
        it != reservation_by_client_id.end()) {
      return it->second;
    }
  }
  if (auto it = reservation_by_hardware.find(hardware); it != reservation_by_hardware.end()) {
    return it->second;
  }
  return nullptr;
}

const config::Reservation* SubnetView::reservation_for(const wire::Message& message) const {
  if (const auto* reservation = reservation_for(message.client_id(), message.hardware_address())) {
    return reservation;
  }
  if (message.giaddr.is_zero() || (reservation_by_circuit_id.empty() && reservation_by_remote_id.empty()) ||
      !message.options.has(wire::option::kRelayAgentInfo)) {
    return nullptr;
  }
  const auto info = wire::parse_relay_agent_info(message.options.get(wire::option::kRelayAgentInfo));
  if (!info) return nullptr;
  const auto find = [](const auto& index, std::span<const std::uint8_t> key) -> const config::Reservation* {
    if (key.empty()) return nullptr;
    const auto it = index.find(std::string{key.begin(), key.end()});
    return it == index.end() ? nullptr : it->second;
  };
  if (const auto* reservation = find(reservation_by_circuit_id, info->circuit_id)) return reservation;
  return find(reservation_by_remote_id, info->remote_id);
}

const config::Reservation* SubnetView::reservation_at(Ipv4 address) const {
  auto it = reservation_by_address.find(address.to_uint());
  return it == reservation_by_address.end() ? nullptr : it->second;
}

Topology::Topology(const config::Config& config) {
  subnets_.reserve(config.subnets.size());
  for (const config::Subnet& subnet : config.subnets) {
    SubnetView view;
    view.subnet = &subnet;
    view.lease_time = subnet.lease.time;
    view.renew_time = subnet.lease.renew_duration();
    view.rebind_time = subnet.lease.rebind_duration();
    for (const config::Reservation& reservation : subnet.reservations) {
      view.reservation_by_address.emplace(reservation.address.to_uint(), &reservation);
      if (reservation.mac) view.reservation_by_hardware.emplace(*reservation.mac, &reservation);
      if (reservation.client_id) {
        view.reservation_by_client_id.emplace(reservation.client_id->raw(), &reservation);
      }
      if (!reservation.circuit_id.empty()) {
        view.reservation_by_circuit_id.emplace(
            std::string{reservation.circuit_id.begin(), reservation.circuit_id.end()}, &reservation);
      }
      if (!reservation.remote_id.empty()) {
        view.reservation_by_remote_id.emplace(
            std::string{reservation.remote_id.begin(), reservation.remote_id.end()}, &reservation);
      }
    }
    subnets_.push_back(std::move(view));
  }
}

const SubnetView* Topology::containing(Ipv4 address) const {
  // Most specific subnet wins should configs ever nest; a handful of subnets: a scan is fine.
  const SubnetView* best = nullptr;
  for (const SubnetView& view : subnets_) {
    if (view.contains(address) && (best == nullptr || view.subnet->subnet.prefix_length >
                                                          best->subnet->subnet.prefix_length)) {
      best = &view;
    }
  }
  return best;
}

SubnetChoice Topology::select(const wire::Message& message, const Ingress& ingress) const {
  using namespace wire::option;
  if (message.options.has(kRelayAgentInfo)) {
    const auto info = wire::parse_relay_agent_info(message.options.get(kRelayAgentInfo));
    if (info && info->link_selection) {
      if (const SubnetView* view = containing(*info->link_selection)) return {view, {}};
      return {nullptr, "no subnet for the relay's link-selection sub-option (RFC 3527)"};
    }
  }
  if (const auto selection = message.options.get_ipv4(kSubnetSelection)) {
    if (const SubnetView* view = containing(*selection)) return {view, {}};
    return {nullptr, "no subnet for the subnet-selection option (RFC 3011)"};
  }
  if (!message.giaddr.is_zero()) {
    if (const SubnetView* view = containing(message.giaddr)) return {view, {}};
    for (const SubnetView& view : subnets_) {
      const auto& relays = view.subnet->relays;
      if (std::find(relays.begin(), relays.end(), message.giaddr) != relays.end()) {
        return {&view, {}};
      }
    }
    return {nullptr, "no subnet for the relay address (giaddr)"};
  }
  // A unicast from a configured client (RENEWING, RELEASE, INFORM) may have crossed a router
  // without a relay: its ciaddr names its link. A broadcast one is on our link, whatever it says.
  if (!message.ciaddr.is_zero() && !ingress.to_broadcast) {
    if (const SubnetView* view = containing(message.ciaddr)) return {view, {}};
  }
  if (!ingress.interface_address.is_zero()) {
    if (const SubnetView* view = containing(ingress.interface_address)) return {view, {}};
  }
  if (!ingress.interface_name.empty()) {
    for (const SubnetView& view : subnets_) {
      const auto& names = view.subnet->interfaces;
      if (std::find(names.begin(), names.end(), ingress.interface_name) != names.end()) {
        return {&view, {}};
      }
    }
  }
  return {nullptr, "no subnet for the ingress interface"};
}

}  // namespace landlord::engine
