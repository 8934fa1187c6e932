#pragma once
// The control API's client side (landlordctl, tests): one HTTP/1.1 exchange over the UNIX
// socket or TCP, or a followed /events stream. Blocking, with a timeout on every read.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "landlord/base/expected.hpp"

namespace landlord::control {

struct ClientTarget {
  std::string socket_path;          // used when host is empty
  std::string host;                 // TCP: an IPv4 address
  std::uint16_t port = 8067;
  std::optional<std::string> token; // sent as "Authorization: Bearer ..."
  std::chrono::seconds timeout{10};

  // "http://ADDRESS[:PORT]" (path ignored); an error says what is wrong.
  static Expected<ClientTarget, std::string> from_url(std::string_view url);
};

struct HttpResponse {
  unsigned status = 0;
  std::string body;
};

Expected<HttpResponse, std::string> http_request(const ClientTarget& target, std::string_view method,
                                                 std::string_view path, std::string body = {});

// GET `path` and hand each line to `on_line` until it returns false or the server closes.
// No read timeout: a quiet stream is normal.
Expected<void, std::string> follow_lines(const ClientTarget& target, std::string_view path,
                                         const std::function<bool(std::string_view line)>& on_line);

}  // namespace landlord::control
