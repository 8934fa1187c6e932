// The control API's worker thread: jobs in order, `done` back on the event loop, and the thread
// below the loop's priority (nice Worker::kNice) so that a long answer never takes its CPU.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/control/worker.hpp"

namespace landlord::control {
namespace {

TEST(Worker, RunsJobsInOrderBelowTheLoopsPriorityAndAnswersOnTheLoop) {
  boost::asio::io_context loop;
  auto busy = boost::asio::make_work_guard(loop);  // run_for waits rather than returning at once
  const auto loop_thread = std::this_thread::get_id();
  const int loop_nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
  std::vector<int> order;
  int job_nice = -100;
  std::thread::id job_thread, done_thread;
  {
    Worker worker{loop};
    worker.run(
        [&] {
          job_nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
          job_thread = std::this_thread::get_id();
          order.push_back(1);
        },
        [&] { done_thread = std::this_thread::get_id(); });
    worker.run([&] { order.push_back(2); }, [&] { order.push_back(3); });
    for (int turns = 0; turns < 1000 && order.size() < 3; ++turns) {
      loop.run_for(std::chrono::milliseconds{10});
    }
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(job_thread, loop_thread);
  EXPECT_EQ(done_thread, loop_thread);
  EXPECT_EQ(job_nice, std::max(loop_nice, Worker::kNice));  // the loop's own priority is untouched
  EXPECT_EQ(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())), loop_nice);
}

std::size_t open_descriptors() {
  const auto listing = std::filesystem::directory_iterator{"/proc/self/fd"};
  return static_cast<std::size_t>(std::distance(begin(listing), end(listing)));
}

// The descriptors the daemon keeps once its first whole-table answer has started the worker
// (bench/api_abuse.sh saw 3 more after its runs): the two eventfds and the loop's stream_descriptor
// on a dup of the second, made once, however many jobs run, and all closed with the worker.
TEST(Worker, HoldsThreeDescriptorsWhateverItRunsAndClosesThemAtTheEnd) {
  boost::asio::io_context loop;
  auto busy = boost::asio::make_work_guard(loop);
  // The loop's own descriptors (epoll, its interrupter, a timerfd) are made with its first timer
  // or socket; the daemon's loop has them long before the worker.
  boost::asio::steady_timer timer{loop};
  const std::size_t before = open_descriptors();
  {
    Worker worker{loop};
    EXPECT_EQ(open_descriptors(), before + 3);
    int done = 0;
    constexpr int kJobs = 2000;
    for (int i = 0; i < kJobs; ++i) worker.run([] {}, [&done] { ++done; });
    for (int turns = 0; turns < 1000 && done < kJobs; ++turns) loop.run_for(std::chrono::milliseconds{10});
    ASSERT_EQ(done, kJobs);
    EXPECT_EQ(open_descriptors(), before + 3);
  }
  EXPECT_EQ(open_descriptors(), before);
}

}  // namespace
}  // namespace landlord::control
