#include "landlord/durability/machine.hpp"

#include <algorithm>
#include <iterator>

#include "landlord/base/assert.hpp"
#include "landlord/engine/lease_times.hpp"
#include "landlord/wire/message.hpp"
#include "landlord/wire/options.hpp"

namespace landlord::durability {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Send: return "send";
    case Verdict::StaleToken: return "stale token";
    case Verdict::Unavailable: return "store unavailable";
    case Verdict::DurableRemainder: return "durable remainder";
  }
  return "unknown";
}

Machine::Machine(Options options)
    : options_(options), retry_delay_(options.retry_first), open_(&batches_.emplace_back()) {
  LANDLORD_ASSERT(options_.retry_first > Duration{0} && options_.retry_first <= options_.retry_max);
  LANDLORD_ASSERT(options_.retry_batch_max > 0);
}

bool Machine::propose(engine::Outcome& outcome, const Origin& origin) {
  if (outcome.mutations.empty()) return false;  // an OFFER, a NAK, an INFORM: nothing to wait for
  take(outcome, origin, false);
  return true;
}

void Machine::propose_reclaimed(std::vector<lease::Lease> records) {
  if (records.empty()) return;
  const Ipv4 address = records.front().address;
  engine::Outcome outcome{std::nullopt, std::move(records),
                          {engine::EventKind::Expire, address, "reclaimed"}};
  take(outcome, Origin{}, true);
}

void Machine::take(engine::Outcome& outcome, const Origin& origin, bool reclaimed) {
  const std::uint64_t sequence = next_sequence_++;
  const std::uint32_t slot = hold(outcome, origin, reclaimed);
  if (!healthy_) {
    // The store is failing: no ACK now; the records wait for the retry, so the store converges
    // on what the engine holds. A renewal of a durable lease is still answered, with no more
    // than the store already holds for its client (an ACK promising nothing new).
    Held& held = slots_[slot];
    const std::optional<TimePoint> durable =
        reclaimed || outcome.mutations.size() != 1 ? std::nullopt
                                                   : durable_end(outcome.mutations.front(), held);
    keep_unacknowledged(sequence, outcome.mutations, held, durable);
    InFlight& kept = spare_batch();
    answered_.push_back(&kept);
    kept.records = std::move(outcome.mutations);
    if (durable && cut_to_durable(held, kept.records.front(), *durable)) {
      ++(held.reboot_of_held ? counters_.reboots_answered_from_durable
                             : counters_.answered_from_durable);
      release(slot, Verdict::DurableRemainder, kept.records);
      return;
    }
    if (!reclaimed) ++counters_.replies_dropped_store_down;
    release(slot, Verdict::Unavailable, kept.records);
    return;
  }
  const auto first = static_cast<std::uint32_t>(open_->records.size());
  const auto count = static_cast<std::uint32_t>(outcome.mutations.size());
  if (open_->records.empty()) {
    // The first proposal of a batch (every one at a light load) hands its vector over whole;
    // the outcome gets the spare, empty one. Later ones are moved in record by record, into
    // room for as many as the largest batch yet held (one reallocation, not a doubling series).
    std::swap(open_->records, outcome.mutations);
  } else {
    if (open_->records.capacity() < first + count) {
      open_->records.reserve(std::max<std::size_t>(largest_batch_, first + count));
    }
    std::move(outcome.mutations.begin(), outcome.mutations.end(), std::back_inserter(open_->records));
  }
  largest_batch_ = std::max<std::size_t>(largest_batch_, open_->records.size());
  open_->parts.push_back(Part{slot, first, count, sequence});
}

void Machine::ready(TimePoint now, Ready& out) {
  // Advance: what the caller acted on since the last call is recycled.
  for (const std::uint32_t slot : releasing_) {
    slots_[slot].reply.reset();
    free_slots_.push_back(slot);
  }
  releasing_.clear();
  spare_.insert(spare_.end(), answered_.begin(), answered_.end());
  answered_.clear();
  out.released.clear();
  out.batches.clear();
  out.notices.clear();
  std::swap(out.released, released_);
  std::swap(out.notices, notices_);
  if (!open_->records.empty()) {
    open_->id = next_batch_++;
    in_flight_.push_back(open_);
    out.batches.push_back(Batch{open_->id, open_->records, false});
    ++counters_.batches;
    open_ = &spare_batch();
  }
  if (retry_at_ && *retry_at_ <= now && !retry_in_flight_ && !backlog_.empty()) {
    InFlight& retry = spare_batch();
    retry.id = next_batch_++;
    retry.retry = true;
    for (const auto& [address, chain] : backlog_) {
      // Whole chains, at least one: the rest waits for the next retry, soon after this one.
      if (!retry.records.empty() && retry.records.size() + chain.size() > options_.retry_batch_max) {
        break;
      }
      for (const Waiting& waiting : chain) {  // in order: the store compares each with the last
        retry.records.push_back(waiting.record);
        retry.sequences.push_back(waiting.sequence);
        retry.granted.push_back(waiting.granted);
      }
    }
    in_flight_.push_back(&retry);
    out.batches.push_back(Batch{retry.id, retry.records, true});
    retry_in_flight_ = true;
    retry_at_.reset();
    ++counters_.batches;
  }
}

void Machine::committed(std::uint64_t id, CommitResult result, engine::Engine& engine,
                        TimePoint now) {
  LANDLORD_ASSERT(!in_flight_.empty() && in_flight_.front()->id == id);  // answered in order
  InFlight& batch = *in_flight_.front();
  in_flight_.pop_front();
  // The released spans point into its records: recycled at the next ready(), not before.
  answered_.push_back(&batch);
  // A store answers for exactly the records it was given, one result each, in order.
  LANDLORD_ASSERT(!result || result->size() == batch.records.size());
  if (batch.retry) {
    retry_answered(batch, result, engine, now);
    return;
  }
  if (!result) {
    drop_parts(batch);
    failed(result.error(), now);
  } else {
    ++counters_.commits;
    for (const Part& part : batch.parts) {
      const auto records = std::span(batch.records).subspan(part.first, part.count);
      if (behind_backlog(batch, part, *result)) {
        // Proposed before the store failed, written after: its address's older records come
        // first. Not acknowledged; it waits behind them, and the engine keeps it.
        keep_unacknowledged(part.sequence, records, slots_[part.slot]);
        if (!slots_[part.slot].reclaimed) ++counters_.replies_dropped_store_down;
        release(part.slot, Verdict::Unavailable, records);
        continue;
      }
      bool stale = false;
      for (std::uint32_t i = part.first; i < part.first + part.count; ++i) {
        stale |= !written(batch.records[i], (*result)[i], engine, now);
        forget_superseded(part.sequence, batch.records[i]);
      }
      release(part.slot, stale ? Verdict::StaleToken : Verdict::Send, records);
    }
    schedule_retry(now);
    maybe_recovered(batch.records.size());
  }
}

void Machine::not_taken(std::uint64_t id, TimePoint now) {
  auto batch = std::find_if(in_flight_.begin(), in_flight_.end(),
                            [id](const InFlight* entry) { return entry->id == id; });
  LANDLORD_ASSERT(batch != in_flight_.end());
  ++counters_.not_taken;
  if ((*batch)->retry) {
    retry_in_flight_ = false;
  } else {
    drop_parts(**batch, true);  // overload, not a failing store: the store stays healthy
  }
  answered_.push_back(*batch);
  in_flight_.erase(batch);
  schedule_retry(now);
}

void Machine::observed(Ipv4 address) {
  const auto chain = backlog_.find(address);
  if (chain == backlog_.end()) return;
  for (Waiting& waiting : chain->second) waiting.durable_until.reset();
}

std::optional<TimePoint> Machine::next_retry() const {
  if (retry_in_flight_ || backlog_.empty()) return std::nullopt;
  return retry_at_;
}

void Machine::retry_now() {
  if (!retry_in_flight_ && !backlog_.empty()) retry_at_ = TimePoint{};
}

std::uint32_t Machine::hold(engine::Outcome& outcome, const Origin& origin, bool reclaimed) {
  if (free_slots_.empty()) {
    slots_.push_back(Held{std::move(outcome.reply), outcome.event, origin, reclaimed,
                          outcome.unacknowledged_until, outcome.held_until,
                          outcome.reboot_of_held});
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  const std::uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  Held& held = slots_[slot];
  held.reply = std::move(outcome.reply);
  held.event = outcome.event;
  held.origin = origin;
  held.reclaimed = reclaimed;
  held.unacknowledged_until = outcome.unacknowledged_until;
  held.held_until = outcome.held_until;
  held.reboot_of_held = outcome.reboot_of_held;
  return slot;
}

void Machine::release(std::uint32_t slot, Verdict verdict, std::span<const lease::Lease> records,
                      bool not_taken) {
  const Held& held = slots_[slot];
  released_.push_back(Release{verdict, held.reply ? &*held.reply : nullptr, held.event,
                              held.origin, records, held.reclaimed, held.reboot_of_held,
                              not_taken});
  releasing_.push_back(slot);
}

std::size_t Machine::backlog_size() const {
  std::size_t records = 0;
  for (const auto& [address, chain] : backlog_) records += chain.size();
  return records;
}

Machine::InFlight& Machine::spare_batch() {
  if (spare_.empty()) return batches_.emplace_back();
  InFlight& batch = *spare_.back();
  spare_.pop_back();
  batch.id = 0;
  batch.records.clear();
  batch.parts.clear();
  batch.sequences.clear();
  batch.granted.clear();
  batch.retry = false;
  return batch;
}

void Machine::keep_for_retry(std::uint64_t sequence, const lease::Lease& record) {
  wait(Waiting{sequence, record, {}, {}});
}

std::optional<TimePoint> Machine::durable_end(const lease::Lease& record, const Held& held) const {
  if (record.state != lease::LeaseState::Bound || !held.held_until) return std::nullopt;
  // A record on its way may be written or refused: the store's lease is not known until then.
  const auto on_its_way = [&](const InFlight& batch) {
    return !batch.retry && std::any_of(batch.records.begin(), batch.records.end(),
                                       [&](const lease::Lease& other) {
                                         return other.address == record.address;
                                       });
  };
  if (on_its_way(*open_) || std::any_of(in_flight_.begin(), in_flight_.end(),
                                        [&](const InFlight* batch) { return on_its_way(*batch); })) {
    return std::nullopt;
  }
  const auto chain = backlog_.find(record.address);
  // Nothing waits for the address: every record the engine made for it was answered, so its
  // lease is the one the store holds (a refused one the engine gave up, Engine::refused).
  if (chain == backlog_.end()) return held.held_until;
  // The retry (in flight or not) writes this client's waiting record or nothing: either way
  // the store holds its lease at least until the entry's durable_until.
  const std::vector<Waiting>& waiting = chain->second;
  if (waiting.size() != 1 || waiting.front().record.client != record.client) return std::nullopt;
  return waiting.front().durable_until;
}

bool Machine::cut_to_durable(Held& held, const lease::Lease& record, TimePoint durable_until) const {
  const engine::EventKind kind = held.event.kind;
  // A RENEWING client chose this server; a REBINDING one, or one in INIT-REBOOT, broadcasts to
  // every server: on a shared store it is left to a peer that can extend its lease for real.
  // A reboot is answered only when the engine found the client's own bound lease on its link.
  const bool extension =
      kind == engine::EventKind::Renew ||
      (kind == engine::EventKind::Rebind && !options_.shared_store) ||
      (kind == engine::EventKind::Grant && held.reboot_of_held && !options_.shared_store);
  if (!extension || !held.reply || record.lease_time <= Duration{0}) return false;
  wire::Options& options = held.reply->message.options;
  if (options.get_u8(wire::option::kMessageType) != static_cast<std::uint8_t>(wire::MessageType::Ack)) {
    return false;
  }
  // Counted from the engine's `now`: the client counts from when it sent the request, earlier,
  // so its lease ends before the durable one does.
  const TimePoint end = std::min(durable_until, record.expires_at());
  // Less than a second, or too few seconds to keep T1 < T2 < lease: the client is left to its
  // lease's end, as it would be without the answer.
  const auto cut = engine::cut_lease_times(end - record.granted_at, record.lease_time, record.renew_time,
                                           record.rebind_time);
  if (!cut) return false;
  engine::set_lease_times(options, *cut);
  return true;
}

void Machine::wait(Waiting waiting) {
  std::vector<Waiting>& chain = backlog_[waiting.record.address];
  const auto later = std::find_if(chain.begin(), chain.end(), [&](const Waiting& entry) {
    return entry.sequence > waiting.sequence;
  });
  if (later != chain.end() && later->record.client == waiting.record.client) return;  // superseded
  if (later != chain.begin() && std::prev(later)->record.client == waiting.record.client) {
    *std::prev(later) = std::move(waiting);  // the same holder's newer record replaces its older
  } else {
    chain.insert(later, std::move(waiting));
  }
  for (std::size_t i = 1; i < chain.size(); ++i) {
    LANDLORD_ASSERT(chain[i - 1].sequence < chain[i].sequence &&
                    chain[i - 1].record.client != chain[i].record.client);
  }
}

bool Machine::behind_backlog(const InFlight& batch, const Part& part,
                             const std::vector<store::WriteResult>& results) const {
  for (std::uint32_t i = part.first; i < part.first + part.count; ++i) {
    if (results[i] != store::WriteResult::StaleToken) continue;
    const auto chain = backlog_.find(batch.records[i].address);
    if (chain != backlog_.end() && chain->second.front().sequence < part.sequence) return true;
  }
  return false;
}

void Machine::keep_unacknowledged(std::uint64_t sequence, std::span<const lease::Lease> records,
                                  const Held& held, std::optional<TimePoint> durable_until) {
  for (const lease::Lease& record : records) {
    if (!held.unacknowledged_until || record.state != lease::LeaseState::Bound) {
      keep_for_retry(sequence, record);
      continue;
    }
    // Written or not, this record leaves the client's lease in the store no shorter than the
    // lesser of the two (a renewal never shortens it, but a client may ask for less).
    const auto still_durable = [&](const lease::Lease& kept) -> std::optional<TimePoint> {
      if (!durable_until) return std::nullopt;
      return std::min(*durable_until, kept.expires_at());
    };
    TimePoint until = *held.unacknowledged_until;
    if (held.held_until) {
      // The lease the client held may itself be a grant nobody was told of (its client asked
      // again during the outage): then only that grant's shorter version was ever its own.
      TimePoint floor = *held.held_until;
      const auto chain = backlog_.find(record.address);
      if (chain != backlog_.end()) {
        const Waiting& waiting = chain->second.back();
        if (waiting.granted && waiting.granted->client == record.client &&
            waiting.granted->expires_at() == floor) {
          floor = waiting.record.expires_at();
        }
      }
      until = std::max(until, floor);
    }
    if (record.expires_at() <= until) {
      wait(Waiting{sequence, record, {}, still_durable(record)});
      continue;
    }
    // Nobody was told of this lease: it ends when the offer would have, unless asked again.
    lease::Lease shorter = record;
    shorter.lease_time = std::max(Duration{0}, until - record.granted_at);
    shorter.renew_time = std::min(shorter.renew_time, shorter.lease_time);
    shorter.rebind_time = std::min(shorter.rebind_time, shorter.lease_time);
    const std::optional<TimePoint> durable = still_durable(shorter);
    wait(Waiting{sequence, shorter, record, durable});
  }
}

void Machine::drop_parts(InFlight& batch, bool not_taken) {
  for (const Part& part : batch.parts) {
    keep_unacknowledged(part.sequence, std::span(batch.records).subspan(part.first, part.count),
                        slots_[part.slot]);
    if (!slots_[part.slot].reclaimed) ++counters_.replies_dropped_store_down;
    release(part.slot, Verdict::Unavailable,
            std::span(batch.records).subspan(part.first, part.count), not_taken);
  }
}

void Machine::failed(const store::StoreError& error, TimePoint now) {
  ++counters_.store_failures;
  ++counters_.store_failures_by_kind[static_cast<std::size_t>(error.kind)];
  healthy_ = false;
  notices_.push_back(Notice{NoticeKind::StoreFailed, error.message, backlog_size()});
  schedule_retry(now);
}

void Machine::retry_answered(InFlight& batch, const CommitResult& result, engine::Engine& engine,
                             TimePoint now) {
  retry_in_flight_ = false;
  if (!result) {
    retry_delay_ = std::min(retry_delay_ * 2, options_.retry_max);
    failed(result.error(), now);
    return;
  }
  ++counters_.commits;
  for (std::size_t i = 0; i < batch.records.size(); ++i) {
    written(batch.records[i], (*result)[i], engine, now, batch.granted[i]);
    // Entries that a newer proposal replaced while this retry was out stay for the next one.
    auto entry = backlog_.find(batch.records[i].address);
    if (entry == backlog_.end()) continue;
    std::erase_if(entry->second,
                  [&](const Waiting& waiting) { return waiting.sequence == batch.sequences[i]; });
    if (entry->second.empty()) backlog_.erase(entry);
  }
  retry_delay_ = options_.retry_first;
  maybe_recovered(batch.records.size());
  // The store took a retry: what a capped retry left goes out at once.
  if (!backlog_.empty()) retry_at_ = now;
}

bool Machine::written(const lease::Lease& record, store::WriteResult result,
                      engine::Engine& engine, TimePoint now,
                      const std::optional<lease::Lease>& granted) {
  if (result == store::WriteResult::Written) {
    ++counters_.records_written;
    // The shorter lease is durable: the engine follows, so the address frees when it ends.
    if (granted && engine.unacknowledged(*granted, record)) ++counters_.grants_shortened;
    return true;
  }
  ++counters_.stale_refusals;
  // The engine knows the grant as it made it, not as the backlog shortened it.
  if (engine.refused(granted ? *granted : record, now)) ++counters_.engine_corrections;
  return false;
}

void Machine::forget_superseded(std::uint64_t sequence, const lease::Lease& record) {
  auto chain = backlog_.find(record.address);
  if (chain == backlog_.end()) return;
  std::erase_if(chain->second, [&](const Waiting& waiting) { return waiting.sequence < sequence; });
  if (chain->second.empty()) backlog_.erase(chain);
}

void Machine::schedule_retry(TimePoint now) {
  if (retry_in_flight_ || retry_at_ || backlog_.empty()) return;
  retry_at_ = now + retry_delay_;
}

void Machine::maybe_recovered(std::size_t records) {
  if (healthy_ || !backlog_.empty()) return;
  healthy_ = true;
  retry_delay_ = options_.retry_first;
  retry_at_.reset();
  notices_.push_back(Notice{NoticeKind::StoreRecovered, {}, records});
}

}  // namespace landlord::durability
