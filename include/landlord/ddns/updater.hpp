#pragma once
// The DNS updater, sans I/O (docs/ddns.md): lease events and the time in; DNS messages to send,
// a deadline to be woken at and finished work out. One transaction per lease event walks the
// steps of RFC 4703 §5 (forward name first, then the PTR; on removal the A, then the DHCID if
// no address is left, then the PTR), each step one signed UPDATE whose prerequisites make the
// server refuse to touch a name another client or the operator owns. Work for one name runs in
// the order it arrived; a bounded number of transactions is in flight at once; a lost message
// or a SERVFAIL is retried with back-off; a truncated answer is asked again over TCP.
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "landlord/base/ipv4.hpp"
#include "landlord/base/time.hpp"
#include "landlord/ddns/dhcid.hpp"
#include "landlord/ddns/message.hpp"
#include "landlord/ddns/name.hpp"
#include "landlord/ddns/settings.hpp"

namespace landlord::ddns {

// A lease's names: what a grant adds and a release, expiry, decline or deletion removes.
struct Binding {
  Ipv4 address;
  DhcidIdentifier identifier;
  Name fqdn;
  bool forward = true;  // the A (and DHCID) in the forward zone
  bool reverse = true;  // the PTR (and DHCID) in the reverse zone
  Duration lease_time{0};  // the TTL is derived from it (Settings::ttl)
};

enum class Operation { kAdd, kRemove };
const char* operation_text(Operation operation);

enum class RecordStatus {
  kNotRequested,  // this side was not asked for
  kDone,          // the records are as asked (added, or removed or already absent)
  kConflict,      // the name belongs to another client or is an operator's record: untouched
  kFailed,        // an error or too many lost messages (cause says which)
  kNotAttempted,  // the other side failed first
};
const char* record_status_text(RecordStatus status);

enum class Cause {
  kNone, kTimeout, kServFail, kRefused, kNotAuth, kNotZone, kFormErr, kNotImp, kBadKey, kBadSig,
  kBadTime, kUnexpectedRcode, kOutsideZone, kQueueFull, kInvalidResponse,
};
const char* cause_text(Cause cause);  // "timeout", "refused", ... (for logs and metric labels)

struct Completion {
  Operation operation = Operation::kAdd;
  Binding binding;
  RecordStatus forward = RecordStatus::kNotRequested;
  RecordStatus reverse = RecordStatus::kNotRequested;
  Cause cause = Cause::kNone;  // of the first failure
  std::string detail;          // for the log: the zone, the rcode, what was wrong
  unsigned messages_sent = 0;
};

enum class Transport { kUdp, kTcp };

// One message for the I/O layer: over TCP it adds the two-byte length (RFC 1035 §4.2.2).
struct Outgoing {
  std::uint16_t id = 0;
  Transport transport = Transport::kUdp;
  ServerAddress server;
  std::vector<std::uint8_t> bytes;
};

// The steps of one transaction (steps.cpp says what each sends and what each answer means).
enum class Step {
  kAddForward, kReplaceForward, kAddReverse, kReplaceReverse,
  kRemoveForwardAddress, kRemoveForwardDhcid, kRemoveReverse, kDone,
};
const char* step_text(Step step);

class Updater {
 public:
  // `id_seed` starts the message-id sequence (the daemon passes a random number: ids are not
  // the security, TSIG is, but predictable ids help a spoofer of unsigned updates).
  Updater(Settings settings, std::uint32_t id_seed);

  // Queue work; false when Settings::max_queued transactions are already queued (the work is
  // then reported at once as a completion with cause kQueueFull).
  bool add(const Binding& binding, TimePoint now);
  bool remove(const Binding& binding, TimePoint now);

  // A datagram or TCP message from the server. Anything that is not an authentic answer to a
  // message in flight is ignored (and remembered as the reason if that message then times out).
  void on_response(std::span<const std::uint8_t> bytes, TimePoint now);
  // The I/O layer could not send or got no TCP answer for message `id`: counts as a loss.
  void on_send_failed(std::uint16_t id, TimePoint now);
  // Time passed: timeouts and back-offs due at `now` act.
  void tick(TimePoint now);

  std::optional<TimePoint> next_deadline() const;
  std::vector<Outgoing> take_outgoing();
  std::vector<Completion> take_completions();

  std::size_t queued() const { return queued_; }     // in flight and waiting
  std::size_t in_flight() const { return active_.size(); }
  std::size_t ignored_responses() const { return ignored_responses_; }
  const Settings& settings() const { return settings_; }

 private:
  enum class Phase { kWaiting, kSent, kBackoff };
  struct Transaction {
    Operation operation = Operation::kAdd;
    Binding binding;
    std::optional<Name> reverse_name;
    Name reverse_zone;
    std::vector<std::uint8_t> dhcid;
    std::uint32_t ttl_s = 0;
    Step step = Step::kDone;
    Phase phase = Phase::kWaiting;
    Transport transport = Transport::kUdp;
    unsigned attempts = 0;  // of the current step
    TimePoint deadline{};
    std::uint16_t id = 0;
    std::vector<std::uint8_t> request_mac;
    Completion result;
    Cause loss_cause = Cause::kTimeout;  // what a timeout is reported as
    std::string loss_detail;
  };

  bool enqueue(Operation operation, const Binding& binding, TimePoint now);
  void start_ready(TimePoint now);
  void send_step(Transaction& transaction, TimePoint now);
  void answer(Transaction& transaction, const Response& response, TimePoint now);
  void lost(Transaction& transaction, Cause cause, std::string detail, TimePoint now);
  void advance(Transaction& transaction, Step next, TimePoint now);
  void finish(Transaction& transaction);
  std::uint16_t next_id();
  Transaction* find_sent(std::uint16_t id);

  Settings settings_;
  std::uint32_t id_state_;
  // Work by canonical name, oldest first; the front of a queue may be active.
  std::unordered_map<std::string, std::deque<Transaction>> by_name_;
  std::deque<std::string> ready_;       // names whose front waits for a slot
  std::vector<std::string> active_;     // names whose front holds a slot
  std::unordered_map<std::uint16_t, std::string> sent_;  // message id -> name
  std::vector<Outgoing> outgoing_;
  std::vector<Completion> completions_;
  std::size_t queued_ = 0;
  std::size_t ignored_responses_ = 0;
};

}  // namespace landlord::ddns
