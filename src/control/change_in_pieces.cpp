#include "landlord/control/change_in_pieces.hpp"

#include <memory>
#include <utility>

namespace landlord::control {
namespace {

struct Job {
  Daemon& daemon;
  engine::Event event;
  MakePiece make;
  std::function<void(const PiecesDone&)> finish;
  MayGoOn may_go_on;
  PiecesDone done;
  std::size_t committing = 0;  // pieces whose commit has not answered yet
  bool paused = false;         // kPiecesAtTheStore are committing: the next answer resumes
  bool stopped = false;        // no piece is made any more (all made, or a failure)
};

using JobPtr = std::shared_ptr<Job>;

void make_piece(const JobPtr& job);

void finish_if_done(Job& job) {
  if (!job.stopped || job.committing > 0 || !job.finish) return;
  const auto finish = std::exchange(job.finish, nullptr);
  finish(job.done);
}

void next_turn(const JobPtr& job) {
  job->daemon.defer([job] { make_piece(job); });
}

void make_piece(const JobPtr& job) {
  if (job->done.error.empty() && !job->daemon.counters().store_healthy) {
    job->done.error = "the lease store is not accepting writes";
  }
  if (job->done.error.empty() && job->may_go_on) {
    if (auto allowed = job->may_go_on(); !allowed) job->done.error = allowed.error();
  }
  if (!job->done.error.empty()) {
    job->stopped = true;
    return finish_if_done(*job);
  }
  if (job->committing >= kPiecesAtTheStore) {
    job->paused = true;
    return;
  }
  engine::Outcome change{std::nullopt, {}, job->event};
  change.mutations.reserve(kChangePiece);
  job->stopped = job->make(change, kChangePiece);
  if (const std::size_t count = change.mutations.size(); count > 0) {
    job->done.changed += count;
    ++job->committing;
    job->daemon.commit(std::move(change), [job, count](Expected<void, std::string> written) {
      --job->committing;
      if (written) {
        job->done.durable += count;
      } else if (job->done.error.empty()) {
        job->done.error = written.error();
      }
      if (std::exchange(job->paused, false)) return next_turn(job);
      finish_if_done(*job);
    });
  }
  if (!job->stopped) return next_turn(job);
  finish_if_done(*job);
}

}  // namespace

void change_in_pieces(Daemon& daemon, engine::Event event, MakePiece make,
                      std::function<void(const PiecesDone&)> finish, MayGoOn may_go_on) {
  next_turn(std::make_shared<Job>(Job{daemon, std::move(event), std::move(make), std::move(finish),
                                      std::move(may_go_on), {}, 0, false, false}));
}

}  // namespace landlord::control
