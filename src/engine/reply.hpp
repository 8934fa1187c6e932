#pragma once
// Building a reply from a client's message: header fields per RFC 2131 Table 3, options in a
// fixed order, and the §4.1 routing decision.
#include <optional>
#include <string_view>

#include "landlord/config/config.hpp"
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
};

Reply make_reply(const wire::Message& request, const Ingress& ingress, const ReplySpec& spec);

}  // namespace landlord::engine
