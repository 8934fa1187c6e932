// crash_client: the exact witness of the durability tests (issue #4). It talks to landlord as a
// relay agent on loopback (giaddr = its own address, option 82 sub-option 19 so replies come
// back to its UDP port) and writes down every DHCPACK at the moment it arrives, matched by
// xid and chaddr. The crash test kills the server under it and then holds the server to that
// ledger.
//
//   crash_client dora    --server A:P --ledger F --clients N [--window W] [--duration-s S]
//                        [--seed S] [--first I]
//       DORA for clients I..I+N-1, W at a time, until all are ACKed or S seconds pass.
//       Appends one line per ACK to F:
//       ack <ack_ms> <xid> <chaddr> <client_id> <yiaddr> <lease_s> <server_id> <requested_ms>
//       (times in unix ms; requested_ms: the first transmission of the ACKed REQUEST, from
//       which the client counts its lease, RFC 2131 §4.4.1)
//   crash_client check   --server A:P --ledger F [--expect ack|no-ack|durable|durable-reboot]
//                        [--window W]
//       For each client's last ledger line, an INIT-REBOOT REQUEST for its address.
//       --expect ack: every one must be ACKed with the same address (exit 1 otherwise).
//       --expect no-ack: none may be ACKed for that address (a NAK or silence).
//       --expect durable: a REBINDING REQUEST instead (ciaddr = the address, relayed, as a
//       client at T2 broadcasts it), for a store that refuses writes: every one must be ACKed
//       with the same address and a lease that ends, counted from the request's first
//       transmission, no later than the ledger's (ACK time + lease time): answered from the
//       durable lease, never extended.
//       --expect durable-reboot: the INIT-REBOOT REQUEST, held to the same as `durable`: a
//       rebooting client asking for its durable lease while the store refuses writes.
//       Silence is only a server's answer if the server is alive: when any request went
//       unanswered, a liveness probe follows, and exit 3 says the server did not answer it.
//   crash_client probe   --server A:P
//       A relayed DHCPINFORM (no address, so nothing is leased or written): exit 0 once the
//       server answers it, 3 if it does not within 8 attempts (dead, paused or not serving).
//   crash_client release --server A:P --ledger F
//       A relayed RELEASE for each client's last ledger line (no reply is expected).
//
// Exit status: 0 what was asked held; 1 it did not (a missing or unexpected ACK); 2 usage or
// ledger error; 3 the server did not answer the liveness probe.
//
// Every loop is bounded: each client has a retry budget and the run a deadline.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "landlord/wire/message.hpp"

namespace {

using namespace landlord;
using Clock = std::chrono::steady_clock;
namespace option = wire::option;

constexpr std::uint8_t kRelayPortSubOption = 19;  // RFC 8357: empty = reply to our source port
constexpr auto kAttemptTimeout = std::chrono::milliseconds{400};
constexpr int kRequestAttempts = 6;  // then start over with a DISCOVER
constexpr int kCheckAttempts = 8;    // INIT-REBOOT transmissions before "silent"

volatile std::sig_atomic_t g_stop = 0;

struct Endpoint {
  Ipv4 address;
  std::uint16_t port = 0;
};

std::optional<Endpoint> parse_endpoint(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto address = Ipv4::parse(text.substr(0, colon));
  const int port = std::atoi(text.c_str() + colon + 1);
  if (!address || port <= 0 || port > 65535) return std::nullopt;
  return Endpoint{*address, static_cast<std::uint16_t>(port)};
}

// One ledger line: what the client saw in an ACK.
struct Grant {
  std::int64_t ack_ms = 0;
  std::uint32_t xid = 0;
  std::string chaddr;     // colon hex, as the lease store writes hwaddr
  std::string client_id;  // colon hex, as the lease store writes client_id
  Ipv4 yiaddr;
  std::uint32_t lease_s = 0;
  Ipv4 server_id;
  std::int64_t requested_ms = 0;
};

std::string to_line(const Grant& grant) {
  char xid[16];
  std::snprintf(xid, sizeof xid, "0x%08x", grant.xid);
  std::ostringstream line;
  line << "ack " << grant.ack_ms << ' ' << xid << ' ' << grant.chaddr << ' ' << grant.client_id
       << ' ' << grant.yiaddr.to_string() << ' ' << grant.lease_s << ' '
       << grant.server_id.to_string() << ' ' << grant.requested_ms;
  return line.str();
}

std::optional<Grant> from_line(const std::string& line) {
  std::istringstream in{line};
  std::string tag, xid, yiaddr, server_id;
  Grant grant;
  if (!(in >> tag >> grant.ack_ms >> xid >> grant.chaddr >> grant.client_id >> yiaddr >>
        grant.lease_s >> server_id >> grant.requested_ms) ||
      tag != "ack") {
    return std::nullopt;
  }
  const auto address = Ipv4::parse(yiaddr);
  const auto server = Ipv4::parse(server_id);
  if (!address || !server) return std::nullopt;
  grant.xid = static_cast<std::uint32_t>(std::stoul(xid, nullptr, 16));
  grant.yiaddr = *address;
  grant.server_id = *server;
  return grant;
}

// The last grant of each client (a client may appear twice if a retransmission was ACKed).
std::optional<std::vector<Grant>> read_ledger(const std::string& path) {
  std::ifstream in{path};
  if (!in) return std::nullopt;
  std::map<std::string, Grant> last;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto grant = from_line(line);
    if (!grant) {
      std::cerr << "crash_client: bad ledger line: " << line << '\n';
      return std::nullopt;
    }
    last[grant->chaddr] = *grant;
  }
  std::vector<Grant> grants;
  for (auto& [chaddr, grant] : last) grants.push_back(grant);
  return grants;
}

// A client's identity: chaddr 02:<seed>:<index, 4 bytes>, client id 01 + chaddr.
struct Identity {
  std::array<std::uint8_t, 6> mac{};
  std::array<std::uint8_t, 7> client_id{};

  static Identity of(std::uint8_t seed, std::uint32_t index) {
    Identity identity;
    identity.mac = {0x02, seed, static_cast<std::uint8_t>(index >> 24),
                    static_cast<std::uint8_t>(index >> 16), static_cast<std::uint8_t>(index >> 8),
                    static_cast<std::uint8_t>(index)};
    identity.client_id[0] = HardwareAddress::kEthernet;
    std::copy(identity.mac.begin(), identity.mac.end(), identity.client_id.begin() + 1);
    return identity;
  }
  static std::optional<Identity> of(const Grant& grant) {
    const auto hardware = HardwareAddress::parse(grant.chaddr);
    const auto id = ClientId::parse(grant.client_id);
    if (!hardware || hardware->length() != 6 || !id || id->bytes().size() != 7) return std::nullopt;
    Identity identity;
    std::copy(hardware->bytes().begin(), hardware->bytes().end(), identity.mac.begin());
    std::copy(id->bytes().begin(), id->bytes().end(), identity.client_id.begin());
    return identity;
  }
  std::string chaddr_text() const { return HardwareAddress{HardwareAddress::kEthernet, mac}.to_string(); }
  std::string client_id_text() const { return ClientId{client_id}.to_string(); }
};

// The relay's socket: bound to an ephemeral port on the server's loopback address.
class RelaySocket {
 public:
  static std::optional<RelaySocket> open(Endpoint server) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return std::nullopt;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr.s_addr = htonl(server.address.to_uint());
    socklen_t length = sizeof local;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), length) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
      ::close(fd);
      return std::nullopt;
    }
    return RelaySocket{fd, server, Ipv4{ntohl(local.sin_addr.s_addr)}};
  }
  RelaySocket(RelaySocket&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), server_(other.server_), giaddr_(other.giaddr_) {}
  RelaySocket& operator=(RelaySocket&&) = delete;
  ~RelaySocket() {
    if (fd_ >= 0) ::close(fd_);
  }

  void send(wire::Message message) {
    message.giaddr = giaddr_;
    message.hops = 1;
    static constexpr std::array<std::uint8_t, 2> kRelayAgentInfo = {kRelayPortSubOption, 0};
    message.options.set(option::kRelayAgentInfo, kRelayAgentInfo);
    std::array<std::uint8_t, 1500> bytes{};
    const auto built = wire::build(message, bytes);
    if (!built) return;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(server_.port);
    to.sin_addr.s_addr = htonl(server_.address.to_uint());
    // A refused or failed send is a lost datagram: the retransmission timer covers it.
    (void)::sendto(fd_, bytes.data(), built->size, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  }

  // The next parsed server reply, waiting at most `timeout`.
  std::optional<wire::Message> receive(std::chrono::milliseconds timeout) {
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
    std::array<std::uint8_t, wire::kMaxPacketSize> bytes{};
    const ssize_t size = ::recv(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT);
    if (size <= 0) return std::nullopt;  // e.g. ECONNREFUSED while the server is down
    auto message = wire::parse(std::span{bytes.data(), static_cast<std::size_t>(size)});
    if (!message || message->op != wire::Op::BootReply) return std::nullopt;
    return std::move(message.value());
  }

 private:
  RelaySocket(int fd, Endpoint server, Ipv4 giaddr) : fd_(fd), server_(server), giaddr_(giaddr) {}
  int fd_;
  Endpoint server_;
  Ipv4 giaddr_;
};

wire::Message request_of(const Identity& identity, wire::MessageType type, std::uint32_t xid) {
  wire::Message message;
  message.xid = xid;
  std::copy(identity.mac.begin(), identity.mac.end(), message.chaddr.begin());
  message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(type));
  message.options.set(option::kClientId, identity.client_id);
  return message;
}

bool matches(const wire::Message& reply, const Identity& identity) {
  return reply.hlen == 6 && std::equal(identity.mac.begin(), identity.mac.end(), reply.chaddr.begin());
}

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---- dora ---------------------------------------------------------------------------------

// One client's DORA in flight. Each exchange has its own xid, so a late reply to an earlier
// exchange can never be taken for this one.
struct DoraSlot {
  enum class Step : std::uint8_t { Discovering, Requesting } step = Step::Discovering;
  Identity identity;
  std::uint32_t xid = 0;
  Ipv4 offered, server_id;
  int attempts = 0;
  Clock::time_point retry_at;
  std::int64_t requested_ms = 0;  // first transmission of the current REQUEST
};

struct DoraCounts {
  std::uint64_t acked = 0, naks = 0, discover_timeouts = 0, request_timeouts = 0, stray = 0;
};

class Dora {
 public:
  Dora(RelaySocket& socket, std::FILE* ledger, std::uint32_t seed)
      : socket_(socket), ledger_(ledger), random_(seed) {}

  DoraCounts run(std::uint8_t seed, std::uint32_t first, std::uint32_t clients, std::size_t window,
                 Clock::time_point deadline) {
    std::uint32_t next = first;
    const std::uint32_t end = first + clients;
    while (!g_stop && Clock::now() < deadline && (next < end || !slots_.empty())) {
      while (next < end && slots_.size() < window) start(Identity::of(seed, next++));
      if (auto reply = socket_.receive(std::chrono::milliseconds{20})) on_reply(*reply);
      retransmit_due();
    }
    unfinished_ = slots_.size() + (end - next);
    return counts_;
  }
  std::size_t unfinished() const { return unfinished_; }

 private:
  std::uint32_t fresh_xid() {
    std::uint32_t xid = 0;
    do xid = static_cast<std::uint32_t>(random_()); while (xid == 0 || slots_.contains(xid));
    return xid;
  }

  void start(const Identity& identity) {
    DoraSlot slot;
    slot.identity = identity;
    discover(slot);
  }

  void discover(DoraSlot slot) {
    slot.step = DoraSlot::Step::Discovering;
    slot.xid = fresh_xid();
    slot.attempts = 1;
    slot.retry_at = Clock::now() + kAttemptTimeout;
    socket_.send(request_of(slot.identity, wire::MessageType::Discover, slot.xid));
    slots_.emplace(slot.xid, slot);
  }

  void send_request(const DoraSlot& slot) {
    auto message = request_of(slot.identity, wire::MessageType::Request, slot.xid);
    message.options.set_ipv4(option::kRequestedAddress, slot.offered);
    message.options.set_ipv4(option::kServerId, slot.server_id);
    socket_.send(message);
  }

  void on_reply(const wire::Message& reply) {
    const auto found = slots_.find(reply.xid);
    if (found == slots_.end() || !matches(reply, found->second.identity)) {
      ++counts_.stray;
      return;
    }
    DoraSlot slot = found->second;
    const auto type = reply.type();
    const auto server_id = reply.options.get_ipv4(option::kServerId);
    if (slot.step == DoraSlot::Step::Discovering && type == wire::MessageType::Offer && server_id) {
      slots_.erase(found);
      slot.step = DoraSlot::Step::Requesting;
      slot.offered = reply.yiaddr;
      slot.server_id = *server_id;
      slot.xid = fresh_xid();
      slot.attempts = 1;
      slot.retry_at = Clock::now() + kAttemptTimeout;
      slot.requested_ms = unix_ms_now();
      send_request(slot);
      slots_.emplace(slot.xid, slot);
    } else if (slot.step == DoraSlot::Step::Requesting && type == wire::MessageType::Ack &&
               !reply.yiaddr.is_zero()) {
      slots_.erase(found);
      record(slot, reply);
    } else if (slot.step == DoraSlot::Step::Requesting && type == wire::MessageType::Nak) {
      slots_.erase(found);
      ++counts_.naks;
      discover(slot);
    } else {
      ++counts_.stray;  // e.g. a duplicate OFFER after we moved on
    }
  }

  void record(const DoraSlot& slot, const wire::Message& ack) {
    Grant grant;
    grant.ack_ms = unix_ms_now();
    grant.xid = ack.xid;
    grant.chaddr = slot.identity.chaddr_text();
    grant.client_id = slot.identity.client_id_text();
    grant.yiaddr = ack.yiaddr;  // what the ACK says, not what was offered
    grant.lease_s = ack.options.get_u32(option::kLeaseTime).value_or(0);
    grant.server_id = ack.options.get_ipv4(option::kServerId).value_or(slot.server_id);
    grant.requested_ms = slot.requested_ms;
    // One line and a flush per ACK: the script may read the ledger while we run.
    std::fprintf(ledger_, "%s\n", to_line(grant).c_str());
    std::fflush(ledger_);
    ++counts_.acked;
  }

  void retransmit_due() {
    const auto now = Clock::now();
    std::vector<std::uint32_t> due;
    for (const auto& [xid, slot] : slots_) {
      if (slot.retry_at <= now) due.push_back(xid);
    }
    for (const std::uint32_t xid : due) {
      DoraSlot slot = slots_.at(xid);
      if (slot.step == DoraSlot::Step::Discovering) {
        ++counts_.discover_timeouts;
        slots_.erase(xid);
        discover(slot);
      } else if (slot.attempts < kRequestAttempts) {
        ++counts_.request_timeouts;
        ++slots_.at(xid).attempts;
        slots_.at(xid).retry_at = now + kAttemptTimeout;
        send_request(slot);  // same xid: the retransmission of one REQUEST
      } else {
        ++counts_.request_timeouts;
        slots_.erase(xid);
        discover(slot);
      }
    }
  }

  RelaySocket& socket_;
  std::FILE* ledger_;
  std::mt19937 random_;
  std::unordered_map<std::uint32_t, DoraSlot> slots_;
  DoraCounts counts_;
  std::size_t unfinished_ = 0;
};

// ---- check --------------------------------------------------------------------------------

struct CheckCounts {
  std::uint64_t checked = 0, acked_same = 0, acked_other = 0, naks = 0, silent = 0;
  std::uint64_t past_durable = 0;  // --expect durable: ACKs whose lease ends past the ledger's
  std::int64_t least_margin_ms = INT64_MAX;  // durable end - promised end, the smallest seen
};

enum class Expect : std::uint8_t { Ack, NoAck, Durable, DurableReboot };

// One INIT-REBOOT REQUEST per grant (RFC 2131 §4.3.2: option 50, no server id, no ciaddr),
// `window` at a time, each retransmitted with its xid until answered or out of attempts.
CheckCounts check(RelaySocket& socket, const std::vector<Grant>& grants, std::size_t window,
                  Expect expect, std::uint32_t seed) {
  struct Pending {
    std::size_t index;
    Identity identity;
    int attempts;
    Clock::time_point retry_at;
    std::int64_t first_sent_ms = 0;  // the client counts its lease from here (§4.4.1)
  };
  const bool expect_ack = expect != Expect::NoAck;
  const bool durable = expect == Expect::Durable || expect == Expect::DurableReboot;
  std::mt19937 random{seed};
  std::unordered_map<std::uint32_t, Pending> pending;
  CheckCounts counts;
  std::size_t next = 0;
  auto send = [&](std::uint32_t xid, const Pending& entry) {
    auto message = request_of(entry.identity, wire::MessageType::Request, xid);
    if (expect == Expect::Durable) {
      message.ciaddr = grants[entry.index].yiaddr;  // REBINDING: ciaddr, no option 50 or 54
    } else {
      message.options.set_ipv4(option::kRequestedAddress, grants[entry.index].yiaddr);
    }
    socket.send(message);
  };
  auto report = [&](const Grant& grant, const char* outcome, const std::string& detail) {
    const bool failure = expect_ack ? std::string_view{outcome} != "acked-same"
                                    : std::string_view{outcome} == "acked-same";
    if (failure) {
      std::cout << "VIOLATION " << outcome << ' ' << grant.chaddr << ' '
                << grant.yiaddr.to_string() << detail << '\n';
    }
  };
  while (!g_stop && (next < grants.size() || !pending.empty())) {
    while (next < grants.size() && pending.size() < window) {
      const auto identity = Identity::of(grants[next]);
      if (!identity) {
        std::cerr << "crash_client: bad identity in ledger for " << grants[next].chaddr << '\n';
        ++next;
        continue;
      }
      std::uint32_t xid = 0;
      do xid = static_cast<std::uint32_t>(random()); while (xid == 0 || pending.contains(xid));
      Pending entry{next++, *identity, 1, Clock::now() + kAttemptTimeout, unix_ms_now()};
      send(xid, entry);
      pending.emplace(xid, entry);
    }
    if (auto reply = socket.receive(std::chrono::milliseconds{20})) {
      const auto found = pending.find(reply->xid);
      if (found != pending.end() && matches(*reply, found->second.identity)) {
        const Grant& grant = grants[found->second.index];
        ++counts.checked;
        if (reply->type() == wire::MessageType::Ack && reply->yiaddr == grant.yiaddr) {
          ++counts.acked_same;
          report(grant, "acked-same", "");
          if (durable) {
            const std::int64_t lease_ms =
                std::int64_t{reply->options.get_u32(option::kLeaseTime).value_or(0)} * 1000;
            const std::int64_t margin_ms = grant.ack_ms + std::int64_t{grant.lease_s} * 1000 -
                                           (found->second.first_sent_ms + lease_ms);
            counts.least_margin_ms = std::min(counts.least_margin_ms, margin_ms);
            if (margin_ms < 0) {
              ++counts.past_durable;
              std::cout << "VIOLATION past-durable " << grant.chaddr << ' '
                        << grant.yiaddr.to_string() << " lease " << lease_ms / 1000 << " s ends "
                        << -margin_ms << " ms past the lease the ledger holds\n";
            }
          }
        } else if (reply->type() == wire::MessageType::Ack) {
          ++counts.acked_other;
          report(grant, "acked-other", " got " + reply->yiaddr.to_string());
        } else if (reply->type() == wire::MessageType::Nak) {
          ++counts.naks;
          report(grant, "nak", "");
        }
        pending.erase(found);
      }
    }
    const auto now = Clock::now();
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->second.retry_at > now) {
        ++it;
      } else if (it->second.attempts < kCheckAttempts) {
        ++it->second.attempts;
        it->second.retry_at = now + kAttemptTimeout;
        send(it->first, it->second);
        ++it;
      } else {
        ++counts.checked;
        ++counts.silent;
        report(grants[it->second.index], "silent", "");
        it = pending.erase(it);
      }
    }
  }
  return counts;
}

// A server that answers is alive: a relayed DHCPINFORM with ciaddr 0 is answered with a
// DHCPACK to the relay and changes no lease. True once answered, false after the attempts.
bool probe(RelaySocket& socket, std::uint32_t seed) {
  std::mt19937 random{seed ^ 0x9e3779b9u};
  const Identity identity = Identity::of(0xfe, 0xfffffffe);
  const auto xid = static_cast<std::uint32_t>(random()) | 1u;
  for (int attempt = 0; attempt < kCheckAttempts && !g_stop; ++attempt) {
    socket.send(request_of(identity, wire::MessageType::Inform, xid));
    const auto until = Clock::now() + kAttemptTimeout;
    while (Clock::now() < until) {
      const auto reply = socket.receive(std::chrono::milliseconds{20});
      if (reply && reply->xid == xid && matches(*reply, identity) &&
          reply->type() == wire::MessageType::Ack) {
        return true;
      }
    }
  }
  return false;
}

constexpr int kExitHeld = 0, kExitViolated = 1, kExitServerNotAnswering = 3;

void release(RelaySocket& socket, const std::vector<Grant>& grants, std::uint32_t seed) {
  std::mt19937 random{seed};
  for (const Grant& grant : grants) {
    const auto identity = Identity::of(grant);
    if (!identity) continue;
    auto message = request_of(*identity, wire::MessageType::Release, static_cast<std::uint32_t>(random()));
    message.ciaddr = grant.yiaddr;
    message.options.set_ipv4(option::kServerId, grant.server_id);
    socket.send(message);
  }
}

// ---- main ---------------------------------------------------------------------------------

struct Arguments {
  std::string mode;
  std::map<std::string, std::string> values;

  std::string get(const std::string& key, const std::string& fallback = "") const {
    const auto found = values.find(key);
    return found == values.end() ? fallback : found->second;
  }
  std::uint64_t number(const std::string& key, std::uint64_t fallback) const {
    const auto found = values.find(key);
    return found == values.end() ? fallback : std::stoull(found->second);
  }
};

int usage() {
  std::cerr << "usage: crash_client dora|check|probe|release --server ADDR:PORT --ledger FILE "
               "[--clients N] [--first I] [--window W] [--duration-s S] [--seed S] "
               "[--expect ack|no-ack|durable|durable-reboot]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  Arguments arguments{argv[1], {}};
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key.rfind("--", 0) != 0) return usage();
    arguments.values[key.substr(2)] = argv[i + 1];
  }
  if ((argc - 2) % 2 != 0) return usage();
  const auto server = parse_endpoint(arguments.get("server"));
  const std::string ledger_path = arguments.get("ledger");
  if (!server || (ledger_path.empty() && arguments.mode != "probe")) return usage();
  // The durability tests never talk to anything but loopback: 127.0.0.0/8, or 198.18.0.0/15 (the
  // tests' own range) on a namespace's lo (control_lab.sh's server listens on 198.18.0.1).
  if ((server->address.to_uint() >> 24) != 127 && (server->address.to_uint() >> 17) != (0xC6120000u >> 17)) {
    std::cerr << "crash_client: --server must be on 127.0.0.0/8 or 198.18.0.0/15\n";
    return 2;
  }
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGINT, [](int) { g_stop = 1; });
  auto socket = RelaySocket::open(*server);
  if (!socket) {
    std::cerr << "crash_client: cannot open a UDP socket on " << server->address.to_string() << '\n';
    return 2;
  }
  const auto seed = static_cast<std::uint32_t>(arguments.number("seed", 1));
  const std::size_t window = arguments.number("window", 8);

  if (arguments.mode == "probe") {
    const bool alive = probe(*socket, seed);
    std::cout << (alive ? "alive" : "not answering") << '\n';
    return alive ? kExitHeld : kExitServerNotAnswering;
  }
  if (arguments.mode == "dora") {
    std::FILE* ledger = std::fopen(ledger_path.c_str(), "a");
    if (ledger == nullptr) {
      std::perror(ledger_path.c_str());
      return 2;
    }
    const auto deadline = Clock::now() + std::chrono::seconds{arguments.number("duration-s", 30)};
    Dora dora{*socket, ledger, seed};
    const DoraCounts counts =
        dora.run(static_cast<std::uint8_t>(seed), static_cast<std::uint32_t>(arguments.number("first", 0)),
                 static_cast<std::uint32_t>(arguments.number("clients", 1)), window, deadline);
    std::fclose(ledger);
    std::cout << "doras_acked=" << counts.acked << " naks=" << counts.naks
              << " discover_timeouts=" << counts.discover_timeouts
              << " request_timeouts=" << counts.request_timeouts << " stray=" << counts.stray
              << " unfinished=" << dora.unfinished() << '\n';
    return 0;
  }

  const auto grants = read_ledger(ledger_path);
  if (!grants) {
    std::cerr << "crash_client: cannot read the ledger " << ledger_path << '\n';
    return 2;
  }
  if (arguments.mode == "check") {
    const std::string expect_name = arguments.get("expect", "ack");
    if (expect_name != "ack" && expect_name != "no-ack" && expect_name != "durable" &&
        expect_name != "durable-reboot") {
      return usage();
    }
    const Expect expect = expect_name == "ack"       ? Expect::Ack
                          : expect_name == "no-ack"  ? Expect::NoAck
                          : expect_name == "durable" ? Expect::Durable
                                                     : Expect::DurableReboot;
    const CheckCounts counts = check(*socket, *grants, window, expect, seed);
    std::cout << "checked=" << counts.checked << " acked_same=" << counts.acked_same
              << " acked_other=" << counts.acked_other << " naks=" << counts.naks
              << " silent=" << counts.silent;
    if (expect == Expect::Durable || expect == Expect::DurableReboot) {
      std::cout << " past_durable=" << counts.past_durable << " least_margin_ms="
                << (counts.acked_same > 0 ? counts.least_margin_ms : 0);
    }
    std::cout << '\n';
    // Silence is a refusal only from a server that is alive to refuse.
    if (counts.silent > 0 && !probe(*socket, seed)) {
      std::cout << "server not answering: " << counts.silent
                << " requests unanswered and the liveness probe failed\n";
      return kExitServerNotAnswering;
    }
    const bool all_checked = counts.checked == grants->size();
    const bool held = expect == Expect::NoAck
                          ? counts.acked_same == 0
                          : counts.acked_same == grants->size() && counts.past_durable == 0;
    return all_checked && held ? kExitHeld : kExitViolated;
  }
  if (arguments.mode == "release") {
    release(*socket, *grants, seed);
    std::cout << "released=" << grants->size() << '\n';
    return 0;
  }
  return usage();
}
