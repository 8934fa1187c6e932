#pragma once
// The configured subnets as the engine looks them up: by address, by relay, by interface, and
// their reservations by address and by client. Built from a Config the engine owns, so the
// pointers stay valid until the next reconfigure().
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "landlord/config/config.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

struct SubnetView {
  const config::Subnet* subnet = nullptr;
  // Lease time, T1 and T2 as sent in 51/58/59, worked out once per (re)configuration.
  Duration lease_time{0}, renew_time{0}, rebind_time{0};
  std::unordered_map<std::uint32_t, const config::Reservation*> reservation_by_address;
  std::unordered_map<HardwareAddress, const config::Reservation*> reservation_by_hardware;
  std::unordered_map<std::string, const config::Reservation*> reservation_by_client_id;
  // Option 82 keys (config::Reservation::circuit_id / remote_id), as byte strings.
  std::unordered_map<std::string, const config::Reservation*> reservation_by_circuit_id;
  std::unordered_map<std::string, const config::Reservation*> reservation_by_remote_id;

  std::uint32_t id() const { return subnet->id; }
  bool contains(Ipv4 address) const { return subnet->subnet.contains(address); }
  // The client's reservation in this subnet: option 61 first, then chaddr.
  const config::Reservation* reservation_for(const ClientId& client_id,
                                             const HardwareAddress& hardware) const;
  // The message's client's reservation: option 61, chaddr, then option 82's circuit-id and
  // remote-id (RFC 3046), which count only in a relayed message (giaddr set): a client on the
  // link could write any option 82 of its own.
  const config::Reservation* reservation_for(const wire::Message& message) const;
  const config::Reservation* reservation_at(Ipv4 address) const;
};

// Which subnet a message belongs to, or why none does.
struct SubnetChoice {
  const SubnetView* subnet = nullptr;
  std::string_view reason;  // static; set when subnet is null
};

class Topology {
 public:
  explicit Topology(const config::Config& config);

  const std::vector<SubnetView>& subnets() const { return subnets_; }
  const SubnetView* containing(Ipv4 address) const;

  // RFC 3527 link selection → RFC 3011 subnet selection → giaddr (inside or a listed relay) →
  // ciaddr of a unicast, unrelayed message (the client renewing through a router) → the
  // ingress interface (its address inside the subnet, or its name listed by the subnet).
  SubnetChoice select(const wire::Message& message, const Ingress& ingress) const;

 private:
  std::vector<SubnetView> subnets_;
};

}  // namespace landlord::engine
