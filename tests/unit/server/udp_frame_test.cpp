#include "landlord/server/udp_frame.hpp"

#include <array>
#include <vector>

#include <gtest/gtest.h>

namespace landlord::server {
namespace {

std::uint16_t read16(const std::uint8_t* at) { return static_cast<std::uint16_t>(at[0] << 8 | at[1]); }

struct Built {
  std::array<std::uint8_t, kIpv4UdpHeadersSize> headers{};
  std::vector<std::uint8_t> payload;
};

Built build(std::size_t payload_size, Ipv4 destination = Ipv4{198, 18, 0, 100}) {
  Built built;
  built.payload.resize(payload_size);
  for (std::size_t i = 0; i < payload_size; ++i) built.payload[i] = static_cast<std::uint8_t>(i * 7 + 3);
  write_ipv4_udp_headers(built.headers, {Ipv4{198, 18, 0, 1}, destination, 67, 68}, built.payload);
  return built;
}

TEST(UdpFrame, Ipv4HeaderFieldsAndChecksumVerify) {
  const Built built = build(300);
  const std::uint8_t* ip = built.headers.data();
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(read16(ip + 2), 20 + 8 + 300);
  EXPECT_EQ(ip[9], 17);
  EXPECT_GT(ip[8], 0);
  EXPECT_EQ(Ipv4(static_cast<std::uint32_t>(read16(ip + 12) << 16 | read16(ip + 14))),
            (Ipv4{198, 18, 0, 1}));
  EXPECT_EQ(Ipv4(static_cast<std::uint32_t>(read16(ip + 16) << 16 | read16(ip + 18))),
            (Ipv4{198, 18, 0, 100}));
  // A receiver sums the header including its checksum: all ones, i.e. 0 once inverted.
  EXPECT_EQ(fold_checksum(add_checksum_words({ip, kIpv4HeaderSize})), 0);
}

// The receiver's check: pseudo-header + UDP header + payload sum to all ones.
std::uint16_t udp_verify(const Built& built) {
  const std::uint8_t* ip = built.headers.data();
  const std::uint8_t* udp = ip + kIpv4HeaderSize;
  std::uint32_t sum = add_checksum_words({ip + 12, 8});
  sum += 17 + read16(udp + 4);
  sum = add_checksum_words({udp, kUdpHeaderSize}, sum);
  return fold_checksum(add_checksum_words(built.payload, sum));
}

TEST(UdpFrame, UdpHeaderPortsLengthAndChecksumVerify) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{299}, std::size_t{548},
                                 std::size_t{1472}}) {
    const Built built = build(size, kBroadcast);
    const std::uint8_t* udp = built.headers.data() + kIpv4HeaderSize;
    EXPECT_EQ(read16(udp), 67);
    EXPECT_EQ(read16(udp + 2), 68);
    EXPECT_EQ(read16(udp + 4), 8 + size);
    EXPECT_NE(read16(udp + 6), 0) << "0 would mean no checksum";
    EXPECT_EQ(udp_verify(built), 0) << size << " bytes";
  }
}

TEST(UdpFrame, AChangedPayloadByteFailsTheChecksum) {
  Built built = build(300);
  built.payload[123] ^= 0x40;
  EXPECT_NE(udp_verify(built), 0);
}

TEST(UdpFrame, KnownIpv4Checksum) {
  // RFC 1071-style worked example (Wikipedia's IPv4 header checksum): 0xb861.
  const std::array<std::uint8_t, 20> header{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
                                            0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
                                            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(fold_checksum(add_checksum_words(header)), 0xb861);
}

}  // namespace
}  // namespace landlord::server
