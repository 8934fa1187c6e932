#include "landlord/control/worker.hpp"

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
