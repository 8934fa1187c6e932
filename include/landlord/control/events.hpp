#pragma once
// Live lease events (GET /events): each event is formatted once as a line of JSON and queued
// for every subscriber. Sans I/O: the transport drains a subscriber's queue when woken. A
// subscriber whose queue passes the limit is marked dropped and gets nothing more: a slow
// reader costs the server one bounded string, never a wait.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "landlord/base/time.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::control {

struct LeaseEvent {
  engine::EventKind kind = engine::EventKind::Grant;
  std::string_view reason;  // static text from the engine
  lease::Lease lease;       // the record as committed
  TimePoint at;
};

// The event's name on the stream: grant, renew, rebind, release, decline, expire, admin.
std::string_view event_name(const LeaseEvent& event);
// One line of JSON, no newline.
std::string format_event(const LeaseEvent& event);

class EventHub {
 public:
  using SubscriberId = std::uint64_t;
  explicit EventHub(std::size_t queue_limit_bytes) : queue_limit_bytes_(queue_limit_bytes) {}

  // `wake` runs inside publish() when lines were queued; it must not call back into the hub
  // (the transport posts its write to the event loop).
  SubscriberId subscribe(std::function<void()> wake);
  void unsubscribe(SubscriberId id);

  struct Taken {
    std::string lines;     // newline-terminated JSON lines, oldest first
    bool dropped = false;  // the queue overflowed: close the stream
  };
  Taken take(SubscriberId id);

  // Whether the reader fell too far behind: its stream should end now, even mid-write.
  bool dropped(SubscriberId id) const;

  void publish(const LeaseEvent& event);
  bool has_subscribers() const { return !subscribers_.empty(); }
  std::size_t subscribers() const { return subscribers_.size(); }
  std::uint64_t dropped_subscribers() const { return dropped_; }

 private:
  struct Subscriber {
    std::function<void()> wake;
    std::string queued;
    bool dropped = false;
  };
  std::size_t queue_limit_bytes_;
  SubscriberId next_id_ = 1;
  std::unordered_map<SubscriberId, Subscriber> subscribers_;
  std::uint64_t dropped_ = 0;
};

}  // namespace landlord::control
