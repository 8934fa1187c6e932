#pragma once
// The control API's commands, Kea style: {"command": NAME, "arguments": {...}} in, and
// {"result": N, "text": ..., "arguments": ...} out (0 success, 1 error, 2 unsupported,
// 3 empty). Sans I/O: the transport hands a request body in and writes what comes back.
// Reading commands answer at once, except those that read the whole lease table: they read it
// in pieces between packets (table_scan.hpp); a lease list is then ordered and written out as
// JSON off the event loop (Daemon::offload), a piece at a time as the transport sends it. A
// change answers once its records are durable.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/control/daemon.hpp"
#include "landlord/control/table_scan.hpp"

namespace landlord::control {

enum Result : int { kSuccess = 0, kError = 1, kUnsupported = 2, kEmpty = 3 };

nlohmann::json answer(int result, std::string text, nlohmann::json arguments = nullptr);

// A long answer made piece by piece off the event loop (Daemon::offload), as the transport asks
// for the pieces: a whole-table lease list is never one string in memory, and the loop handles at
// most one piece of it per turn. The piece after the one handed out is made meanwhile.
class AnswerStream : public std::enable_shared_from_this<AnswerStream> {
 public:
  // Appends the next part of the answer's JSON text to `out` and says whether more follows. Runs
  // off the event loop, one call at a time; it must touch only what it owns.
  using Produce = std::function<bool(std::string& out)>;
  AnswerStream(Daemon& daemon, Produce produce) : daemon_(daemon), produce_(std::move(produce)) {}

  // Text before and after the answer (kea-ctrl-agent's list). Only before the first next().
  void wrap(std::string prefix, std::string suffix);
  // Calls `piece` on the event loop with the next piece of text, an empty one at the end. Call
  // again only once `piece` has run.
  void next(std::function<void(std::string)> piece);

 private:
  void produce_next();
  void produced(std::string piece, bool more);
  void hand(std::function<void(std::string)> piece);

  Daemon& daemon_;
  Produce produce_;  // the worker's
  // The event loop's:
  std::string prefix_, suffix_;
  bool started_ = false, producing_ = false, more_ = true;
  std::optional<std::string> ready_;
  std::function<void(std::string)> waiting_;
};

// What a command answers: a JSON value, or a stream of JSON text (a whole-table list).
struct Answer {
  Answer(nlohmann::json value) : json(std::move(value)) {}                      // NOLINT: reply(answer(...))
  Answer(std::shared_ptr<AnswerStream> text) : stream(std::move(text)) {}        // NOLINT
  // The JSON value as text; bytes that are not UTF-8 (a client's hostname, say) become U+FFFD
  // rather than an exception. Not for a stream.
  std::string dump() const;

  nlohmann::json json;
  std::shared_ptr<AnswerStream> stream;  // when set, the answer (json is null)
};

class Commands {
 public:
  using Reply = std::function<void(Answer)>;
  explicit Commands(Daemon& daemon) : daemon_(daemon), scanner_(daemon) {}

  // A request body as received: bad JSON and a missing command are answered, not thrown.
  // Kea's control agent takes "service": ["dhcp4"] and answers with a list; so does this.
  void handle_body(std::string_view body, Reply reply);
  void handle(const nlohmann::json& request, Reply reply);

  static const std::vector<std::string_view>& names();
  // The whole-table reads in progress (GET /metrics uses it too).
  TableScanner& scanner() { return scanner_; }

 private:
  Daemon& daemon_;
  TableScanner scanner_;
};

}  // namespace landlord::control
