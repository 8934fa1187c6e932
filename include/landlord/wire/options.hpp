#pragma once
// DHCP options (RFC 2132) as one set per message, keyed by code, kept in order of first
// appearance. Instances of one code split across the packet (RFC 3396) are already joined.
// Storage is inline and fixed: parsing a packet allocates nothing.
#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "landlord/base/ipv4.hpp"

namespace landlord::wire {

namespace option {
inline constexpr std::uint8_t kPad = 0;
inline constexpr std::uint8_t kSubnetMask = 1;
inline constexpr std::uint8_t kRouters = 3;
inline constexpr std::uint8_t kDnsServers = 6;
inline constexpr std::uint8_t kHostname = 12;
inline constexpr std::uint8_t kDomainName = 15;
inline constexpr std::uint8_t kInterfaceMtu = 26;
inline constexpr std::uint8_t kBroadcastAddress = 28;
inline constexpr std::uint8_t kNtpServers = 42;
inline constexpr std::uint8_t kRequestedAddress = 50;
inline constexpr std::uint8_t kLeaseTime = 51;
inline constexpr std::uint8_t kOverload = 52;
inline constexpr std::uint8_t kMessageType = 53;
inline constexpr std::uint8_t kServerId = 54;
inline constexpr std::uint8_t kParameterRequestList = 55;
inline constexpr std::uint8_t kMessage = 56;
inline constexpr std::uint8_t kMaxMessageSize = 57;
inline constexpr std::uint8_t kRenewalTime = 58;    // T1
inline constexpr std::uint8_t kRebindingTime = 59;  // T2
inline constexpr std::uint8_t kVendorClass = 60;
inline constexpr std::uint8_t kClientId = 61;
inline constexpr std::uint8_t kRelayAgentInfo = 82;
inline constexpr std::uint8_t kSubnetSelection = 118;
inline constexpr std::uint8_t kEnd = 255;
}  // namespace option

namespace detail {
class OptionsAssembler;  // parse.cpp: joins RFC 3396 instances straight into the storage
}

class Options {
 public:
  // Sized for the largest message we accept (kMaxPacketSize) with every field overloaded.
  static constexpr std::size_t kCapacityBytes = 4096;

  Options() = default;
  // Copies only the bytes in use, not the whole inline buffer: messages are copied per packet.
  Options(const Options& other) { assign(other); }
  Options& operator=(const Options& other) {
    if (this != &other) assign(other);
    return *this;
  }

  bool has(std::uint8_t code) const { return present_[code]; }
  // The joined value; empty if absent (use has() to tell absent from zero-length).
  std::span<const std::uint8_t> get(std::uint8_t code) const;
  // Adds or replaces; false if the inline storage is full. Codes 0 and 255 are refused.
  // A replaced option keeps its place in the order.
  bool set(std::uint8_t code, std::span<const std::uint8_t> value);
  bool set_u8(std::uint8_t code, std::uint8_t value);
  bool set_u16(std::uint8_t code, std::uint16_t value);
  bool set_u32(std::uint8_t code, std::uint32_t value);
  bool set_ipv4(std::uint8_t code, Ipv4 value);
  bool set_text(std::uint8_t code, std::string_view value);
  void erase(std::uint8_t code);
  void clear();

  // Typed reads; nullopt when absent or of the wrong length. Integers are big-endian.
  std::optional<std::uint8_t> get_u8(std::uint8_t code) const;
  std::optional<std::uint16_t> get_u16(std::uint8_t code) const;
  std::optional<std::uint32_t> get_u32(std::uint8_t code) const;
  std::optional<Ipv4> get_ipv4(std::uint8_t code) const;
  // The bytes as text, without the trailing NULs some clients append to hostnames.
  std::optional<std::string_view> get_text(std::uint8_t code) const;

  // Codes present, in order of first appearance (parsing) or insertion (building).
  std::span<const std::uint8_t> codes() const { return {order_.data(), count_}; }
  std::size_t size() const { return count_; }

  // Same codes in the same order with the same values.
  bool operator==(const Options& other) const;

 private:
  friend class detail::OptionsAssembler;

  void assign(const Options& other);
  // Moves live values to the front of data_, dropping bytes left behind by replace/erase.
  void compact();
  std::span<const std::uint8_t> value_at(std::size_t position) const {
    return {data_.data() + offset_[position], length_[position]};
  }

  // Entries are kept by position in order_; index_[code] is the position of a present code.
  // Only the first count_ entries, used_ bytes and present codes' index_ hold meaningful values.
  std::array<std::uint8_t, kCapacityBytes> data_;
  std::array<std::uint16_t, 256> offset_;
  std::array<std::uint16_t, 256> length_;
  std::array<std::uint8_t, 256> order_;
  std::array<std::uint8_t, 256> index_;
  std::bitset<256> present_;
  std::uint16_t used_ = 0;   // bytes of data_ in use (replaced values leave garbage; compacted when full)
  std::uint16_t count_ = 0;  // entries in order_
};

}  // namespace landlord::wire
