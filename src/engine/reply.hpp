#pragma once
// Building a reply from a client's message: header fields per RFC 2131 Table 3, options in a
// fixed order, and the §4.1 routing decision.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "landlord/config/config.hpp"
#include "landlord/ddns/fqdn.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

struct LeaseDurations {
  Duration lease_time, renew_time, rebind_time;
};

struct ReplySpec {
  wire::MessageType type = wire::MessageType::Ack;
  Ipv4 your_address;                        // yiaddr: 0 for NAK and INFORM
  Ipv4 server_id;                           // option 54
  const config::Subnet* subnet = nullptr;   // mask and configured options; null for NAK
  std::optional<LeaseDurations> durations;  // 51/58/59: OFFER and ACK to a REQUEST only
  std::string_view nak_message;             // option 56, NAK only
  // The client's own reservation when the reply's address is it: its options (and hostname as
  // option 12) win over the pool's and the subnet's.
  const config::Reservation* reservation = nullptr;
  // The configured classes and those the client is a member of (bit i: classes[i]): their
  // options come between the reservation's and the pool's, in class order.
  std::span<const config::ClientClass> classes = {};
  std::uint64_t member_of = 0;
  // Add 0.0.0.0/0 via the first router to routes that lack it (default_route.hpp).
  bool classless_default_route = true;
  // DNS updates on: the server's name decision, whose option 81 (RFC 4702 §4) or hostname
  // (option 12, when the client named itself so) the reply carries.
  const ddns::NameDecision* name = nullptr;
};

Reply make_reply(const wire::Message& request, const Ingress& ingress, const ReplySpec& spec);

}  // namespace landlord::engine
