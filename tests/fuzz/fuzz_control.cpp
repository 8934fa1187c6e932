// libFuzzer target for the control API's request decoding: the bytes of a connection read as an
// HTTP/1.1 request by Beast's parser with the service's limits (service.cpp), its body (or, when
// the bytes are no HTTP request, the bytes themselves) decoded as a command (request_json.hpp),
// and its arguments read by every reader the handlers use (arguments.hpp). Never a crash, a hang
// or an exception; JSON no deeper than the limit; an error that says what without echoing the
// request; a host name that passed is one the wire could carry. Also compiled into
// fuzz_control_replay (tests/unit/control, the normal build) over tests/fuzz/corpus-control.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http.hpp>

#include "arguments.hpp"
#include "landlord/base/assert.hpp"
#include "landlord/control/commands.hpp"
#include "landlord/control/request_json.hpp"
#include "landlord/control/service.hpp"

namespace {

using namespace landlord;
using Json = nlohmann::json;
namespace http = boost::beast::http;

// The body of one HTTP request, as the service would read it, or nothing when the bytes are no
// complete request within the limits.
std::optional<std::string> http_body(std::string_view bytes) {
  const control::ServiceLimits limits;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_body_bytes);
  parser.eager(true);
  boost::beast::error_code error;
  while (!bytes.empty() && !parser.is_done()) {
    const std::size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), error);
    // need_more: the rest is a fragment only more bytes complete; Beast asserts it is never
    // offered again without them (its reader reads first), and here no more bytes come.
    if (error == http::error::need_more) break;
    if (error) return std::nullopt;
    bytes.remove_prefix(used);
    if (used == 0) break;
  }
  if (!parser.is_done()) {
    if (!parser.got_some()) return std::nullopt;  // put_eof asserts that some bytes came (as Beast's reader does)
    parser.put_eof(error);
    if (error || !parser.is_done()) return std::nullopt;
  }
  LANDLORD_ASSERT(parser.get().body().size() <= limits.max_body_bytes);
  return parser.release().body();
}

// How deep a value nests, counted without recursion (a stack of the containers to visit).
std::size_t depth(const Json& root) {
  std::size_t deepest = 0;
  std::vector<std::pair<const Json*, std::size_t>> visit{{&root, 1}};
  while (!visit.empty()) {
    const auto [value, level] = visit.back();
    visit.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, level);
    for (const auto& child : *value) visit.emplace_back(&child, level + 1);
  }
  return deepest;
}

// Every reader a handler may call, on every key the arguments have: refusals are answers.
void read_arguments(const Json& arguments) {
  if (!arguments.is_object()) return;
  for (const auto& [key, value] : arguments.items()) {
    (void)value;
    control::Arguments args{arguments};
    (void)args.text(key);
    control::Arguments numbers{arguments};
    (void)numbers.number(key, 0, 1000);
    (void)numbers.numbers(key);
    control::Arguments flags{arguments};
    (void)flags.flag(key);
    control::Arguments ids{arguments};
    (void)ids.address(key);
    control::Arguments hardware{arguments};
    (void)hardware.hardware(key);
    control::Arguments client{arguments};
    (void)client.client_id(key);
    control::Arguments names{arguments};
    if (const auto name = names.hostname(key)) {
      LANDLORD_ASSERT(name->size() <= control::Arguments::kMaxHostname);
      for (const char c : *name) LANDLORD_ASSERT(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
    }
    for (const auto* reader : {&args, &numbers, &flags, &ids, &hardware, &client, &names}) {
      LANDLORD_ASSERT(reader->error().size() < 300);  // a value shown is cut
    }
  }
}

// Whether the bytes made a command request: {"command": "..."} decoded within the limits.
bool decodes(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes{reinterpret_cast<const char*>(data), size};
  const auto body = http_body(bytes);
  const auto request = control::decode_request(body ? std::string_view{*body} : bytes);
  if (!request) {
    LANDLORD_ASSERT(!request.error().empty());
    LANDLORD_ASSERT(request.error().size() < 120);  // says what and where, never the body
    return false;
  }
  LANDLORD_ASSERT(depth(*request) <= control::kMaxJsonDepth);
  // The answer path: any decoded text dumps (bytes that are not UTF-8 become U+FFFD).
  (void)control::Answer{control::answer(control::kError, "echo", *request)}.dump();
  if (!request->is_object()) return false;
  const auto command = request->find("command");
  if (const auto arguments = request->find("arguments"); arguments != request->end()) read_arguments(*arguments);
  return body && command != request->end() && command->is_string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)decodes(data, size);
  return 0;
}

// For the replay: a seed named valid-* must be an HTTP request carrying a command, so a decoder
// that refuses everything fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) { return decodes(data, size); }
