#include "landlord/store/wakeup.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

namespace landlord::store {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
              std::atomic<std::uint32_t>::is_always_lock_free);

void Wakeup::wait(std::uint32_t ticket,
                  std::optional<std::chrono::steady_clock::time_point> deadline) const {
  // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time, the steady clock's on Linux.
  timespec at{};
  if (deadline) {
    const auto since_boot = deadline->time_since_epoch();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_boot);
    at.tv_sec = static_cast<time_t>(seconds.count());
    at.tv_nsec = static_cast<long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(since_boot - seconds).count());
  }
  // EAGAIN (woken since the ticket), EINTR and ETIMEDOUT all mean: look again.
  ::syscall(SYS_futex, reinterpret_cast<const std::uint32_t*>(&word_),
            FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, ticket, deadline ? &at : nullptr, nullptr,
            FUTEX_BITSET_MATCH_ANY);
}

void Wakeup::wake() {
  word_.fetch_add(1, std::memory_order_release);
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word_), FUTEX_WAKE | FUTEX_PRIVATE_FLAG,
            1, nullptr, nullptr, 0);
}

}  // namespace landlord::store
