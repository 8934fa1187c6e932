#pragma once
// The control API's commands, Kea style: {"command": NAME, "arguments": {...}} in, and
// {"result": N, "text": ..., "arguments": ...} out (0 success, 1 error, 2 unsupported,
// 3 empty). Sans I/O: the transport hands a request body in and writes what comes back.
// Reading commands answer at once, except those that read the whole lease table: they read it
// in pieces between packets (table_scan.hpp) and have their answer serialised off the event loop
// (Daemon::offload). A change answers once its records are durable.
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/control/daemon.hpp"
#include "landlord/control/table_scan.hpp"

namespace landlord::control {

enum Result : int { kSuccess = 0, kError = 1, kUnsupported = 2, kEmpty = 3 };

nlohmann::json answer(int result, std::string text, nlohmann::json arguments = nullptr);

// What a command answers: a JSON value, or the answer's JSON text when it was serialised off the
// event loop (a whole-table answer).
struct Answer {
  Answer(nlohmann::json value) : json(std::move(value)) {}  // NOLINT: handlers reply(answer(...))
  static Answer serialised(std::string text) {
    Answer made{nullptr};
    made.text = std::move(text);
    return made;
  }
  std::string dump() const { return text.empty() ? json.dump() : text; }
  nlohmann::json parsed() const { return text.empty() ? json : nlohmann::json::parse(text); }

  nlohmann::json json;
  std::string text;  // when not empty, the answer (json is null)
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
