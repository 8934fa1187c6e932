#pragma once
// The auditor judges the server only from what it sent back (TigerBeetle's auditor): it never
// looks inside the server. It keeps, per address, which simulated client holds it and until
// when, and the xids each client may still get an answer to.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/sim/client.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim {

struct Violation {
  enum class Kind : std::uint8_t {
    DuplicateAddress,    // an address ACKed to a client while another client's lease on it ran
    AddressChanged,      // an ACK for another address than requested, without a NAK first
    BadTimers,           // an ACK with T1 >= T2, T2 >= lease time or T1 >= lease time
    UnsolicitedReply,    // a reply whose chaddr/xid matches no request we sent
    RelayInfoNotEchoed,  // a reply to a relayed request without our option 82 (RFC 3046 §2.2)
  };
  Kind kind;
  TimePoint at;
  std::string detail;
  std::string exchange;  // the request/reply that showed it: type, xid, client, what it carried
};
std::string_view to_string(Violation::Kind kind);

using ClientIndex = std::uint32_t;

class Auditor {
 public:
  // `grace` absorbs the server rounding lease starts to whole seconds.
  explicit Auditor(Duration grace = std::chrono::seconds(1)) : grace_(grace) {}

  // Relay mode: every reply must carry back the option 82 we added, byte for byte.
  void expect_relay_agent_info(std::span<const std::uint8_t> value) {
    expected_relay_agent_info_.assign(value.begin(), value.end());
    check_relay_agent_info_ = true;
  }

  // A request left with this xid: a reply to it is solicited.
  void on_sent(ClientIndex client, std::uint32_t xid);
  // Every reply that arrived; `client` owns the chaddr, nullopt when none of ours does.
  void on_reply(std::optional<ClientIndex> client, const wire::Message& reply, TimePoint now);
  // What the reply did to the client (Leased, Renewed, Rebound, AddressChanged, Released,
  // Declined, Nak): holding changes.
  void on_event(ClientIndex client, const Event& event, TimePoint now);

  const std::vector<Violation>& violations() const { return violations_; }
  // All violations found, including those beyond the kept list.
  std::size_t violation_count() const { return violation_count_; }

 private:
  struct Holding {
    ClientIndex client;
    TimePoint until;  // the earliest the server may consider the lease over
  };
  // A late reply to a retransmitted or superseded request is legitimate, so a few recent
  // xids per client are remembered.
  static constexpr std::size_t kRecentXids = 8;
  struct Recent {
    std::array<std::uint32_t, kRecentXids> xids{};
    std::uint8_t next = 0;
    std::uint8_t count = 0;
  };

  void hold(ClientIndex client, const Event& event, TimePoint now);
  void drop(ClientIndex client, Ipv4 address);
  void report(Violation::Kind kind, TimePoint at, std::string detail, std::string exchange);

  Duration grace_;
  std::vector<Recent> recent_;  // by client index
  std::unordered_map<Ipv4, Holding> holders_;
  std::vector<std::optional<Ipv4>> held_by_client_;  // by client index: no node per lease
  std::vector<std::uint8_t> expected_relay_agent_info_;
  bool check_relay_agent_info_ = false;
  std::vector<Violation> violations_;
  std::size_t violation_count_ = 0;
};

}  // namespace landlord::sim
