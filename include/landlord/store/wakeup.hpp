#pragma once
// One thread sleeps until another wakes it or a deadline passes: a Linux futex on a counter.
// It does what std::condition_variable did for the commit queue's worker without glibc's habit
// of marking the mutex contended after every wake-up, so that each later unlock made a futex
// call that woke nobody: at thousands of commits a second, two or three of the worker's four
// futex calls per transaction (bench/README.md, "durability counts").
//
// The caller's mutex guards whether the sleeper sleeps; the counter only carries the wake-up:
//   sleeper, under the lock: decide to sleep, record it, t = ticket(); unlock; wait(t, ...)
//   waker, under the lock:   see the sleeper recorded, clear that; after unlocking: wake()
// A wake() after ticket() makes wait() return at once, so no wake-up is lost in between.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace landlord::store {

class Wakeup {
 public:
  std::uint32_t ticket() const { return word_.load(std::memory_order_acquire); }
  // Returns when wake() was called since `ticket` was taken, at `deadline` (steady clock), or
  // spuriously: the caller checks its condition again.
  void wait(std::uint32_t ticket,
            std::optional<std::chrono::steady_clock::time_point> deadline) const;
  void wake();

 private:
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace landlord::store
