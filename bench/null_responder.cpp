// null_responder: the transport floor for bench/run. A "DHCP server" that does no DHCP work:
// it answers every DISCOVER with an OFFER and every REQUEST with an ACK built by patching the
// request's bytes (no parsing beyond the options it must read, no lease table, no store, no
// logging), so that perfdhcp completes DORAs against it. Its CPU per DORA is what the kernel
// and the socket calls cost a server on this veth under perfdhcp's load: the part of any
// server's CPU per DORA that no DHCP code can remove.
//
// It moves packets the way landlord does for perfdhcp's relayed requests: one UDP socket on
// port 67, a poll(2) wait, recvmmsg(2) batches of up to 32, and the replies of each batch in
// one sendmmsg(2) to the relay (giaddr) on port 67, like landlord's Route::Relay. A request
// without giaddr is answered to its source address and port. It only ever sends to
// 198.18.0.0/15 (the bench lab) or 127.0.0.0/8; anything else is counted and dropped.
//
// usage: null_responder [--port N] [--server-id A.B.C.D] [--receive-buffer BYTES]
// (SIGTERM/SIGINT: print counts, exit). --receive-buffer sets SO_RCVBUFFORCE (root), for
// trying whether a bigger socket buffer saves the bursts a descheduled server drops; bench/run
// leaves the kernel's default, as landlord does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

namespace {

constexpr std::size_t kBatch = 32;
constexpr std::size_t kBufferSize = 1500;
// BOOTP's fixed header, then the magic cookie; options follow.
constexpr std::size_t kOpOffset = 0;
constexpr std::size_t kHopsOffset = 3;
constexpr std::size_t kSecsOffset = 8;
constexpr std::size_t kCiaddrOffset = 12;
constexpr std::size_t kYiaddrOffset = 16;
constexpr std::size_t kSiaddrOffset = 20;
constexpr std::size_t kGiaddrOffset = 24;
constexpr std::size_t kSnameOffset = 44;
constexpr std::size_t kCookieOffset = 236;
constexpr std::size_t kOptionsOffset = 240;
constexpr std::size_t kMinimumReplySize = 300;  // BOOTP's minimum, what real servers send
constexpr std::uint8_t kMagicCookie[4] = {99, 130, 83, 99};
constexpr std::uint8_t kBootRequest = 1;
constexpr std::uint8_t kBootReply = 2;

constexpr std::uint8_t kOptionPad = 0;
constexpr std::uint8_t kOptionEnd = 255;
constexpr std::uint8_t kOptionRequestedAddress = 50;
constexpr std::uint8_t kOptionMessageType = 53;
constexpr std::uint8_t kOptionClientId = 61;
constexpr std::uint8_t kDiscover = 1;
constexpr std::uint8_t kOffer = 2;
constexpr std::uint8_t kRequest = 3;
constexpr std::uint8_t kAck = 5;

// The bench lab's pool (bench/lab.sh): 198.18.1.0 - 198.19.255.250.
constexpr std::uint32_t kPoolFirst = 0xC6120100;
constexpr std::uint32_t kPoolSize = 0xC613FFFA - kPoolFirst + 1;
constexpr std::uint32_t kLeaseTime_s = 3600;

volatile std::sig_atomic_t stop_requested = 0;
void request_stop(int) { stop_requested = 1; }

bool may_send_to(std::uint32_t address) {
  return (address & 0xFFFE0000) == 0xC6120000  // 198.18.0.0/15
         || (address & 0xFF000000) == 0x7F000000;  // 127.0.0.0/8
}

std::uint32_t get32(const std::uint8_t* at) {
  return std::uint32_t{at[0]} << 24 | std::uint32_t{at[1]} << 16 | std::uint32_t{at[2]} << 8 | at[3];
}

std::uint8_t* put32(std::uint8_t* at, std::uint32_t value) {
  at[0] = static_cast<std::uint8_t>(value >> 24);
  at[1] = static_cast<std::uint8_t>(value >> 16);
  at[2] = static_cast<std::uint8_t>(value >> 8);
  at[3] = static_cast<std::uint8_t>(value);
  return at + 4;
}

// The options a reply needs from its request; spans point into the request.
struct RequestOptions {
  std::uint8_t message_type = 0;
  std::optional<std::uint32_t> requested_address;
  std::span<const std::uint8_t> client_id;
};

// Walks the options once, bounds-checked; nullopt when they run past the datagram.
std::optional<RequestOptions> read_options(std::span<const std::uint8_t> request) {
  RequestOptions found;
  std::size_t at = kOptionsOffset;
  while (at < request.size()) {
    const std::uint8_t code = request[at];
    if (code == kOptionEnd) break;
    if (code == kOptionPad) {
      ++at;
      continue;
    }
    if (at + 2 > request.size()) return std::nullopt;
    const std::size_t length = request[at + 1];
    if (at + 2 + length > request.size()) return std::nullopt;
    const std::uint8_t* value = request.data() + at + 2;
    if (code == kOptionMessageType && length == 1) found.message_type = value[0];
    if (code == kOptionRequestedAddress && length == 4) found.requested_address = get32(value);
    if (code == kOptionClientId) found.client_id = {value, length};
    at += 2 + length;
  }
  return found;
}

struct Counts {
  unsigned long long received = 0;
  unsigned long long offers = 0;
  unsigned long long acks = 0;
  unsigned long long ignored = 0;  // not a DISCOVER/REQUEST, malformed, or not ours to answer
  unsigned long long send_errors = 0;
};

class Responder {
 public:
  Responder(int socket_fd, std::uint32_t server_id) : socket_fd_(socket_fd), server_id_(server_id) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      receive_vectors_[i] = iovec{requests_[i].data(), requests_[i].size()};
      msghdr& header = receive_headers_[i].msg_hdr;
      header = msghdr{};
      header.msg_name = &sources_[i];
      header.msg_iov = &receive_vectors_[i];
      header.msg_iovlen = 1;
      send_headers_[i].msg_hdr = msghdr{};
    }
  }

  // Drains what is queued, a batch per recvmmsg, replies per batch in one sendmmsg.
  void on_readable() {
    for (int batch = 0; batch < 64; ++batch) {  // bounded: let poll see a stop request
      for (std::size_t i = 0; i < kBatch; ++i) receive_headers_[i].msg_hdr.msg_namelen = sizeof(sockaddr_in);
      const int received = recvmmsg(socket_fd_, receive_headers_.data(), kBatch, MSG_DONTWAIT, nullptr);
      if (received <= 0) return;
      counts_.received += static_cast<unsigned>(received);
      std::size_t replies = 0;
      for (int i = 0; i < received; ++i) {
        const std::span<const std::uint8_t> request{requests_[i].data(), receive_headers_[i].msg_len};
        if (build_reply(request, sources_[i], replies)) ++replies;
        else ++counts_.ignored;
      }
      send(replies);
      if (static_cast<std::size_t>(received) < kBatch) return;
    }
  }

  const Counts& counts() const { return counts_; }

 private:
  // Builds the reply to `request` in slot `slot`; false when there is nothing to answer.
  bool build_reply(std::span<const std::uint8_t> request, const sockaddr_in& source, std::size_t slot) {
    if (request.size() < kOptionsOffset || request[kOpOffset] != kBootRequest ||
        std::memcmp(request.data() + kCookieOffset, kMagicCookie, 4) != 0) {
      return false;
    }
    const auto options = read_options(request);
    if (!options) return false;
    std::uint8_t reply_type = 0;
    std::uint32_t your_address = 0;
    if (options->message_type == kDiscover) {
      reply_type = kOffer;
      your_address = kPoolFirst + next_offer_++ % kPoolSize;
    } else if (options->message_type == kRequest) {
      reply_type = kAck;
      const std::uint32_t client_address = get32(request.data() + kCiaddrOffset);
      your_address = options->requested_address.value_or(client_address);
      if (your_address == 0) return false;
    } else {
      return false;
    }

    // Where landlord would send it: the relay's port 67, else back to the source.
    sockaddr_in& destination = destinations_[slot];
    destination = sockaddr_in{};
    destination.sin_family = AF_INET;
    const std::uint32_t relay = get32(request.data() + kGiaddrOffset);
    if (relay != 0) {
      destination.sin_addr.s_addr = htonl(relay);
      destination.sin_port = htons(67);
    } else {
      destination.sin_addr = source.sin_addr;
      destination.sin_port = source.sin_port;
    }
    if (!may_send_to(ntohl(destination.sin_addr.s_addr))) return false;

    std::uint8_t* reply = replies_[slot].data();
    std::memcpy(reply, request.data(), kSnameOffset);  // op .. chaddr
    std::memset(reply + kSnameOffset, 0, kCookieOffset - kSnameOffset);  // sname, file
    reply[kOpOffset] = kBootReply;
    reply[kHopsOffset] = 0;
    std::memset(reply + kSecsOffset, 0, 2);
    put32(reply + kYiaddrOffset, your_address);
    put32(reply + kSiaddrOffset, 0);
    std::memcpy(reply + kCookieOffset, kMagicCookie, 4);
    // The options landlord's replies carry, so the frames are the same size.
    std::uint8_t* at = reply + kOptionsOffset;
    *at++ = kOptionMessageType, *at++ = 1, *at++ = reply_type;
    *at++ = 54, *at++ = 4, at = put32(at, server_id_);
    *at++ = 51, *at++ = 4, at = put32(at, kLeaseTime_s);
    *at++ = 58, *at++ = 4, at = put32(at, kLeaseTime_s / 2);
    *at++ = 59, *at++ = 4, at = put32(at, kLeaseTime_s * 7 / 8);
    *at++ = 1, *at++ = 4, at = put32(at, 0xFFFE0000);
    *at++ = 3, *at++ = 4, at = put32(at, server_id_);
    if (!options->client_id.empty()) {  // RFC 6842: echoed
      *at++ = kOptionClientId;
      *at++ = static_cast<std::uint8_t>(options->client_id.size());
      std::memcpy(at, options->client_id.data(), options->client_id.size());
      at += options->client_id.size();
    }
    *at++ = kOptionEnd;
    auto size = static_cast<std::size_t>(at - reply);
    if (size < kMinimumReplySize) {
      std::memset(at, 0, kMinimumReplySize - size);
      size = kMinimumReplySize;
    }

    send_vectors_[slot] = iovec{reply, size};
    msghdr& header = send_headers_[slot].msg_hdr;
    header.msg_name = &destination;
    header.msg_namelen = sizeof destination;
    header.msg_iov = &send_vectors_[slot];
    header.msg_iovlen = 1;
    if (reply_type == kOffer) ++counts_.offers;
    else ++counts_.acks;
    return true;
  }

  void send(std::size_t replies) {
    std::size_t sent = 0;
    while (sent < replies) {
      const int result = sendmmsg(socket_fd_, send_headers_.data() + sent,
                                  static_cast<unsigned>(replies - sent), 0);
      if (result < 0) {
        if (errno == EINTR) continue;
        // The first message failed: count it and go on with the rest.
        ++counts_.send_errors;
        ++sent;
        continue;
      }
      sent += static_cast<std::size_t>(result);
    }
  }

  int socket_fd_;
  std::uint32_t server_id_;
  std::uint32_t next_offer_ = 0;
  Counts counts_;
  std::array<std::array<std::uint8_t, kBufferSize>, kBatch> requests_{};
  std::array<std::array<std::uint8_t, kBufferSize>, kBatch> replies_{};
  std::array<mmsghdr, kBatch> receive_headers_{};
  std::array<mmsghdr, kBatch> send_headers_{};
  std::array<iovec, kBatch> receive_vectors_{};
  std::array<iovec, kBatch> send_vectors_{};
  std::array<sockaddr_in, kBatch> sources_{};
  std::array<sockaddr_in, kBatch> destinations_{};
};

int usage() {
  std::fputs("usage: null_responder [--port N] [--server-id A.B.C.D] [--receive-buffer BYTES]\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint16_t port = 67;
  int receive_buffer_bytes = 0;  // 0: the kernel's default
  in_addr server_id{};
  inet_pton(AF_INET, "198.18.0.1", &server_id);
  for (int i = 1; i < argc; ++i) {
    const std::string_view option = argv[i];
    if (i + 1 >= argc) return usage();
    const char* value = argv[++i];
    if (option == "--port") {
      const long parsed = std::strtol(value, nullptr, 10);
      if (parsed <= 0 || parsed > 65535) return usage();
      port = static_cast<std::uint16_t>(parsed);
    } else if (option == "--receive-buffer") {
      const long parsed = std::strtol(value, nullptr, 10);
      if (parsed <= 0 || parsed > (1L << 30)) return usage();
      receive_buffer_bytes = static_cast<int>(parsed);
    } else if (option == "--server-id") {
      if (inet_pton(AF_INET, value, &server_id) != 1) return usage();
    } else {
      return usage();
    }
  }

  struct sigaction on_stop{};
  on_stop.sa_handler = request_stop;  // no SA_RESTART: poll returns EINTR
  sigaction(SIGTERM, &on_stop, nullptr);
  sigaction(SIGINT, &on_stop, nullptr);

  const int socket_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (socket_fd < 0) {
    std::perror("null_responder: socket");
    return 1;
  }
  const int on = 1;
  setsockopt(socket_fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof on);
  if (receive_buffer_bytes > 0 &&
      setsockopt(socket_fd, SOL_SOCKET, SO_RCVBUFFORCE, &receive_buffer_bytes, sizeof receive_buffer_bytes) != 0) {
    std::perror("null_responder: SO_RCVBUFFORCE");
    return 1;
  }
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_port = htons(port);
  local.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(socket_fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    std::perror("null_responder: bind");
    return 1;
  }

  Responder responder{socket_fd, ntohl(server_id.s_addr)};
  pollfd readable{socket_fd, POLLIN, 0};
  while (!stop_requested) {
    const int ready = poll(&readable, 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      std::perror("null_responder: poll");
      return 1;
    }
    if (readable.revents & POLLIN) responder.on_readable();
  }
  const Counts& counts = responder.counts();
  std::fprintf(stderr, "null_responder: received %llu, offers %llu, acks %llu, ignored %llu, send errors %llu\n",
               counts.received, counts.offers, counts.acks, counts.ignored, counts.send_errors);
  close(socket_fd);
  return 0;
}
