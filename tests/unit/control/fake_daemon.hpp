#pragma once
// A Daemon for the control tests: a real Engine over a config from YAML, a settable clock and a
// "store" that makes records durable when the test says so (or fails, when it is down).
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

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
    if (counters_given) return *counters_given;
    DaemonCounters counters;
    counters.store_healthy = store_up;
    counters.packets_received = 42;
    counters.no_route = 3;
    counters.receive_queue_overflow = 5;
    counters.store_failures_by_reason = {{"io", 0}, {"full", 2}, {"read-only", 7}};
    counters.answered_from_durable = 4;
    counters.reboots_answered_from_durable = 6;
    counters.checkpoint_failures_by_reason = {{"io", 1}, {"full", 0}, {"read-only", 9}};
    counters.store_reopened = 2;
    counters.commit_queue_full = 8;
    return counters;
  }
  std::optional<DaemonCounters> counters_given;  // instead of the few counters above
  TimePoint started_at() const override { return time_from_unix_ms(1'700'000'000'000); }
  TimePoint reloaded_at() const override { return started_at(); }

  // Durable at once, or, with hold_commits, when release_commits() says so.
  void commit(engine::Outcome change, std::function<void(Expected<void, std::string>)> done) override {
    commit_sizes.push_back(change.mutations.size());
    if (!store_up) return done(unexpected(std::string{"the lease store is not accepting writes"}));
    if (hold_commits) {
      held.emplace_back(std::move(change), std::move(done));
      return;
    }
    for (auto& record : change.mutations) durable.push_back(record);
    events.push_back(change.event);
    done({});
  }
  void release_commits() {
    auto releasing = std::move(held);
    held.clear();
    for (auto& [change, done] : releasing) {
      for (auto& record : change.mutations) durable.push_back(record);
      events.push_back(change.event);
      done({});
    }
  }
  Expected<void, std::string> may_end_leases() const override {
    if (clock_disagrees.empty()) return {};
    return unexpected(clock_disagrees);
  }
  Expected<void, std::string> reload() override {
    ++reloads;
    return {};
  }
  // With `loop` set (a test running the service), as the daemon does; otherwise the steps wait
  // in `deferred` for run_deferred() (ask() runs them), so a test can interleave its own work.
  void defer(std::function<void()> step) override {
    if (loop != nullptr) return boost::asio::post(*loop, std::move(step));
    deferred.push_back(std::move(step));
  }
  // The work at once (the fake has no worker thread), its `done` as a deferred step.
  void offload(std::function<void()> work, std::function<void()> done) override {
    ++offloaded;
    work();
    defer(std::move(done));
  }
  // Runs deferred steps (those they add too) until none is left or `until` holds; how many ran.
  std::size_t run_deferred(const std::function<bool()>& until = [] { return false; }) {
    std::size_t ran = 0;
    while (!deferred.empty() && !until()) {
      auto step = std::move(deferred.front());
      deferred.pop_front();
      step();
      ++ran;
    }
    return ran;
  }

  // The answer to one request, once every step it deferred has run (the fake store is synchronous).
  nlohmann::json ask(const std::string& body) {
    std::optional<Answer> answer;
    commands_.handle_body(body, [&](Answer response) { answer = std::move(response); });
    run_deferred([&] { return answer.has_value(); });
    EXPECT_TRUE(answer) << body;
    return answer ? parsed(*answer) : nlohmann::json{};
  }

  // An answer as JSON: a stream's pieces are asked for, as the transport does, until its end.
  nlohmann::json parsed(const Answer& answer) {
    if (!answer.stream) return answer.json;
    std::string text;
    for (int pieces = 0; pieces < 100000; ++pieces) {
      std::optional<std::string> piece;
      answer.stream->next([&](std::string more) { piece = std::move(more); });
      run_deferred([&] { return piece.has_value(); });
      if (!piece) {
        ADD_FAILURE() << "a stream's piece never came";
        break;
      }
      if (piece->empty()) break;
      text += *piece;
      ++stream_pieces;
    }
    return nlohmann::json::parse(text);
  }
  Commands& commands() { return commands_; }
  void set_config_path(std::string path) { path_ = std::move(path); }

  TimePoint now_ = time_from_unix_ms(1'700'000'100'000);
  bool store_up = true;
  std::string clock_disagrees;  // may_end_leases()'s reason; empty: leases may end
  std::vector<lease::Lease> durable;
  std::vector<engine::Event> events;
  std::vector<std::size_t> commit_sizes;  // records per commit() call
  bool hold_commits = false;
  std::vector<std::pair<engine::Outcome, std::function<void(Expected<void, std::string>)>>> held;
  int reloads = 0;
  boost::asio::io_context* loop = nullptr;
  std::deque<std::function<void()>> deferred;
  int offloaded = 0;
  std::size_t stream_pieces = 0;  // pieces of streamed answers read by parsed()

 private:
  std::string path_ = "test.yaml";
  config::Config config_;
  engine::Engine engine_;
  Commands commands_{*this};
};

}  // namespace landlord::control::testing
