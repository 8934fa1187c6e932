#include "landlord/control/event_exec.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>

#include <spdlog/spdlog.h>


namespace landlord::control {

std::string_view dnsmasq_action(const LeaseEvent& event) {
  switch (event.kind) {
    case engine::EventKind::Grant: return "add";
    case engine::EventKind::Renew:
    case engine::EventKind::Rebind: return "old";
    case engine::EventKind::Admin: return event.lease.state == lease::LeaseState::Bound ? "add" : "del";
    default: return "del";
  }
}

namespace {

std::string phase_of(const LeaseEvent& event) {
  if (event.lease.state != lease::LeaseState::Bound) return std::string{lease::to_string(event.lease.state)};
  switch (event.lease.phase(event.at)) {
    case lease::Phase::Bound: return "bound";
    case lease::Phase::PastT1: return "past-t1";
    case lease::Phase::PastT2: return "past-t2";
    case lease::Phase::Expired: return "expired";
  }
  return "unknown";
}

}  // namespace

EventExec::EventExec(boost::asio::io_context& io, std::string program, EventExecLimits limits,
                     Metrics* metrics)
    : io_(io), program_(std::move(program)), limits_(limits), poll_timer_(io), metrics_(metrics) {}

// Each hook leads a process group of its own (its PID is the group's ID), so what it started in
// the background ends with it; the group's ID cannot be reused while the leader is unreaped.
EventExec::~EventExec() {
  for (const Child& child : running_) {
    ::kill(-child.pid, SIGKILL);
    ::waitpid(child.pid, nullptr, 0);
  }
}

void EventExec::publish(const LeaseEvent& event) {
  if (waiting_.size() >= limits_.max_waiting) {
    ++counters_.dropped;
    if (metrics_ != nullptr) ++metrics_->event_hook_dropped;
    return;
  }
  const lease::Lease& lease = event.lease;
  Invocation invocation;
  invocation.event = std::string{event_name(event)} + " " + lease.address.to_string();
  invocation.arguments = {std::string{dnsmasq_action(event)}, lease.hardware.to_string(), lease.address.to_string()};
  if (!lease.hostname.empty()) invocation.arguments.push_back(lease.hostname);
  invocation.environment = {
      "PATH=/usr/local/bin:/usr/bin:/bin",
      "LANDLORD_EVENT=" + std::string{event_name(event)},
      "LANDLORD_REASON=" + std::string{event.reason},
      "LANDLORD_LEASE_STATE=" + std::string{lease::to_string(lease.state)},
      "LANDLORD_PHASE=" + phase_of(event),
      "LANDLORD_SUBNET_ID=" + std::to_string(lease.subnet_id),
      "LANDLORD_CLIENT_ID=" + lease.client_id.to_string(),
      "LANDLORD_LEASE_LENGTH=" + std::to_string(to_seconds(lease.lease_time)),
      "LANDLORD_LEASE_EXPIRES=" + std::to_string(unix_seconds(lease.expires_at())),
      "LANDLORD_FENCING_TOKEN=" + std::to_string(lease.fencing_token),
  };
  waiting_.push_back(std::move(invocation));
  start_waiting();
}

void EventExec::start_waiting() {
  while (running_.size() < limits_.max_running && !waiting_.empty()) {
    Invocation invocation = std::move(waiting_.front());
    waiting_.pop_front();
    std::vector<char*> argv{program_.data()};
    for (auto& argument : invocation.arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& variable : invocation.environment) envp.push_back(variable.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    // Only 0-2 reach the hook: a descriptor of ours it inherited (a listener, UDP 67) would be
    // held by anything it leaves running and keep a restarted landlord from binding.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // A group of its own, so a timeout or our stop ends what it started too (`sleep 300 &`).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, program_.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    ++counters_.runs;
    if (metrics_ != nullptr) ++metrics_->event_hook_runs;
    if (error != 0) {
      count_failure();
      spdlog::warn("events.exec {} for {}: cannot start: {}", program_, invocation.event, std::strerror(error));
      continue;
    }
    running_.push_back({pid, std::chrono::steady_clock::now(), std::move(invocation.event)});
  }
  if (!running_.empty()) schedule_poll();
}

void EventExec::count_failure() {
  ++counters_.failures;
  if (metrics_ != nullptr) ++metrics_->event_hook_failures;
}

void EventExec::schedule_poll() {
  if (poll_scheduled_) return;
  poll_scheduled_ = true;
  poll_timer_.expires_after(limits_.poll);
  poll_timer_.async_wait([this](const boost::system::error_code& error) {
    poll_scheduled_ = false;
    if (!error) poll();
  });
}

// Reaps the children that ended (only ours, by PID) and kills those past the timeout with
// their whole process group. A hook that exited on its own may leave a background child
// running (it holds none of our descriptors); only a timeout or our stop ends its group.
void EventExec::poll() {
  const auto now = std::chrono::steady_clock::now();
  for (auto child = running_.begin(); child != running_.end();) {
    int status = 0;
    const pid_t reaped = ::waitpid(child->pid, &status, WNOHANG);
    if (reaped == 0) {
      if (now - child->started > limits_.timeout) {
        ::kill(-child->pid, SIGKILL);
        ::waitpid(child->pid, &status, 0);
        ++counters_.timeouts;
        count_failure();
        spdlog::warn("events.exec {} for {}: killed after {} ms", program_, child->event, limits_.timeout.count());
        child = running_.erase(child);
        continue;
      }
      ++child;
      continue;
    }
    if (reaped < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      count_failure();
      spdlog::warn("events.exec {} for {}: {}", program_, child->event,
                   reaped < 0 ? std::string{"lost"}
                   : WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                       : "killed by signal " + std::to_string(WTERMSIG(status)));
    }
    child = running_.erase(child);
  }
  start_waiting();
}

}  // namespace landlord::control
