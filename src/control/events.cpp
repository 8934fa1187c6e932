#include "landlord/control/events.hpp"

#include <nlohmann/json.hpp>

#include "lease_json.hpp"

namespace landlord::control {

std::string_view event_name(const LeaseEvent& event) {
  if (event.kind == engine::EventKind::Expire && event.lease.client.empty()) return "decline-end";
  return engine::to_string(event.kind);
}

std::string format_event(const LeaseEvent& event) {
  nlohmann::json line = lease_to_json(event.lease, event.at);
  line["event"] = event_name(event);
  line["reason"] = event.reason;
  line["time"] = static_cast<double>(unix_ms(event.at)) / 1000.0;
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // a hostname need not be UTF-8
}

EventHub::SubscriberId EventHub::subscribe(std::function<void()> wake) {
  const SubscriberId id = next_id_++;
  subscribers_.emplace(id, Subscriber{std::move(wake), {}, false});
  return id;
}

void EventHub::unsubscribe(SubscriberId id) { subscribers_.erase(id); }

EventHub::Taken EventHub::take(SubscriberId id) {
  const auto found = subscribers_.find(id);
  if (found == subscribers_.end()) return {{}, true};
  Taken taken{std::move(found->second.queued), found->second.dropped};
  found->second.queued.clear();
  return taken;
}

bool EventHub::dropped(SubscriberId id) const {
  const auto found = subscribers_.find(id);
  return found == subscribers_.end() || found->second.dropped;
}

void EventHub::publish(const LeaseEvent& event) {
  if (subscribers_.empty()) return;
  const std::string line = format_event(event) + '\n';
  for (auto& [id, subscriber] : subscribers_) {
    if (subscriber.dropped) continue;
    if (subscriber.queued.size() + line.size() > queue_limit_bytes_) {
      subscriber.dropped = true;
      subscriber.queued.clear();
      ++dropped_;
    } else {
      subscriber.queued += line;
    }
    // Woken on every publish; the transport ignores a wake while a write is in flight.
    if (subscriber.wake) subscriber.wake();
  }
}

}  // namespace landlord::control
