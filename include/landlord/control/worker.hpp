#pragma once
// One thread beside the event loop for the control API's heavy, self-contained work (sorting and
// serialising a whole-table answer), so that it never holds up packet handling: it runs at nice
// kNice, so that on a busy machine it does not take the event loop's CPU either. A job reads only
// what it was given; its `done` runs back on the event loop.
//
// The loop and the worker share no lock: jobs and their `done`s pass through two lock-free
// stacks, each woken by an eventfd. A thread at nice 10 that held a lock the loop needs (the
// worker's queue, or the io_context's own mutex that boost::asio::post() takes) could be
// preempted while holding it for as long as the busy machine ran others first, and the loop
// waited that long: during lease4-get-all at 1 M leases the loop thread blocked up to 92 ms in
// one turn on the io_context's mutex (bench/README.md).
#include <atomic>
#include <functional>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

namespace landlord::control {

class Worker {
 public:
  static constexpr int kNice = 10;  // the thread's nice value: below the event loop's
  explicit Worker(boost::asio::io_context& loop);
  // Finishes the job in hand (if any), drops the others, joins the thread. On the loop's thread.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // `work` on the worker thread, in the order given; then `done` on the event loop, in order.
  void run(std::function<void()> work, std::function<void()> done);

 private:
  struct Job {
    std::function<void()> work, done;
    Job* next = nullptr;
  };
  // A stack many push onto and one takes whole (so no ABA): taken in the order pushed.
  struct Stack {
    std::atomic<Job*> top{nullptr};
    bool push(Job* job);  // whether it was empty
    Job* take_in_order();
  };
  void serve();
  void wait_for_done();
  void run_done();

  boost::asio::io_context& loop_;
  int to_worker_ = -1;  // eventfd: jobs waiting (the loop writes, the worker reads)
  int to_loop_ = -1;    // eventfd: dones waiting (the worker writes, the loop reads)
  boost::asio::posix::stream_descriptor done_ready_;
  Stack jobs_, dones_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace landlord::control
