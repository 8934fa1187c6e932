#pragma once
// A Daemon for the control tests: a real Engine over a config from YAML, a settable clock and a
// "store" that makes records durable when the test says so (or fails, when it is down).
#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "landlord/config/loader.hpp"
#include "landlord/control/commands.hpp"
#include "landlord/control/daemon.hpp"

namespace landlord::control::testing {

inline config::Config load_config(const std::string& yaml) {
  auto loaded = config::load_string(yaml, "test.yaml");
  if (!loaded) {
    ADD_FAILURE() << config::format_errors(loaded.error());
    return {};
  }
  return std::move(*loaded);
}

// Subnet 1 198.18.0.0/24, pool .100-.199 (lease 1h); subnet 2 198.18.2.0/24, pool .10-.19.
inline const char* kTwoSubnets = R"(store: {type: memory}
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199]
    reservations: [{mac: "02:00:00:00:00:10", address: 198.18.0.10}]
  - subnet: 198.18.2.0/24
    pools: [198.18.2.10-198.18.2.19]
)";

class FakeDaemon final : public Daemon {
 public:
  explicit FakeDaemon(const std::string& yaml = kTwoSubnets)
      : config_(load_config(yaml)), engine_(config_) {}

  const config::Config& config() const override { return config_; }
  const std::string& config_path() const override { return path_; }
  engine::Engine& engine() override { return engine_; }
  TimePoint now() const override { return now_; }
  DaemonCounters counters() const override {
    DaemonCounters counters;
    counters.store_healthy = store_up;
    counters.packets_received = 42;
    counters.no_route = 3;
    counters.receive_queue_overflow = 5;
    counters.store_failures_by_reason = {{"io", 0}, {"full", 2}, {"read-only", 7}};
    counters.answered_from_durable = 4;
    return counters;
  }
  TimePoint started_at() const override { return time_from_unix_ms(1'700'000'000'000); }
  TimePoint reloaded_at() const override { return started_at(); }

  void commit(engine::Outcome change, std::function<void(Expected<void, std::string>)> done) override {
    if (!store_up) return done(unexpected(std::string{"the lease store is not accepting writes"}));
    for (auto& record : change.mutations) durable.push_back(record);
    events.push_back(change.event);
    done({});
  }
  Expected<void, std::string> reload() override {
    ++reloads;
    return {};
  }

  // The answer to one request (commands answer at once here: the fake store is synchronous).
  nlohmann::json ask(const std::string& body) {
    nlohmann::json answer;
    bool answered = false;
    commands_.handle_body(body, [&](nlohmann::json response) {
      answer = std::move(response);
      answered = true;
    });
    EXPECT_TRUE(answered) << body;
    return answer;
  }

  TimePoint now_ = time_from_unix_ms(1'700'000'100'000);
  bool store_up = true;
  std::vector<lease::Lease> durable;
  std::vector<engine::Event> events;
  int reloads = 0;

 private:
  std::string path_ = "test.yaml";
  config::Config config_;
  engine::Engine engine_;
  Commands commands_{*this};
};

}  // namespace landlord::control::testing
