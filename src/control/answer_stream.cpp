#include <utility>

#include "landlord/control/commands.hpp"

namespace landlord::control {

std::string Answer::dump() const { return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

void AnswerStream::wrap(std::string prefix, std::string suffix) {
  prefix_ = std::move(prefix) + prefix_;
  suffix_ += std::move(suffix);
}

void AnswerStream::next(std::function<void(std::string)> piece) {
  if (!started_) {
    started_ = true;
    produce_next();
    if (!prefix_.empty()) return piece(std::exchange(prefix_, {}));
  }
  if (ready_ || !more_) return hand(std::move(piece));
  waiting_ = std::move(piece);
}

// The next piece (ready, the suffix, or the end) to `piece`; the one after is started.
void AnswerStream::hand(std::function<void(std::string)> piece) {
  if (ready_) {
    std::string text = std::move(*ready_);
    ready_.reset();
    if (more_ && !producing_) produce_next();
    return piece(std::move(text));
  }
  piece(std::exchange(suffix_, {}));  // empty once the suffix went: the end
}

void AnswerStream::produce_next() {
  producing_ = true;
  auto out = std::make_shared<std::string>();
  auto more = std::make_shared<bool>(false);
  daemon_.offload([self = shared_from_this(), out, more] { *more = self->produce_(*out); },
                  [self = shared_from_this(), out, more] { self->produced(std::move(*out), *more); });
}

void AnswerStream::produced(std::string piece, bool more) {
  producing_ = false;
  more_ = more;
  if (!piece.empty()) ready_ = std::move(piece);
  if (more_ && !ready_) return produce_next();  // nothing made this time: go on
  if (waiting_) hand(std::exchange(waiting_, nullptr));
}

}  // namespace landlord::control
