#include "landlord/ddns/updater.hpp"

#include <algorithm>
#include <utility>

#include "landlord/base/assert.hpp"
#include "landlord/ddns/tsig.hpp"
#include "steps.hpp"

namespace landlord::ddns {

const char* operation_text(Operation operation) {
  return operation == Operation::kAdd ? "add" : "remove";
}

const char* record_status_text(RecordStatus status) {
  switch (status) {
    case RecordStatus::kNotRequested: return "not-requested";
    case RecordStatus::kDone: return "done";
    case RecordStatus::kConflict: return "conflict";
    case RecordStatus::kFailed: return "failed";
    case RecordStatus::kNotAttempted: return "not-attempted";
  }
  return "?";
}

const char* cause_text(Cause cause) {
  switch (cause) {
    case Cause::kNone: return "none";
    case Cause::kTimeout: return "timeout";
    case Cause::kServFail: return "servfail";
    case Cause::kRefused: return "refused";
    case Cause::kNotAuth: return "notauth";
    case Cause::kNotZone: return "notzone";
    case Cause::kFormErr: return "formerr";
    case Cause::kNotImp: return "notimp";
    case Cause::kBadKey: return "badkey";
    case Cause::kBadSig: return "badsig";
    case Cause::kBadTime: return "badtime";
    case Cause::kUnexpectedRcode: return "unexpected-rcode";
    case Cause::kOutsideZone: return "outside-zone";
    case Cause::kQueueFull: return "queue-full";
    case Cause::kInvalidResponse: return "invalid-response";
  }
  return "?";
}

const char* step_text(Step step) {
  switch (step) {
    case Step::kAddForward: return "add-forward";
    case Step::kReplaceForward: return "replace-forward";
    case Step::kAddReverse: return "add-reverse";
    case Step::kReplaceReverse: return "replace-reverse";
    case Step::kRemoveForwardAddress: return "remove-forward-address";
    case Step::kRemoveForwardDhcid: return "remove-forward-dhcid";
    case Step::kRemoveReverse: return "remove-reverse";
    case Step::kDone: return "done";
  }
  return "?";
}

namespace {

std::string key_of(const Name& name) { return name.canonical().to_text(); }

// The reverse zone that covers `name`: the longest, so a delegated /24 wins over its /16.
const Name* covering_zone(const std::vector<Name>& zones, const Name& name) {
  const Name* best = nullptr;
  for (const auto& zone : zones) {
    if (name.is_within(zone) && (best == nullptr || zone.label_count() > best->label_count())) best = &zone;
  }
  return best;
}

}  // namespace

Updater::Updater(Settings settings, std::uint32_t id_seed)
    : settings_(std::move(settings)), id_state_(id_seed == 0 ? 0x9e3779b9u : id_seed) {
  LANDLORD_ASSERT(validate(settings_).has_value());
}

bool Updater::add(const Binding& binding, TimePoint now) { return enqueue(Operation::kAdd, binding, now); }
bool Updater::remove(const Binding& binding, TimePoint now) {
  return enqueue(Operation::kRemove, binding, now);
}

bool Updater::enqueue(Operation operation, const Binding& binding, TimePoint now) {
  Transaction transaction;
  transaction.operation = operation;
  transaction.binding = binding;
  Completion& result = transaction.result;
  result.operation = operation;
  result.binding = binding;
  bool forward = binding.forward;
  bool reverse = binding.reverse;
  // A name or address the zones do not cover is reported, not sent: the server would answer
  // NOTZONE, and every such lease would cost a round trip.
  if (forward && !binding.fqdn.is_within(settings_.forward_zone)) {
    forward = false;
    result.forward = RecordStatus::kFailed;
    result.cause = Cause::kOutsideZone;
    result.detail = binding.fqdn.to_text() + " is outside " + settings_.forward_zone.to_text();
  } else if (forward) {
    result.forward = RecordStatus::kNotAttempted;
  }
  if (reverse) {
    Name name = reverse_name(binding.address);
    const Name* zone = covering_zone(settings_.reverse_zones, name);
    if (zone == nullptr) {
      reverse = false;
      result.reverse = RecordStatus::kFailed;
      if (result.cause == Cause::kNone) {
        result.cause = Cause::kOutsideZone;
        result.detail = name.to_text() + " is outside every reverse zone";
      }
    } else {
      result.reverse = RecordStatus::kNotAttempted;
      transaction.reverse_zone = *zone;
      transaction.reverse_name = std::move(name);
    }
  }
  if (!forward && !reverse) {
    completions_.push_back(std::move(result));
    return true;
  }
  if (queued_ >= settings_.max_queued) {
    if (forward) result.forward = RecordStatus::kFailed;
    if (reverse) result.reverse = RecordStatus::kFailed;
    result.cause = Cause::kQueueFull;
    result.detail = "more than " + std::to_string(settings_.max_queued) + " updates queued";
    completions_.push_back(std::move(result));
    return false;
  }
  if (settings_.conflict_mode != ConflictMode::kNoCheckWithoutDhcid) {
    transaction.dhcid = dhcid_rdata(binding.identifier, binding.fqdn);
  }
  transaction.ttl_s = ttl_for_lease(settings_.ttl, binding.lease_time);
  transaction.transport = settings_.always_tcp ? Transport::kTcp : Transport::kUdp;
  transaction.step = detail::first_step(operation, forward, reverse);
  transaction.binding.forward = forward;
  transaction.binding.reverse = reverse;
  const std::string key = key_of(binding.fqdn);
  auto& queue = by_name_[key];
  queue.push_back(std::move(transaction));
  ++queued_;
  if (queue.size() == 1) ready_.push_back(key);
  start_ready(now);
  return true;
}

void Updater::start_ready(TimePoint now) {
  while (active_.size() < settings_.max_in_flight && !ready_.empty()) {
    std::string key = std::move(ready_.front());
    ready_.pop_front();
    auto& transaction = by_name_.at(key).front();
    LANDLORD_ASSERT(transaction.phase == Phase::kWaiting);
    active_.push_back(key);
    send_step(transaction, now);
  }
}

std::uint16_t Updater::next_id() {
  // xorshift32: cheap, full period, and an id in use is skipped (at most max_in_flight are).
  while (true) {
    id_state_ ^= id_state_ << 13;
    id_state_ ^= id_state_ >> 17;
    id_state_ ^= id_state_ << 5;
    const auto id = static_cast<std::uint16_t>(id_state_ >> 8);
    if (!sent_.contains(id)) return id;
  }
}

void Updater::send_step(Transaction& transaction, TimePoint now) {
  LANDLORD_ASSERT(transaction.step != Step::kDone);
  const detail::StepContext context{transaction.binding, settings_.forward_zone,
                                    transaction.reverse_name, transaction.reverse_zone,
                                    transaction.dhcid, transaction.ttl_s, settings_.conflict_mode};
  UpdateMessage message = detail::build_step(transaction.step, context);
  message.id = next_id();
  std::vector<std::uint8_t> bytes = encode(message);
  transaction.request_mac.clear();
  if (settings_.key) {
    auto signed_message = tsig_sign(std::move(bytes), *settings_.key, unix_seconds(now), settings_.fudge_s);
    bytes = std::move(signed_message.bytes);
    transaction.request_mac = std::move(signed_message.mac);
  }
  transaction.id = message.id;
  transaction.phase = Phase::kSent;
  transaction.deadline = now + settings_.exchange_timeout;
  ++transaction.attempts;
  ++transaction.result.messages_sent;
  sent_.emplace(message.id, key_of(transaction.binding.fqdn));
  outgoing_.push_back({message.id, transaction.transport, settings_.server, std::move(bytes)});
}

Updater::Transaction* Updater::find_sent(std::uint16_t id) {
  const auto found = sent_.find(id);
  if (found == sent_.end()) return nullptr;
  auto& transaction = by_name_.at(found->second).front();
  LANDLORD_ASSERT(transaction.phase == Phase::kSent && transaction.id == id);
  return &transaction;
}

void Updater::on_response(std::span<const std::uint8_t> bytes, TimePoint now) {
  auto response = parse_response(bytes);
  if (!response) {
    ++ignored_responses_;
    // A message too broken to parse can still carry its id: remember why the wait goes on.
    if (bytes.size() >= 2) {
      if (Transaction* transaction = find_sent(static_cast<std::uint16_t>(bytes[0] << 8 | bytes[1]))) {
        transaction->loss_cause = Cause::kInvalidResponse;
        transaction->loss_detail = "unreadable response: " + response.error();
      }
    }
    return;
  }
  Transaction* transaction = find_sent(response->id);
  if (transaction == nullptr || !response->is_response || response->opcode != kOpcodeUpdate) {
    ++ignored_responses_;
    return;
  }
  if (settings_.key) {
    const TsigResult verdict =
        tsig_verify(bytes, *response, *settings_.key,
                    std::span<const std::uint8_t>(transaction->request_mac), unix_seconds(now));
    Cause cause = Cause::kNone;
    if (verdict == TsigResult::kServerBadKey) cause = Cause::kBadKey;
    if (verdict == TsigResult::kServerBadSig) cause = Cause::kBadSig;
    if (verdict == TsigResult::kServerBadTime) cause = Cause::kBadTime;
    if (cause != Cause::kNone) {
      // The server refused our signature: no retry will change that.
      sent_.erase(transaction->id);
      Completion& result = transaction->result;
      (detail::is_forward(transaction->step) ? result.forward : result.reverse) = RecordStatus::kFailed;
      result.cause = cause;
      result.detail = std::string("TSIG ") + tsig_result_name(verdict) + " from the server (" +
                      rcode_name(response->rcode) + ") at step " + step_text(transaction->step);
      finish(*transaction);
      start_ready(now);
      return;
    }
    if (verdict != TsigResult::kOk) {
      // Not authentic: ignored, as RFC 8945 §5.3.2 asks; the timeout reports why.
      ++ignored_responses_;
      transaction->loss_cause = Cause::kInvalidResponse;
      transaction->loss_detail = std::string("response ") + tsig_result_name(verdict) + " (" +
                                 rcode_name(response->rcode) + ")";
      return;
    }
  }
  sent_.erase(transaction->id);
  answer(*transaction, *response, now);
  start_ready(now);
}

void Updater::answer(Transaction& transaction, const Response& response, TimePoint now) {
  if (response.truncated && transaction.transport == Transport::kUdp) {
    // RFC 1035 §4.2.1 / RFC 2136 §6: the whole answer did not fit; ask again over TCP.
    transaction.transport = Transport::kTcp;
    send_step(transaction, now);
    return;
  }
  const detail::Judgement judgement =
      detail::judge(transaction.operation, transaction.step, response.rcode,
                    settings_.conflict_mode, transaction.binding.reverse);
  const std::string where = std::string(step_text(transaction.step)) + " in " +
                            (detail::is_forward(transaction.step) ? settings_.forward_zone.to_text()
                                                                  : transaction.reverse_zone.to_text());
  Completion& result = transaction.result;
  RecordStatus& side = detail::is_forward(transaction.step) ? result.forward : result.reverse;
  switch (judgement.kind) {
    case detail::Judgement::kRetry:
      lost(transaction, judgement.cause, std::string(rcode_name(response.rcode)) + " at " + where, now);
      return;
    case detail::Judgement::kFail:
      side = RecordStatus::kFailed;
      result.cause = judgement.cause;
      result.detail = std::string(rcode_name(response.rcode)) + " at " + where;
      finish(transaction);
      return;
    case detail::Judgement::kAdvance:
      if (judgement.side_status) {
        side = *judgement.side_status;
        if (side == RecordStatus::kConflict && result.detail.empty()) {
          result.detail = std::string(rcode_name(response.rcode)) + " at " + where +
                          ": the name carries no DHCID of this client";
        }
      }
      advance(transaction, judgement.next, now);
      return;
  }
}

void Updater::advance(Transaction& transaction, Step next, TimePoint now) {
  transaction.step = next;
  transaction.attempts = 0;
  transaction.transport = settings_.always_tcp ? Transport::kTcp : Transport::kUdp;
  transaction.loss_cause = Cause::kTimeout;
  transaction.loss_detail.clear();
  if (next == Step::kDone) {
    finish(transaction);
  } else {
    send_step(transaction, now);
  }
}

void Updater::lost(Transaction& transaction, Cause cause, std::string detail, TimePoint now) {
  if (transaction.attempts >= settings_.max_attempts) {
    Completion& result = transaction.result;
    (detail::is_forward(transaction.step) ? result.forward : result.reverse) = RecordStatus::kFailed;
    result.cause = cause;
    result.detail = std::move(detail) + " after " + std::to_string(transaction.attempts) + " attempts";
    finish(transaction);
    return;
  }
  // Back-off: first_retry, doubled per attempt, capped at max_retry.
  Duration wait = settings_.first_retry;
  for (unsigned i = 1; i < transaction.attempts && wait < settings_.max_retry; ++i) wait *= 2;
  transaction.phase = Phase::kBackoff;
  transaction.deadline = now + std::min(wait, settings_.max_retry);
}

void Updater::on_send_failed(std::uint16_t id, TimePoint now) {
  Transaction* transaction = find_sent(id);
  if (transaction == nullptr) return;
  sent_.erase(id);
  lost(*transaction, Cause::kTimeout, "the message could not be sent or had no answer", now);
  start_ready(now);
}

void Updater::tick(TimePoint now) {
  // Collect first: acting on one may finish it and change active_.
  std::vector<std::string> due;
  for (const auto& key : active_) {
    if (by_name_.at(key).front().deadline <= now) due.push_back(key);
  }
  for (const auto& key : due) {
    auto& transaction = by_name_.at(key).front();
    if (transaction.phase == Phase::kSent) {
      sent_.erase(transaction.id);
      const std::string where = std::string(step_text(transaction.step));
      std::string detail = transaction.loss_detail.empty() ? "no answer at " + where
                                                           : transaction.loss_detail + " at " + where;
      lost(transaction, transaction.loss_cause, std::move(detail), now);
    } else if (transaction.phase == Phase::kBackoff) {
      send_step(transaction, now);
    }
  }
  start_ready(now);
}

void Updater::finish(Transaction& transaction) {
  const std::string key = key_of(transaction.binding.fqdn);
  completions_.push_back(std::move(transaction.result));
  auto active = std::find(active_.begin(), active_.end(), key);
  LANDLORD_ASSERT(active != active_.end());
  active_.erase(active);
  auto& queue = by_name_.at(key);
  queue.pop_front();  // `transaction` is gone from here on
  --queued_;
  if (queue.empty()) {
    by_name_.erase(key);
  } else {
    ready_.push_back(key);
  }
}

std::optional<TimePoint> Updater::next_deadline() const {
  std::optional<TimePoint> earliest;
  for (const auto& key : active_) {
    const TimePoint deadline = by_name_.at(key).front().deadline;
    if (!earliest || deadline < *earliest) earliest = deadline;
  }
  return earliest;
}

std::vector<Outgoing> Updater::take_outgoing() { return std::exchange(outgoing_, {}); }
std::vector<Completion> Updater::take_completions() { return std::exchange(completions_, {}); }

}  // namespace landlord::ddns
