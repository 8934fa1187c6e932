#pragma once
// One thread beside the event loop for the control API's heavy, self-contained work (sorting and
// serialising a whole-table answer), so that it never holds up packet handling: it runs at nice
// kNice, so that on a busy machine it does not take the event loop's CPU either. A job reads only
// what it was given; its `done` runs back on the event loop.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include <boost/asio/io_context.hpp>

namespace landlord::control {

class Worker {
 public:
  static constexpr int kNice = 10;  // the thread's nice value: below the event loop's
  explicit Worker(boost::asio::io_context& loop);
  // Finishes the job in hand (if any), drops the others, joins the thread.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // `work` on the worker thread, in the order given; then `done` posted to the event loop.
  void run(std::function<void()> work, std::function<void()> done);

 private:
  struct Job {
    std::function<void()> work, done;
  };
  void serve();

  boost::asio::io_context& loop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace landlord::control
