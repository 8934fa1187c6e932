#pragma once
// The control API's commands, Kea style: {"command": NAME, "arguments": {...}} in, and
// {"result": N, "text": ..., "arguments": ...} out (0 success, 1 error, 2 unsupported,
// 3 empty). Sans I/O: the transport hands a request body in and writes what comes back.
// Reading commands answer at once; a change answers once its records are durable.
#include <functional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/control/daemon.hpp"

namespace landlord::control {

enum Result : int { kSuccess = 0, kError = 1, kUnsupported = 2, kEmpty = 3 };

nlohmann::json answer(int result, std::string text, nlohmann::json arguments = nullptr);

class Commands {
 public:
  using Reply = std::function<void(nlohmann::json)>;
  explicit Commands(Daemon& daemon) : daemon_(daemon) {}

  // A request body as received: bad JSON and a missing command are answered, not thrown.
  // Kea's control agent takes "service": ["dhcp4"] and answers with a list; so does this.
  void handle_body(std::string_view body, Reply reply);
  void handle(const nlohmann::json& request, Reply reply);

  static const std::vector<std::string_view>& names();

 private:
  Daemon& daemon_;
};

}  // namespace landlord::control
