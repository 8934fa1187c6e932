#include "landlord/control/client.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <array>
#include <cstdlib>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "landlord/base/ipv4.hpp"

namespace landlord::control {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

Expected<ClientTarget, std::string> ClientTarget::from_url(std::string_view url) {
  // "http://" may be left out (ADDRESS:PORT is what people type); any other scheme is refused.
  constexpr std::string_view kScheme = "http://";
  std::string_view rest = url;
  if (rest.substr(0, kScheme.size()) == kScheme) {
    rest.remove_prefix(kScheme.size());
  } else if (rest.find("://") != std::string_view::npos) {
    return unexpected(std::string{"URL must be http://ADDRESS:PORT (or ADDRESS:PORT)"});
  }
  rest = rest.substr(0, rest.find('/'));
  ClientTarget target;
  std::string_view host = rest;
  if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    const std::string port{rest.substr(colon + 1)};
    char* end = nullptr;
    const unsigned long value = std::strtoul(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || value == 0 || value > 65535) return unexpected("bad port '" + port + "' in URL");
    target.port = static_cast<std::uint16_t>(value);
  }
  if (!Ipv4::parse(host)) return unexpected("URL host must be an IPv4 address, not '" + std::string{host} + "'");
  target.host = std::string{host};
  return target;
}

namespace {

template <class Socket>
void set_timeouts(Socket& socket, std::chrono::seconds timeout) {
  timeval value{static_cast<time_t>(timeout.count()), 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &value, sizeof value);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &value, sizeof value);
}

std::string where(const ClientTarget& target) {
  return target.host.empty() ? target.socket_path : target.host + ":" + std::to_string(target.port);
}

http::request<http::string_body> make_request(const ClientTarget& target, std::string_view method,
                                              std::string_view path, std::string body) {
  http::request<http::string_body> request{
      http::string_to_verb(beast::string_view{method.data(), method.size()}),
      beast::string_view{path.data(), path.size()}, 11};
  request.set(http::field::host, target.host.empty() ? "localhost" : target.host);
  request.set(http::field::user_agent, "landlordctl");
  if (target.token) request.set(http::field::authorization, "Bearer " + *target.token);
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  request.body() = std::move(body);
  request.keep_alive(false);
  request.prepare_payload();
  return request;
}

// Runs `exchange(socket)` on a connected socket of the target's kind.
template <class Exchange>
auto with_socket(const ClientTarget& target, Exchange&& exchange)
    -> decltype(exchange(std::declval<net::ip::tcp::socket&>())) {
  net::io_context io;
  beast::error_code error;
  if (target.host.empty()) {
    net::local::stream_protocol::socket socket{io};
    socket.connect(net::local::stream_protocol::endpoint{target.socket_path}, error);
    if (error) return unexpected("cannot connect to " + where(target) + ": " + error.message());
    set_timeouts(socket, target.timeout);
    return exchange(socket);
  }
  net::ip::tcp::socket socket{io};
  const auto address = Ipv4::parse(target.host);
  socket.connect({net::ip::address_v4{address->to_uint()}, target.port}, error);
  if (error) return unexpected("cannot connect to " + where(target) + ": " + error.message());
  set_timeouts(socket, target.timeout);
  return exchange(socket);
}

}  // namespace

Expected<HttpResponse, std::string> http_request(const ClientTarget& target, std::string_view method,
                                                 std::string_view path, std::string body) {
  return with_socket(target, [&](auto& socket) -> Expected<HttpResponse, std::string> {
    beast::error_code error;
    auto request = make_request(target, method, path, std::move(body));
    http::write(socket, request, error);
    if (error) return unexpected("cannot send to " + where(target) + ": " + error.message());
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{2} << 30);  // a whole lease table as JSON: about 320 bytes a lease
    http::read(socket, buffer, parser, error);
    if (error) return unexpected("no answer from " + where(target) + ": " + error.message());
    return HttpResponse{parser.get().result_int(), std::move(parser.get().body())};
  });
}

Expected<void, std::string> follow_lines(const ClientTarget& target, std::string_view path,
                                         const std::function<bool(std::string_view)>& on_line) {
  return with_socket(target, [&](auto& socket) -> Expected<void, std::string> {
    beast::error_code error;
    auto request = make_request(target, "GET", path, {});
    http::write(socket, request, error);
    if (error) return unexpected("cannot send to " + where(target) + ": " + error.message());
    beast::flat_buffer buffer;
    http::response_parser<http::empty_body> header;
    http::read_header(socket, buffer, header, error);
    if (error) return unexpected("no answer from " + where(target) + ": " + error.message());
    if (header.get().result_int() != 200) {
      return unexpected("HTTP " + std::to_string(header.get().result_int()) + " from " + where(target));
    }
    timeval forever{0, 0};  // a quiet stream is normal
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &forever, sizeof forever);
    // What the header read took beyond the header is the start of the body.
    std::string pending{static_cast<const char*>(buffer.data().data()), buffer.size()};
    std::array<char, 4096> chunk{};
    for (;;) {
      for (auto newline = pending.find('\n'); newline != std::string::npos; newline = pending.find('\n')) {
        if (!on_line(std::string_view{pending}.substr(0, newline))) return {};
        pending.erase(0, newline + 1);
      }
      const std::size_t count = socket.read_some(net::buffer(chunk), error);
      if (error == net::error::eof) return {};
      if (error) return unexpected("stream from " + where(target) + " broke: " + error.message());
      pending.append(chunk.data(), count);
    }
  });
}

}  // namespace landlord::control
