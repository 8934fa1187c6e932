#include "landlord/control/worker.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <system_error>

namespace landlord::control {
namespace {

int make_eventfd() {
  const int fd = ::eventfd(0, EFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  return fd;
}

void signal(int fd) {
  const std::uint64_t one = 1;
  while (::write(fd, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void drain(int fd) {
  std::uint64_t count = 0;
  while (::read(fd, &count, sizeof count) < 0 && errno == EINTR) {
  }
}

}  // namespace

bool Worker::Stack::push(Job* job) {
  Job* old = top.load(std::memory_order_relaxed);
  do {
    job->next = old;
  } while (!top.compare_exchange_weak(old, job, std::memory_order_release, std::memory_order_relaxed));
  return old == nullptr;
}

Worker::Job* Worker::Stack::take_in_order() {
  Job* taken = top.exchange(nullptr, std::memory_order_acquire);
  Job* in_order = nullptr;
  while (taken != nullptr) {  // reversed: the first pushed first
    Job* next = taken->next;
    taken->next = in_order;
    in_order = taken;
    taken = next;
  }
  return in_order;
}

Worker::Worker(boost::asio::io_context& loop)
    : loop_(loop),
      to_worker_(make_eventfd()),
      to_loop_(make_eventfd()),
      done_ready_(loop, ::fcntl(to_loop_, F_DUPFD_CLOEXEC, 0)),  // dup() would drop close-on-exec
      thread_([this] { serve(); }) {
  wait_for_done();
}

Worker::~Worker() {
  stopping_.store(true);
  signal(to_worker_);
  thread_.join();
  done_ready_.cancel();
  for (Job* list : {jobs_.take_in_order(), dones_.take_in_order()}) {
    while (list != nullptr) std::unique_ptr<Job> dropped{std::exchange(list, list->next)};
  }
  ::close(to_worker_);
  ::close(to_loop_);
}

void Worker::run(std::function<void()> work, std::function<void()> done) {
  auto* job = new Job{std::move(work), std::move(done)};
  jobs_.push(job);
  signal(to_worker_);  // a counter: one read takes every job pushed before it
}

void Worker::wait_for_done() {
  done_ready_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                         [this](const boost::system::error_code& error) {
                           if (error) return;  // cancelled: the worker is going away
                           run_done();
                         });
}

void Worker::run_done() {
  drain(to_loop_);  // before taking: a done pushed after this read signals again
  Job* list = dones_.take_in_order();
  wait_for_done();
  while (list != nullptr) {
    std::unique_ptr<Job> job{std::exchange(list, list->next)};
    job->done();
  }
}

void Worker::serve() {
  // Below the event loop: on a busy machine the loop (packets, commits) gets the CPU first. Linux
  // gives each thread its own nice value; raising it needs no privilege. Best effort.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kNice);
  for (;;) {
    drain(to_worker_);  // blocks until a job (or the end) is signalled
    if (stopping_.load()) return;
    Job* list = jobs_.take_in_order();
    while (list != nullptr && !stopping_.load()) {
      Job* job = std::exchange(list, list->next);
      job->work();
      job->work = nullptr;
      if (dones_.push(job)) signal(to_loop_);  // the first of a batch wakes the loop
    }
    while (list != nullptr) std::unique_ptr<Job> dropped{std::exchange(list, list->next)};
  }
}

}  // namespace landlord::control
