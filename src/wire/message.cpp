#include "landlord/wire/message.hpp"

#include <algorithm>

#include "landlord/base/big_endian.hpp"

namespace landlord::wire {

std::string_view to_string(MessageType type) {
  switch (type) {
    case MessageType::Discover: return "DHCPDISCOVER";
    case MessageType::Offer: return "DHCPOFFER";
    case MessageType::Request: return "DHCPREQUEST";
    case MessageType::Decline: return "DHCPDECLINE";
    case MessageType::Ack: return "DHCPACK";
    case MessageType::Nak: return "DHCPNAK";
    case MessageType::Release: return "DHCPRELEASE";
    case MessageType::Inform: return "DHCPINFORM";
  }
  return "DHCP(unknown)";
}

std::string_view to_string(ParseError::Kind kind) {
  using Kind = ParseError::Kind;
  switch (kind) {
    case Kind::TooShort: return "too short for the BOOTP header";
    case Kind::TooLong: return "longer than the largest accepted packet";
    case Kind::BadCookie: return "bad magic cookie";
    case Kind::BadOp: return "op is neither BOOTREQUEST nor BOOTREPLY";
    case Kind::BadHardwareLength: return "hlen greater than 16";
    case Kind::OptionOverrun: return "option runs past the end of its field";
    case Kind::BadOverload: return "malformed option overload (52)";
    case Kind::MissingEnd: return "overloaded field without END";
    case Kind::TooManyOptionBytes: return "options exceed the storage";
    case Kind::MissingMessageType: return "missing or invalid DHCP message type (53)";
  }
  return "unknown parse error";
}

std::optional<MessageType> Message::type() const {
  const auto value = options.get_u8(option::kMessageType);
  if (!value || *value < static_cast<std::uint8_t>(MessageType::Discover) ||
      *value > static_cast<std::uint8_t>(MessageType::Inform)) {
    return std::nullopt;
  }
  return static_cast<MessageType>(*value);
}

ClientId Message::client_id() const {
  if (!options.has(option::kClientId)) return {};
  return ClientId{options.get(option::kClientId)};
}

std::size_t reply_size_limit(std::optional<std::uint16_t> max_message_size) {
  constexpr std::size_t kIpUdpHeaders = 20 + 8;
  const std::size_t datagram = std::max<std::size_t>(max_message_size.value_or(0),
                                                     kDefaultMaxMessageSize);
  return std::min(datagram - kIpUdpHeaders, kMaxPacketSize);
}

std::optional<RelayAgentInfo> parse_relay_agent_info(std::span<const std::uint8_t> value) {
  RelayAgentInfo info;
  std::size_t position = 0;
  while (position < value.size()) {
    if (value.size() - position < 2) return std::nullopt;
    const std::uint8_t code = value[position];
    const std::size_t length = value[position + 1];
    if (value.size() - position - 2 < length) return std::nullopt;
    const auto sub_option = value.subspan(position + 2, length);
    switch (code) {
      case 1: info.circuit_id = sub_option; break;
      case 2: info.remote_id = sub_option; break;
      case 5:
        if (length != 4) return std::nullopt;
        info.link_selection = Ipv4{load_be32(sub_option.data())};
        break;
      case 19:
        if (length == 0) {
          info.relay_port = 0;
        } else if (length == 2) {
          info.relay_port = load_be16(sub_option.data());
        } else {
          return std::nullopt;
        }
        break;
      default: break;  // other sub-options are echoed with the whole option, not read
    }
    position += 2 + length;
  }
  return info;
}

}  // namespace landlord::wire
