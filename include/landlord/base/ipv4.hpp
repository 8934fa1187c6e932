#pragma once
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace landlord {

// An IPv4 address, held in host byte order so that ranges and arithmetic read naturally.
class Ipv4 {
 public:
  constexpr Ipv4() = default;
  constexpr explicit Ipv4(std::uint32_t host_order) : value_(host_order) {}
  constexpr Ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d)
      : value_(std::uint32_t{a} << 24 | std::uint32_t{b} << 16 | std::uint32_t{c} << 8 | d) {}

  // Strict dotted quad: four decimal octets 0-255, no leading '+', no spaces.
  static std::optional<Ipv4> parse(std::string_view text);

  constexpr std::uint32_t to_uint() const { return value_; }
  constexpr bool is_zero() const { return value_ == 0; }
  constexpr bool is_broadcast() const { return value_ == 0xffffffffu; }
  constexpr bool is_loopback() const { return (value_ >> 24) == 127; }  // 127.0.0.0/8
  std::string to_string() const;

  constexpr auto operator<=>(const Ipv4&) const = default;

 private:
  std::uint32_t value_ = 0;
};

inline constexpr Ipv4 kBroadcast{0xffffffffu};

// A subnet: network address and prefix length; `network` has no host bits set.
struct Cidr {
  Ipv4 network;
  std::uint8_t prefix_length = 0;

  static std::optional<Cidr> parse(std::string_view text);
  constexpr std::uint32_t mask() const {
    return prefix_length == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix_length);
  }
  constexpr bool contains(Ipv4 address) const {
    return (address.to_uint() & mask()) == network.to_uint();
  }
  constexpr Ipv4 broadcast() const { return Ipv4{network.to_uint() | ~mask()}; }
  std::string to_string() const;
  constexpr auto operator<=>(const Cidr&) const = default;
};

}  // namespace landlord

template <>
struct std::hash<landlord::Ipv4> {
  std::size_t operator()(landlord::Ipv4 address) const noexcept {
    return std::hash<std::uint32_t>{}(address.to_uint());
  }
};
