#pragma once
// A DHCPv4 message (RFC 2131 §2): the fixed BOOTP header plus its options.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "landlord/base/client_id.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/wire/options.hpp"

namespace landlord::wire {

enum class Op : std::uint8_t { BootRequest = 1, BootReply = 2 };

enum class MessageType : std::uint8_t {
  Discover = 1, Offer = 2, Request = 3, Decline = 4, Ack = 5, Nak = 6, Release = 7, Inform = 8,
};
std::string_view to_string(MessageType type);

inline constexpr std::uint16_t kBroadcastFlag = 0x8000;
inline constexpr std::size_t kHeaderSize = 236;          // BOOTP header before the magic cookie
inline constexpr std::size_t kMinMessageSize = 300;      // BOOTP minimum; replies are padded to it
inline constexpr std::size_t kMaxPacketSize = 1500 * 2;  // larger datagrams are refused
inline constexpr std::size_t kDefaultMaxMessageSize = 576;  // RFC 2131 §2: without option 57

struct Message {
  Op op = Op::BootRequest;
  std::uint8_t htype = HardwareAddress::kEthernet;
  std::uint8_t hlen = 6;
  std::uint8_t hops = 0;
  std::uint32_t xid = 0;
  std::uint16_t secs = 0;
  std::uint16_t flags = 0;
  Ipv4 ciaddr, yiaddr, siaddr, giaddr;
  std::array<std::uint8_t, 16> chaddr{};
  // sname/file as carried in the header. When option 52 overloaded them, their option
  // contents have been moved into `options` and these hold zeros.
  std::array<std::uint8_t, 64> sname{};
  std::array<std::uint8_t, 128> file{};
  Options options;

  bool broadcast() const { return (flags & kBroadcastFlag) != 0; }
  std::optional<MessageType> type() const;
  HardwareAddress hardware_address() const { return {htype, {chaddr.data(), hlen}}; }
  ClientId client_id() const;   // empty when option 61 is absent
  ClientKey client_key() const { return ClientKey::from(client_id(), hardware_address()); }

  bool operator==(const Message&) const = default;
};

struct ParseError {
  enum class Kind : std::uint8_t {
    TooShort,           // fewer bytes than the BOOTP header + cookie
    TooLong,            // more than kMaxPacketSize
    BadCookie,          // magic cookie is not 99.130.83.99
    BadOp,              // op neither 1 nor 2
    BadHardwareLength,  // hlen > 16
    OptionOverrun,      // an option's length runs past the end of its field
    BadOverload,        // option 52 malformed or pointing at nothing
    MissingEnd,         // an overloaded sname/file without END (the options field may lack it)
    TooManyOptionBytes, // joined options exceed Options::kCapacityBytes (cannot happen within
                        // kMaxPacketSize; kept so the bound is checked, not assumed)
    MissingMessageType, // no option 53, or its value is out of range
  };
  Kind kind;
  std::size_t offset = 0;  // byte offset in the packet where the problem was found
};
std::string_view to_string(ParseError::Kind kind);

// Parses a client's or server's message. Never reads past `packet`; never allocates.
// A message without a valid option 53 (types 1-8) is refused (BOOTP is not served).
// Both ops are accepted, because the simulator parses server replies with this codec: `op` is
// reported as data, and it is the server's engine that drops a BOOTREPLY (op 2) from a client.
// Option 52 is consumed: its fields' options are joined into `options`, which never holds 52.
// END may be missing from the options field when the last option ends exactly at the end of
// the packet; an overloaded sname/file must hold an END (RFC 2132 §9.3). Bytes after END are
// ignored (they are padding).
Expected<Message, ParseError> parse(std::span<const std::uint8_t> packet);
// The same into a caller-owned Message, so a server loop reuses one buffer. On error `out` holds
// a partial message and must not be used.
std::optional<ParseError> parse_into(std::span<const std::uint8_t> packet, Message& out);

struct BuildError {
  enum class Kind : std::uint8_t { BufferTooSmall, MessageTypeDoesNotFit };
  Kind kind;
};

// Writes `message` into `out`, never more than out.size() bytes (the caller passes
// min(buffer, reply_size_limit(client's option 57), MTU)). Options go in their stored order,
// values longer than 255 bytes split into several instances (RFC 3396). Option 82 is written
// last in the options field, right before END (RFC 3046). When the options do not fit the
// options field, the empty `file` then `sname` fields are overloaded (option 52; a field holding
// a name is never overwritten); then 53 goes first, and options of up to 255 bytes are placed
// whole where a field has room, in order, never going back to an earlier field; one that fits
// no field whole is split across the fields (RFC 3396). An option that fits nowhere is left
// out and counted in `omitted`; 53 must fit or build fails. An option 52 in `message.options`
// is ignored: build decides overloading. Short messages are zero-padded to kMinMessageSize when
// out is large enough.
struct BuildResult {
  std::size_t size = 0;
  std::size_t omitted = 0;
  std::uint8_t overload = 0;  // the option 52 value written: 1 file, 2 sname, 3 both; 0 none
};
Expected<BuildResult, BuildError> build(const Message& message, std::span<std::uint8_t> out);

// The largest message to build for a client: option 57 counts the IP and UDP headers (28 bytes),
// values below 576 are treated as 576 (RFC 2132 §9.10), and nothing beyond kMaxPacketSize.
std::size_t reply_size_limit(std::optional<std::uint16_t> max_message_size);

// Option 82 (RFC 3046) sub-options the server reads; the whole option is echoed verbatim.
struct RelayAgentInfo {
  std::span<const std::uint8_t> circuit_id;   // sub-option 1
  std::span<const std::uint8_t> remote_id;    // sub-option 2
  std::optional<Ipv4> link_selection;         // sub-option 5, RFC 3527
  // Sub-option 19, RFC 8357. In DHCPv4 it is usually empty (reply to the datagram's UDP source
  // port): then 0. A 2-byte value (as Kea defines it) is returned as is.
  std::optional<std::uint16_t> relay_port;
};
// nullopt when the sub-option TLVs are malformed.
std::optional<RelayAgentInfo> parse_relay_agent_info(std::span<const std::uint8_t> value);

}  // namespace landlord::wire
