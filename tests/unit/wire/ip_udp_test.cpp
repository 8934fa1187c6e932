// IPv4/UDP headers for frames (the server's direct replies, the simulator's clients): every
// checksum verified by the receiver's rule, against the word-by-word sum of RFC 1071 §1.
#include "landlord/wire/ip_udp.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace landlord::wire {
namespace {

std::uint16_t read16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>(at[0] << 8 | at[1]);
}

// RFC 1071 §1 as written: big-endian 16-bit words, an odd byte padded with zero, carries folded.
std::uint16_t word_by_word_checksum(std::span<const std::uint8_t> bytes, std::uint32_t initial) {
  std::uint64_t sum = initial;
  for (std::size_t i = 0; i < bytes.size(); i += 2) {
    sum += std::uint32_t{bytes[i]} << 8 | (i + 1 < bytes.size() ? bytes[i + 1] : 0);
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

TEST(InternetChecksum, MatchesRfc1071Example) {
  // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2; the checksum is its complement.
  const std::array<std::uint8_t, 8> bytes = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(internet_checksum(bytes), static_cast<std::uint16_t>(~0xddf2));
}

TEST(InternetChecksum, KnownIpv4HeaderChecksum) {
  // The worked IPv4 header example (checksum field zeroed): 0xb861.
  const std::array<std::uint8_t, 20> header{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
                                            0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
                                            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(internet_checksum(header), 0xb861);
}

TEST(InternetChecksum, AgreesWithTheWordByWordSumAtEveryLengthAndAlignment) {
  // The checksum sums 8 bytes at a time in host order; odd lengths, odd start addresses,
  // carries and large initial sums (a pseudo-header) must not change the result.
  std::vector<std::uint8_t> bytes(1600);
  std::uint32_t state = 12345;
  for (auto& byte : bytes) {
    state = state * 1103515245u + 12345u;
    byte = static_cast<std::uint8_t>(state >> 16);
  }
  const std::vector<std::uint8_t> ones(64, 0xff);
  for (const std::uint32_t initial : {0u, 1u, 0xffffu, 0x1fffeu, 0x2c6a9u}) {
    for (std::size_t offset = 0; offset < 8; ++offset) {
      for (std::size_t length = 0; length + offset <= 600; ++length) {
        const std::span<const std::uint8_t> part(bytes.data() + offset, length);
        ASSERT_EQ(internet_checksum(part, initial), word_by_word_checksum(part, initial))
            << "offset " << offset << " length " << length << " initial " << initial;
      }
    }
    EXPECT_EQ(internet_checksum(bytes, initial), word_by_word_checksum(bytes, initial));
    for (std::size_t length = 0; length <= ones.size(); ++length) {
      const std::span<const std::uint8_t> part(ones.data(), length);
      EXPECT_EQ(internet_checksum(part, initial), word_by_word_checksum(part, initial));
    }
  }
}

struct Built {
  std::array<std::uint8_t, kIpv4UdpHeadersSize> headers{};
  std::vector<std::uint8_t> payload;
};

Built build(std::size_t payload_size, Ipv4 destination = Ipv4{198, 18, 0, 100},
            std::uint8_t type_of_service = 0) {
  Built built;
  built.payload.resize(payload_size);
  for (std::size_t i = 0; i < payload_size; ++i) {
    built.payload[i] = static_cast<std::uint8_t>(i * 7 + 3);
  }
  write_ipv4_udp_headers(built.headers,
                         {Ipv4{198, 18, 0, 1}, destination, 67, 68, type_of_service},
                         built.payload);
  return built;
}

// The receiver's check, word by word: pseudo-header + UDP header + payload sum to all ones.
std::uint16_t udp_verify(const Built& built) {
  const std::uint8_t* ip = built.headers.data();
  const std::uint8_t* udp = ip + kIpv4HeaderSize;
  std::vector<std::uint8_t> segment(udp, udp + kUdpHeaderSize);
  segment.insert(segment.end(), built.payload.begin(), built.payload.end());
  std::uint32_t pseudo = 0;
  for (int i = 12; i < 20; i += 2) pseudo += read16(ip + i);
  pseudo += kProtocolUdp + read16(udp + 4);
  return word_by_word_checksum(segment, pseudo);
}

TEST(Ipv4UdpHeaders, Ipv4FieldsAndChecksumVerify) {
  const Built built = build(300, Ipv4{198, 18, 0, 100}, 0x10);
  const std::uint8_t* ip = built.headers.data();
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(ip[1], 0x10);
  EXPECT_EQ(read16(ip + 2), 20 + 8 + 300);
  EXPECT_EQ(read16(ip + 6), 0x4000) << "don't fragment";
  EXPECT_EQ(ip[9], 17);
  EXPECT_GT(ip[8], 0);
  EXPECT_EQ(Ipv4(static_cast<std::uint32_t>(read16(ip + 12) << 16 | read16(ip + 14))),
            (Ipv4{198, 18, 0, 1}));
  EXPECT_EQ(Ipv4(static_cast<std::uint32_t>(read16(ip + 16) << 16 | read16(ip + 18))),
            (Ipv4{198, 18, 0, 100}));
  // A receiver sums the header including its checksum: 0 once inverted.
  EXPECT_EQ(word_by_word_checksum({ip, kIpv4HeaderSize}, 0), 0);
}

TEST(Ipv4UdpHeaders, UdpPortsLengthAndChecksumVerifyAtEverySize) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{299},
                                 std::size_t{300}, std::size_t{548}, std::size_t{1472}}) {
    const Built built = build(size, kBroadcast);
    const std::uint8_t* udp = built.headers.data() + kIpv4HeaderSize;
    EXPECT_EQ(read16(udp), 67);
    EXPECT_EQ(read16(udp + 2), 68);
    EXPECT_EQ(read16(udp + 4), 8 + size);
    EXPECT_NE(read16(udp + 6), 0) << "0 would mean no checksum";
    EXPECT_EQ(udp_verify(built), 0) << size << " bytes";
  }
}

TEST(Ipv4UdpHeaders, AChangedPayloadByteFailsTheChecksum) {
  Built built = build(300);
  built.payload[123] ^= 0x40;
  EXPECT_NE(udp_verify(built), 0);
}

}  // namespace
}  // namespace landlord::wire
