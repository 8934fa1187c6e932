#pragma once
// events.exec, as dnsmasq's --dhcp-script: a program run for every lease event with
// `add|old|del MAC ADDRESS [HOSTNAME]` and the rest in LANDLORD_* environment variables. It
// runs beside the event loop, never in its way: at most `max_running` at once, each killed
// after `timeout`, at most `max_waiting` events queued (more are dropped and counted);
// failures are logged and counted. No reply ever waits for it. Each run gets only descriptors
// 0-2 and leads a process group of its own, which a timeout or our stop kills whole.
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/control/events.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {

struct EventExecLimits {
  std::size_t max_running = 4;
  std::size_t max_waiting = 1024;
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds poll{50};  // how often running children are checked for exit
};

struct EventExecCounters {
  std::uint64_t runs = 0, failures = 0, timeouts = 0, dropped = 0;
};

// dnsmasq's action for an event: add (a new lease), old (an extension), del (it ended).
std::string_view dnsmasq_action(const LeaseEvent& event);

class EventExec {
 public:
  // `metrics`, if given, counts runs, failures and drops for /metrics too.
  EventExec(boost::asio::io_context& io, std::string program, EventExecLimits limits = {},
            Metrics* metrics = nullptr);
  ~EventExec();  // kills what still runs, each with its process group
  EventExec(const EventExec&) = delete;
  EventExec& operator=(const EventExec&) = delete;

  void publish(const LeaseEvent& event);

  std::size_t running() const { return running_.size(); }
  std::size_t waiting() const { return waiting_.size(); }
  const EventExecCounters& counters() const { return counters_; }

 private:
  struct Invocation {
    std::vector<std::string> arguments;    // argv[1..]
    std::vector<std::string> environment;  // NAME=value
    std::string event;                     // for the log
  };
  struct Child {
    pid_t pid;
    std::chrono::steady_clock::time_point started;
    std::string event;
  };
  void start_waiting();
  void poll();
  void schedule_poll();
  void count_failure();

  boost::asio::io_context& io_;
  std::string program_;
  EventExecLimits limits_;
  std::deque<Invocation> waiting_;
  std::vector<Child> running_;
  boost::asio::steady_timer poll_timer_;
  bool poll_scheduled_ = false;
  EventExecCounters counters_;
  Metrics* metrics_;
};

}  // namespace landlord::control
