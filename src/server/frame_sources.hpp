#pragma once
// The Ethernet source address of a directly attached client's request, which the UDP socket
// does not tell. On a directly attached link that address is the sender's real identity, and a
// chaddr that differs is what switches' DHCP snooping checks (dhcpstarv sends every DISCOVER
// from its interface's address with a random chaddr).
//
// A packet socket (ETH_P_ALL, so the kernel hands it each frame before the IP stack queues the
// datagram to the UDP socket) with a classic BPF filter compiled by libpcap: only IPv4 broadcasts
// to UDP port 67 with giaddr 0 are copied, so relayed traffic and everything else costs nothing. The
// server drains it before each batch of datagrams and looks each datagram up by its link, xid
// and chaddr; a frame not found (the copy was dropped, or arrived later) is reported as unseen,
// never as a mismatch.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "packet_socket.hpp"

namespace landlord::server {

class FrameSources {
 public:
  // Needs CAP_NET_RAW, as the reply frames do.
  static Expected<FrameSources, std::string> open();

  // Reads every frame waiting (non-blocking); frames from links not in `served` are skipped.
  void drain(const std::unordered_set<std::uint32_t>& served);
  // The source address of the frame that carried this request, if it was seen; forgets it.
  std::optional<Mac> take(std::uint32_t interface_index, std::uint32_t xid, const HardwareAddress& chaddr);

  std::uint64_t frames_read() const { return frames_read_; }

 private:
  explicit FrameSources(FileDescriptor socket);
  struct Key {
    std::uint32_t interface_index = 0;
    std::uint32_t xid = 0;
    Mac chaddr{};
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const noexcept;
  };

  // Enough of each frame for the IPv4 header (at most 60 bytes), UDP and the BOOTP header up
  // to chaddr: the filter copies no more.
  static constexpr std::size_t kSnapBytes = 128;
  static constexpr std::size_t kBatch = 32;
  struct Batch;

  FileDescriptor socket_;
  std::unordered_map<Key, Mac, KeyHash> sources_;
  std::deque<Key> arrival_;  // oldest first: bounds the table when datagrams never come
  std::uint64_t frames_read_ = 0;
  std::shared_ptr<Batch> batch_;
};

}  // namespace landlord::server
