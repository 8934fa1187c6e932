#include "sqlite_shm_guard.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace landlord::store::detail {
namespace {

std::atomic<std::uint64_t> rescued{0};
struct sigaction previous {};

// Parses hex at `text` up to a non-hex character; advances `text`.
std::uintptr_t read_hex(const char*& text, const char* end) {
  std::uintptr_t value = 0;
  for (; text < end; ++text) {
    const char c = *text;
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) break;
    value = value * 16 + static_cast<std::uintptr_t>(digit);
  }
  return value;
}

// Whether `line` of /proc/self/maps ("start-end perms offset dev inode   path") covers `address`
// with a shared mapping of a file whose name ends in -shm (or "-shm (deleted)").
bool shm_mapping(const char* line, const char* end, std::uintptr_t address) {
  const char* cursor = line;
  const std::uintptr_t start = read_hex(cursor, end);
  if (cursor >= end || *cursor != '-') return false;
  ++cursor;
  const std::uintptr_t stop = read_hex(cursor, end);
  if (address < start || address >= stop || end - cursor < 5) return false;
  if (cursor[4] != 's') return false;  // perms "rw-s": shared
  constexpr std::string_view kShm = "-shm", kDeleted = "-shm (deleted)";
  const std::string_view text{line, static_cast<std::size_t>(end - line)};
  return text.ends_with(kShm) || text.ends_with(kDeleted);
}

// Async-signal-safe: only open, read, close (no allocation, no stdio).
bool in_shm_mapping(std::uintptr_t address) {
  const int maps = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (maps < 0) return false;
  char buffer[8192];
  std::size_t held = 0;
  bool found = false;
  for (;;) {
    const ssize_t got = ::read(maps, buffer + held, sizeof buffer - held);
    if (got <= 0) break;
    held += static_cast<std::size_t>(got);
    std::size_t start = 0;
    for (std::size_t i = 0; i < held; ++i) {
      if (buffer[i] != '\n') continue;
      if (shm_mapping(buffer + start, buffer + i, address)) found = true;
      start = i + 1;
    }
    if (found) break;
    if (start == 0) held = 0;  // a line longer than the buffer: not one of ours (paths fit)
    std::memmove(buffer, buffer + start, held - start);
    held -= start;
  }
  ::close(maps);
  return found;
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const auto page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t page = address & ~(page_size - 1);
  if (info->si_code == BUS_ADRERR && in_shm_mapping(address)) {
    // Reading the page still works (only making it writable fails): copy it into anonymous
    // memory and move that over it. The faulting write then runs again, on the copy.
    void* copy = ::mmap(nullptr, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy != MAP_FAILED) {
      std::memcpy(copy, reinterpret_cast<const void*>(page), page_size);
      if (::mremap(copy, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED,
                   reinterpret_cast<void*>(page)) != MAP_FAILED) {
        rescued.fetch_add(1, std::memory_order_relaxed);
        errno = saved_errno;
        return;
      }
      ::munmap(copy, page_size);
    }
  }
  errno = saved_errno;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
    return;
  }
  // As without this handler: the default action, when the faulting access runs again.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &fallback, nullptr);
}

}  // namespace

void install_shm_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous);
  });
}

std::uint64_t shm_faults() { return rescued.load(std::memory_order_relaxed); }

std::optional<std::string> shm_refusal(int descriptor) {
  int flags = 0;
  if (descriptor < 0 || ::ioctl(descriptor, FS_IOC_GETFLAGS, &flags) != 0) return std::nullopt;
  if ((flags & FS_IMMUTABLE_FL) != 0) return "immutable";
  if ((flags & FS_APPEND_FL) != 0) return "append-only";
  return std::nullopt;
}

std::optional<std::string> shm_refusal(const std::string& path) {
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (descriptor < 0) return std::nullopt;
  auto refusal = shm_refusal(descriptor);
  ::close(descriptor);
  return refusal;
}

}  // namespace landlord::store::detail
