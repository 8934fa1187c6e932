#pragma once
// Network byte order (big-endian) reads and writes of 16- and 32-bit fields, for every packet
// format here: DHCP, IPv4, UDP, Ethernet, ARP. The caller has checked the bounds.
#include <cstdint>

namespace landlord {

inline std::uint16_t load_be16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>(at[0] << 8 | at[1]);
}

inline std::uint32_t load_be32(const std::uint8_t* at) {
  return std::uint32_t{load_be16(at)} << 16 | load_be16(at + 2);
}

inline void store_be16(std::uint8_t* at, std::uint16_t value) {
  at[0] = static_cast<std::uint8_t>(value >> 8);
  at[1] = static_cast<std::uint8_t>(value);
}

inline void store_be32(std::uint8_t* at, std::uint32_t value) {
  store_be16(at, static_cast<std::uint16_t>(value >> 16));
  store_be16(at + 2, static_cast<std::uint16_t>(value));
}

}  // namespace landlord
