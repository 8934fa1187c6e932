#pragma once
// Pool starvation defences, sans I/O: whether a request that would give its client a new
// address (an OFFER, or a grant of an address it does not hold) may go on to the engine.
// The caller asks the engine first (Engine::request_facts) and brings only such requests
// here, so renewals, rebinds and reboots of a holder are never limited. Time comes in as an
// argument; what the engine holds is asked through two callbacks, so nothing here goes stale
// when a lease ends, is released or an offer lapses.
//
// Keys a request is counted under, each limit per subnet (config::Admission):
//   client   its chaddr                                       token bucket
//   relay    its giaddr; a direct request: the link it came in  token bucket, lease cap
//   circuit  giaddr + option 82 circuit-id                    token bucket, lease cap
//   remote   option 82 remote-id                               lease cap
//   prefix   the first mac-prefix-length bytes of chaddr        lease cap
//   source   a direct request's frame source address (chaddr when unseen); none for a relayed
//            one (a circuit may be a whole LAN: circuit-leases counts its offers too)
//                                                             outstanding OFFERs, lease cap
// A request passes when every cap has room and every bucket a token; only then are the
// buckets charged. Tables are bounded: an idle key (full bucket, nothing held) is forgotten.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/config/config.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

// Who a request is from, as far as the server can tell.
struct Applicant {
  HardwareAddress hardware;                // chaddr
  std::optional<std::array<std::uint8_t, 6>> frame_source;  // a direct request's Ethernet source, when seen
  Ipv4 giaddr;                             // 0: directly attached
  std::uint32_t link = 0;                  // the interface a direct request came in on
  std::span<const std::uint8_t> circuit_id;  // option 82 sub-option 1 (relayed only)
  std::span<const std::uint8_t> remote_id;   // option 82 sub-option 2
};

enum class Refusal : std::uint8_t {
  ClientRate, RelayRate, CircuitRate,                          // a bucket is empty
  RelayLeases, CircuitLeases, RemoteLeases, MacPrefixLeases,   // a lease cap is reached
  SourceOffers,                                                // too many OFFERs outstanding
  SourceLeases,                                                // a direct sender's lease cap
};
inline constexpr std::size_t kRefusalKinds = 9;
std::string_view to_string(Refusal refusal);  // "client_rate", ... (metric labels)

struct AdmissionCounters {
  std::uint64_t admitted = 0;
  std::uint64_t refused[kRefusalKinds] = {};
  std::uint64_t forgotten = 0;  // keys dropped while still busy: the tables were full
};

class Admission {
 public:
  // Whether the engine still has `address` on offer to / bound to `client`.
  using Holds = std::function<bool(Ipv4 address, const ClientKey& client)>;
  Admission(const config::Config& config, Holds offered, Holds bound);

  // SIGHUP: the subnets' new limits; what was counted stays.
  void reconfigure(const config::Config& config);

  // A request for a new address in subnet `subnet_id`: admitted (the buckets charged) or why not.
  std::optional<Refusal> admit(std::uint32_t subnet_id, const Applicant& applicant, TimePoint now);
  // What an admitted request got: an OFFER (counted against its source until the offer ends)
  // or a bound lease (counted against its capped keys until it ends).
  void offered(std::uint32_t subnet_id, const Applicant& applicant, Ipv4 address, const ClientKey& client,
               TimePoint now);
  void granted(std::uint32_t subnet_id, const Applicant& applicant, Ipv4 address, const ClientKey& client);
  // Whether offered() (offer) or granted() would count anything of `applicant` in `subnet_id`:
  // with the defaults a relayed request counts nothing, and the caller need not build the
  // client's key.
  bool counts(std::uint32_t subnet_id, const Applicant& applicant, bool offer) const;

  const AdmissionCounters& counters() const { return counters_; }
  std::size_t tracked_keys() const { return buckets_.size() + offers_.size() + leases_.size(); }

 private:
  struct Bucket {
    config::TokenRate rate;  // as last charged: tells when it is full again
    double tokens = 0;
    TimePoint refilled{};
  };
  struct Held {
    Ipv4 address;
    ClientKey client;
    TimePoint offered_until{};  // an OFFER's: it counts until then while still on offer
  };
  // The addresses counted under one key; re-checked against the engine at most once a second.
  struct Holdings {
    std::vector<Held> held;
    TimePoint checked{};
  };
  struct Keys;    // the request's keys in one subnet (admission.cpp)
  struct Wanted;  // which of them a step uses: only those are built

  static Wanted wanted_to_admit(const config::Admission& limits);
  static Wanted wanted_to_count(const config::Admission& limits, bool offer);

  const config::Admission* limits_of(std::uint32_t subnet_id) const;
  Keys keys_of(std::uint32_t subnet_id, const config::Admission& limits, const Applicant& applicant,
               const Wanted& wanted) const;
  static double tokens_at(const Bucket& bucket, TimePoint now);
  bool has_token(const std::string& key, const config::TokenRate& rate, TimePoint now) const;
  void take_token(const std::string& key, const config::TokenRate& rate, TimePoint now);
  // Entries under `key` still held (an offer: before offered_until and still on offer; in
  // leases_ also a bound lease), after pruning the rest when due; 0 for an unknown key.
  std::size_t live(std::unordered_map<std::string, Holdings>& table, const std::string& key, TimePoint now,
                   bool force = false);
  static void hold(std::unordered_map<std::string, Holdings>& table, const std::string& key, const Held& held);
  void forget_idle(TimePoint now);

  std::vector<config::Admission> limits_;  // by subnet id - 1
  Holds offered_, bound_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::unordered_map<std::string, Holdings> offers_;  // by source: outstanding OFFERs
  std::unordered_map<std::string, Holdings> leases_;  // by capped key: OFFERs and bound leases
  std::size_t next_sweep_at_;
  AdmissionCounters counters_;
};

// The applicant of `message` as it came in: option 82 is read only from a relayed request
// (a client cannot speak for a relay agent).
Applicant applicant_of(const wire::Message& message, const Ingress& ingress,
                       std::optional<std::array<std::uint8_t, 6>> frame_source);

// What the server does with each request, given the engine's facts about it
// (Engine::request_facts): admission for a request that would give a new address, then the
// engine; an OFFER or a lease it gave is counted.
struct Admitted {
  Outcome outcome;                  // empty when refused: the engine never saw the request
  std::optional<Refusal> refusal;
};
Admitted handle_admitted(Engine& engine, Admission& admission, const RequestFacts& facts,
                         const wire::Message& message, const Ingress& ingress, const Applicant& applicant,
                         TimePoint now);

}  // namespace landlord::engine
