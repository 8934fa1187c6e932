#include "frame_sources.hpp"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "landlord/base/big_endian.hpp"

namespace landlord::server {
namespace {

// Datagrams whose frame was never looked up (the datagram was dropped or not a DHCP request):
// the oldest are forgotten past this many.
constexpr std::size_t kMaxRemembered = 4096;
// IPv4 broadcasts to UDP port 67, not a fragment past the first, giaddr (BOOTP offset 24) zero. The
// socket is SOCK_DGRAM, so the filter sees the packet from its IP header: DLT_RAW.
constexpr const char* kFilter = "ip and udp dst port 67 and udp[32:4] = 0 and dst host 255.255.255.255";

std::string error_text(int error) { return std::error_code{error, std::generic_category()}.message(); }

}  // namespace

struct FrameSources::Batch {
  std::array<std::array<std::uint8_t, kSnapBytes>, kBatch> buffers{};
  std::array<mmsghdr, kBatch> headers{};
  std::array<iovec, kBatch> vectors{};
  std::array<sockaddr_ll, kBatch> sources{};
};

std::size_t FrameSources::KeyHash::operator()(const Key& key) const noexcept {
  std::uint64_t mac = 0;
  for (const std::uint8_t byte : key.chaddr) mac = mac << 8 | byte;
  return std::hash<std::uint64_t>{}(mac ^ (std::uint64_t{key.xid} << 16) ^ (std::uint64_t{key.interface_index} << 48));
}

FrameSources::FrameSources(FileDescriptor socket) : socket_(std::move(socket)), batch_(std::make_shared<Batch>()) {}

Expected<FrameSources, std::string> FrameSources::open() {
  // Compiled by libpcap: no hand-written BPF.
  std::unique_ptr<pcap_t, void (*)(pcap_t*)> compiler{pcap_open_dead(DLT_RAW, static_cast<int>(kSnapBytes)),
                                                      pcap_close};
  if (!compiler) return unexpected(std::string{"libpcap cannot compile filters"});
  bpf_program program{};
  if (pcap_compile(compiler.get(), &program, kFilter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
    return unexpected(fmt::format("cannot compile '{}': {}", kFilter, pcap_geterr(compiler.get())));
  }
  std::unique_ptr<bpf_program, void (*)(bpf_program*)> compiled{&program, pcap_freecode};
  static_assert(sizeof(bpf_insn) == sizeof(sock_filter));
  sock_fprog filter{static_cast<unsigned short>(program.bf_len), reinterpret_cast<sock_filter*>(program.bf_insns)};

  // Unfiltered until the filter is attached: a frame that slips in is simply looked at once.
  FileDescriptor socket{::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ALL))};
  if (!socket.valid()) return unexpected("cannot open a packet socket: " + error_text(errno));
  if (setsockopt(socket.get(), SOL_SOCKET, SO_ATTACH_FILTER, &filter, sizeof filter) != 0) {
    return unexpected("cannot attach its filter: " + error_text(errno));
  }
  FrameSources sources{std::move(socket)};
  Batch& batch = *sources.batch_;
  for (std::size_t i = 0; i < kBatch; ++i) {
    batch.vectors[i] = iovec{batch.buffers[i].data(), batch.buffers[i].size()};
    batch.headers[i].msg_hdr.msg_iov = &batch.vectors[i];
    batch.headers[i].msg_hdr.msg_iovlen = 1;
    batch.headers[i].msg_hdr.msg_name = &batch.sources[i];
  }
  return sources;
}

void FrameSources::drain(const std::unordered_set<std::uint32_t>& served) {
  Batch& batch = *batch_;
  for (;;) {
    for (std::size_t i = 0; i < kBatch; ++i) batch.headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_ll);
    const int received = recvmmsg(socket_.get(), batch.headers.data(), kBatch, MSG_DONTWAIT, nullptr);
    if (received <= 0) return;  // EAGAIN: drained (an error would be no better on the next call)
    for (std::size_t i = 0; i < static_cast<std::size_t>(received); ++i) {
      ++frames_read_;
      const sockaddr_ll& link = batch.sources[i];
      if (link.sll_pkttype == PACKET_OUTGOING || link.sll_halen != 6) continue;
      const auto index = static_cast<std::uint32_t>(link.sll_ifindex);
      if (!served.contains(index)) continue;
      const std::size_t size = std::min<std::size_t>(batch.headers[i].msg_len, kSnapBytes);
      const std::uint8_t* packet = batch.buffers[i].data();
      if (size < 20) continue;
      const std::size_t bootp = static_cast<std::size_t>(packet[0] & 0x0f) * 4 + 8;
      if (bootp + 34 > size || packet[bootp + 1] != 1 || packet[bootp + 2] != 6) continue;  // Ethernet chaddr
      Key key{index, load_be32(packet + bootp + 4), {}};
      std::copy_n(packet + bootp + 28, 6, key.chaddr.begin());
      Mac source{};
      std::copy_n(link.sll_addr, 6, source.begin());
      if (sources_.insert_or_assign(key, source).second) arrival_.push_back(key);
      while (arrival_.size() > kMaxRemembered) {
        sources_.erase(arrival_.front());
        arrival_.pop_front();
      }
    }
    if (static_cast<std::size_t>(received) < kBatch) return;
  }
}

std::optional<Mac> FrameSources::take(std::uint32_t interface_index, std::uint32_t xid, const HardwareAddress& chaddr) {
  if (chaddr.type() != HardwareAddress::kEthernet || chaddr.length() != 6) return std::nullopt;
  Key key{interface_index, xid, {}};
  std::copy_n(chaddr.bytes().begin(), 6, key.chaddr.begin());
  const auto found = sources_.find(key);
  if (found == sources_.end()) return std::nullopt;
  const Mac source = found->second;
  sources_.erase(found);  // its arrival_ entry goes when it is the oldest
  return source;
}

}  // namespace landlord::server
