#include "landlord/control/worker.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/post.hpp>

namespace landlord::control {

Worker::Worker(boost::asio::io_context& loop) : loop_(loop), thread_([this] { serve(); }) {}

Worker::~Worker() {
  {
    std::lock_guard lock{mutex_};
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_one();
  thread_.join();
}

void Worker::run(std::function<void()> work, std::function<void()> done) {
  {
    std::lock_guard lock{mutex_};
    jobs_.push_back({std::move(work), std::move(done)});
  }
  wake_.notify_one();
}

void Worker::serve() {
  // Below the event loop: on a busy machine the loop (packets, commits) gets the CPU first. Linux
  // gives each thread its own nice value; raising it needs no privilege. Best effort.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kNice);
  for (;;) {
    Job job;
    {
      std::unique_lock lock{mutex_};
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job.work();
    boost::asio::post(loop_, std::move(job.done));
  }
}

}  // namespace landlord::control
