#pragma once
// Hand-assembled packets for tests: the codec under test must not build its own test inputs.
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace landlord::wire::test {

inline constexpr std::size_t kSnameAt = 44;
inline constexpr std::size_t kFileAt = 108;
inline constexpr std::size_t kCookieAt = 236;
inline constexpr std::size_t kOptionsAt = 240;

// A BOOTREQUEST header (xid 0x01020304, chaddr 02:00:00:00:00:01) with the cookie, then `options`.
inline std::vector<std::uint8_t> raw_packet(std::initializer_list<std::uint8_t> options) {
  std::vector<std::uint8_t> packet(kOptionsAt, 0);
  packet[0] = 1;  // BOOTREQUEST
  packet[1] = 1;  // Ethernet
  packet[2] = 6;
  packet[4] = 0x01, packet[5] = 0x02, packet[6] = 0x03, packet[7] = 0x04;
  packet[28] = 0x02, packet[33] = 0x01;
  packet[kCookieAt] = 99, packet[kCookieAt + 1] = 130, packet[kCookieAt + 2] = 83,
  packet[kCookieAt + 3] = 99;
  packet.insert(packet.end(), options);
  return packet;
}

// Writes `bytes` into the packet at `at` (for sname/file contents).
inline void put(std::vector<std::uint8_t>& packet, std::size_t at,
                std::initializer_list<std::uint8_t> bytes) {
  for (const auto byte : bytes) packet.at(at++) = byte;
}

}  // namespace landlord::wire::test
