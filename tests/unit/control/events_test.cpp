// The event hub: every reader gets each event once, in order; a slow one is dropped alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "landlord/control/events.hpp"

namespace landlord::control {
namespace {

LeaseEvent event(engine::EventKind kind, std::uint8_t last_octet) {
  LeaseEvent event;
  event.kind = kind;
  event.reason = "renewed";
  event.lease.address = Ipv4(198, 18, 0, last_octet);
  event.lease.hardware = *HardwareAddress::parse("02:00:00:00:00:01");
  event.lease.client = ClientKey::from({}, event.lease.hardware);
  event.lease.state = lease::LeaseState::Bound;
  event.lease.subnet_id = 1;
  event.lease.granted_at = time_from_unix_ms(1'700'000'000'000);
  event.lease.lease_time = std::chrono::seconds{20};
  event.lease.renew_time = std::chrono::seconds{10};
  event.lease.rebind_time = std::chrono::seconds{17};
  event.at = time_from_unix_ms(1'700'000'012'500);
  return event;
}

TEST(Events, AnEventIsOneLineOfJsonWithTheLease) {
  const auto line = nlohmann::json::parse(format_event(event(engine::EventKind::Renew, 7)));
  EXPECT_EQ(line["event"], "renew");
  EXPECT_EQ(line["ip-address"], "198.18.0.7");
  EXPECT_EQ(line["hw-address"], "02:00:00:00:00:01");
  EXPECT_EQ(line["phase"], "past-t1");
  EXPECT_EQ(line["time"], 1'700'000'012.5);
  EXPECT_EQ(format_event(event(engine::EventKind::Renew, 7)).find('\n'), std::string::npos);
}

// A client's hostname (option 12) is whatever bytes it sent: one that is not UTF-8 is shown with
// U+FFFD for the bad bytes, never thrown on (that would end the daemon's event loop).
TEST(Events, AHostnameThatIsNotUtf8IsReplacedNotThrownOn) {
  auto bad = event(engine::EventKind::Grant, 8);
  bad.lease.hostname = "pc\xff\xc3";
  std::string text;
  ASSERT_NO_THROW(text = format_event(bad));
  EXPECT_EQ(nlohmann::json::parse(text)["hostname"], "pc\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(Events, EveryReaderGetsEveryEventInOrder) {
  EventHub hub{1 << 20};
  int wakes = 0;
  const auto first = hub.subscribe([&] { ++wakes; });
  const auto second = hub.subscribe([&] { ++wakes; });
  hub.publish(event(engine::EventKind::Grant, 1));
  hub.publish(event(engine::EventKind::Rebind, 2));
  EXPECT_EQ(wakes, 4);
  for (const auto id : {first, second}) {
    const auto taken = hub.take(id);
    EXPECT_FALSE(taken.dropped);
    const auto newline = taken.lines.find('\n');
    EXPECT_EQ(nlohmann::json::parse(taken.lines.substr(0, newline))["event"], "grant");
    EXPECT_EQ(nlohmann::json::parse(taken.lines.substr(newline + 1))["event"], "rebind");
    EXPECT_TRUE(hub.take(id).lines.empty());
  }
}

TEST(Events, ASlowReaderIsDroppedAndTheOthersGoOn) {
  const std::size_t line_size = format_event(event(engine::EventKind::Grant, 1)).size() + 1;
  EventHub hub{line_size * 3};
  const auto slow = hub.subscribe({});
  const auto fast = hub.subscribe({});
  for (int i = 0; i < 10; ++i) {
    hub.publish(event(engine::EventKind::Grant, static_cast<std::uint8_t>(i)));
    EXPECT_FALSE(hub.take(fast).dropped);
  }
  EXPECT_TRUE(hub.dropped(slow));
  EXPECT_FALSE(hub.dropped(fast));
  const auto taken = hub.take(slow);
  EXPECT_TRUE(taken.dropped);
  EXPECT_TRUE(taken.lines.empty());
  EXPECT_EQ(hub.dropped_subscribers(), 1u);
  hub.unsubscribe(slow);
  EXPECT_EQ(hub.subscribers(), 1u);
}

}  // namespace
}  // namespace landlord::control
