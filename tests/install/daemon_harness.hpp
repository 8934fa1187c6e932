#pragma once
// Running the landlord binary (LANDLORD_BINARY) from a GoogleTest: a scratch directory, a free
// loopback port, a config, and a child process with its own environment and log file. Only
// the child started here is ever signalled.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace landlord::test {

class WorkDirectory {
 public:
  explicit WorkDirectory(const std::string& name) {
    std::string pattern = "/tmp/landlord-" + name + ".XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~WorkDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A UDP port on 127.0.0.1 the kernel just handed out (and we released).
inline std::uint16_t free_udp_port() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// A relay-only server on 127.0.0.1:PORT with an 11-address pool and a store in `directory`.
inline std::filesystem::path write_loopback_config(const std::filesystem::path& directory,
                                                   std::uint16_t port,
                                                   const std::string& server_extra = "") {
  const auto path = directory / "landlord.yaml";
  std::ofstream{path} << "server:\n  listen: 127.0.0.1:" << port << "\n" << server_extra
                      << "store:\n  path: " << (directory / "leases.db").string()
                      << "\nsubnets:\n  - subnet: 198.18.0.0/16\n"
                         "    pools: [198.18.1.10-198.18.1.20]\n    relays: [127.0.0.1]\n";
  return path;
}

class Daemon {
 public:
  // landlord ARGS with ENVIRONMENT added to ours, stdout and stderr to `log`.
  Daemon(std::vector<std::string> arguments, std::vector<std::string> environment,
         std::filesystem::path log)
      : log_(std::move(log)) {
    pid_ = ::fork();
    if (pid_ != 0) return;
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    for (auto& variable : environment) ::putenv(variable.data());
    std::vector<char*> argv{const_cast<char*>(LANDLORD_BINARY)};
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv(LANDLORD_BINARY, argv.data());
    ::_exit(127);
  }
  ~Daemon() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int number) const { ::kill(pid_, number); }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      pid_ = -1;
      return false;
    }
    return true;
  }
  // The exit status (128 + signal when killed), or -1 if still running after `limit`.
  int wait(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (running()) {
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return exit_status_;
  }
  std::string log() const {
    std::ifstream file{log_};
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }
  // Waits until the log contains `text` (true), the daemon exits or `limit` passes (false).
  bool wait_for_log(const std::string& text, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (log().find(text) != std::string::npos) return true;
      if (!running()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return false;
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int exit_status_ = -1;
};

}  // namespace landlord::test
