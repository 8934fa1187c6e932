// fsync_probe: what one durable commit costs the disk under a directory, with no database in
// the way. It appends WAL-frame-sized writes (4,096-byte page + 24-byte frame header) to a
// file in DIR at RATE a second for SECONDS and fdatasync(2)s after each, as SQLite in WAL
// mode with synchronous=FULL does once per commit; then prints the fdatasync latencies.
// A commit-then-ACK server's REQUEST->ACK can be no faster than this on the same disk, so
// bench/durability_cost.sh prints it beside the server's figures.
//
// usage: fsync_probe DIR [RATE] [SECONDS]   (default 1000/s for 5 s; the file is removed)
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: fsync_probe DIR [RATE] [SECONDS]\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/fsync-probe.data";
  const long rate = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 1000;
  const long seconds = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 5;
  if (rate <= 0 || rate > 100000 || seconds <= 0 || seconds > 3600) {
    std::fprintf(stderr, "fsync_probe: RATE must be 1-100000 and SECONDS 1-3600\n");
    return 2;
  }
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    return 1;
  }
  std::array<char, 4096 + 24> frame{};
  std::vector<double> latencies_ms;
  const long count = rate * seconds;
  latencies_ms.reserve(static_cast<std::size_t>(count));
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / rate);
  auto next = Clock::now();
  int status = 0;
  for (long i = 0; i < count; ++i) {
    std::this_thread::sleep_until(next);  // paced; a slow sync makes the next one go at once
    next += interval;
    frame[static_cast<std::size_t>(i) % frame.size()] = static_cast<char>(i);
    if (::write(fd, frame.data(), frame.size()) != static_cast<ssize_t>(frame.size())) {
      std::perror("write");
      status = 1;
      break;
    }
    const auto start = Clock::now();
    if (::fdatasync(fd) != 0) {
      std::perror("fdatasync");
      status = 1;
      break;
    }
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    // Like a WAL after its checkpoint: start again at the front instead of growing without end.
    if ((i + 1) % 1000 == 0 && ::lseek(fd, 0, SEEK_SET) < 0) {
      std::perror("lseek");
      status = 1;
      break;
    }
  }
  ::close(fd);
  ::unlink(path.c_str());
  if (latencies_ms.empty()) return status == 0 ? 1 : status;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const auto at = [&](double share) {
    return latencies_ms[std::min(latencies_ms.size() - 1,
                                 static_cast<std::size_t>(share * static_cast<double>(latencies_ms.size())))];
  };
  std::printf("fdatasync of a 4,120-byte append in %s: %zu syncs at %ld/s, p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
              argv[1], latencies_ms.size(), rate, at(0.50), at(0.99), latencies_ms.back());
  return status;
}
