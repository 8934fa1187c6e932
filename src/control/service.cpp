// The control API's transport: Boost.Beast HTTP/1.1 over a UNIX socket and TCP, on the
// daemon's io_context. Everything it does is bounded (ServiceLimits), so a hostile or broken
// client costs at most one connection slot for read_timeout, never the DHCP service's time.
#include "landlord/control/service.hpp"

#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "landlord/base/close_on_exec.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/control/commands.hpp"

namespace landlord::control {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Json = nlohmann::json;

struct Service::State {
  State(net::io_context& context, Daemon& served, Metrics& counted, ServiceLimits bounds)
      : io(context), daemon(served), limits(bounds), commands(served), metrics(counted),
        hub(bounds.event_queue_bytes) {}
  net::io_context& io;
  Daemon& daemon;
  ServiceLimits limits;
  Commands commands;
  Metrics& metrics;
  EventHub hub;
  std::optional<std::string> token;
  // The UNIX socket's and the TCP listener's slots, apart (ServiceLimits).
  struct Door {
    std::size_t connections = 0;    // open, event streams included
    std::size_t evicting = 0;       // connections closed to admit others, still ending
    std::size_t event_streams = 0;
    // Connections waiting for a request (nothing of theirs in progress), by the order they began
    // to wait: the first is the longest idle, the one closed when a new connection needs its slot.
    std::map<std::uint64_t, std::function<void()>> waiting;
  };
  std::array<Door, 2> doors;  // kUnixDoor, kTcpDoor
  std::uint64_t next_wait = 0;
  std::uint64_t event_streams_dropped = 0;
  bool stopped = false;
  std::optional<net::local::stream_protocol::acceptor> unix_acceptor;
  std::optional<net::ip::tcp::acceptor> tcp_acceptor;
  std::string socket_path;

  TransportCounters transport() const {
    return {doors[0].connections + doors[1].connections, doors[0].event_streams + doors[1].event_streams,
            event_streams_dropped};
  }
};

namespace {

using StatePtr = std::shared_ptr<Service::State>;
constexpr std::size_t kUnixDoor = 0, kTcpDoor = 1;
template <class Protocol>
constexpr std::size_t kDoor = std::is_same_v<Protocol, net::ip::tcp> ? kTcpDoor : kUnixDoor;

bool is_http_error(const beast::error_code& error) {
  return error.category() == http::make_error_code(http::error::bad_target).category();
}

template <class Protocol>
class Session : public std::enable_shared_from_this<Session<Protocol>> {
 public:
  Session(typename Protocol::socket socket, StatePtr state, bool needs_token)
      : stream_(std::move(socket)), state_(std::move(state)), needs_token_(needs_token) {
    ++door().connections;
  }
  ~Session() {
    --door().connections;
    if (evicted_) --door().evicting;
    stop_waiting();
    if (subscriber_) {
      state_->hub.unsubscribe(*subscriber_);
      --door().event_streams;
    }
  }
  void start() { read_request(); }

 private:
  void read_request() {
    start_waiting();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_->limits.max_header_bytes));
    parser_->body_limit(state_->limits.max_body_bytes);
    stream_.expires_after(state_->limits.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code error, std::size_t) {
                       self->on_read(error);
                     });
  }

  Service::State::Door& door() const { return state_->doors[kDoor<Protocol>]; }

  // While it waits for a request, this connection may be closed to admit a new one.
  void start_waiting() {
    waiting_ = state_->next_wait++;
    door().waiting.emplace(*waiting_, [weak = this->weak_from_this()] {
      if (auto self = weak.lock()) self->evict();
    });
  }
  void stop_waiting() {
    if (waiting_) door().waiting.erase(*waiting_);
    waiting_.reset();
  }
  void evict() {
    waiting_.reset();  // the evictor took the entry
    evicted_ = true;
    ++door().evicting;
    ++state_->metrics.control_evicted;
    close();
  }

  void on_read(beast::error_code error) {
    stop_waiting();
    if (error == http::error::end_of_stream) return close();
    if (error == http::error::body_limit || error == http::error::header_limit) {
      ++state_->metrics.control_rejected;
      return send_json(http::status::payload_too_large,
                       answer(kError, "request larger than " +
                                          std::to_string(state_->limits.max_body_bytes) + " bytes"),
                       false);
    }
    if (is_http_error(error)) {
      ++state_->metrics.control_rejected;
      return send_json(http::status::bad_request, answer(kError, "malformed HTTP request"), false);
    }
    if (error) {  // timed out (a request that never finishes, an idle keep-alive), reset, ...
      if (error == beast::error::timeout) ++state_->metrics.control_rejected;
      return close();
    }
    request_ = parser_->release();
    route();
  }

  bool authorized() const {
    if (!needs_token_ || !state_->token) return true;
    const auto header = request_[http::field::authorization];
    const std::string expected = "Bearer " + *state_->token;
    if (header.size() != expected.size()) return false;
    unsigned char difference = 0;  // constant time: the token is a secret
    for (std::size_t i = 0; i < expected.size(); ++i) difference |= static_cast<unsigned char>(header[i] ^ expected[i]);
    return difference == 0;
  }

  void route() {
    const auto target = request_.target();
    if (!authorized()) {
      ++state_->metrics.control_rejected;
      return send_json(http::status::unauthorized, answer(kError, "missing or wrong bearer token"), false);
    }
    if (target == "/" && request_.method() == http::verb::post) {
      stream_.expires_never();  // a change answers when durable; the store bounds that
      ++state_->metrics.control_requests;
      state_->commands.handle_body(request_.body(), [self = this->shared_from_this()](Answer response) {
        if (response.stream) return self->send_stream(std::move(response.stream));
        self->send_json(http::status::ok, response, true);
      });
      return;
    }
    if (target == "/metrics" && request_.method() == http::verb::get) {
      ++state_->metrics.control_requests;
      stream_.expires_never();  // the table is counted in pieces between packets
      count_table(state_->daemon, state_->commands.scanner(), [self = this->shared_from_this()](const TableCounts& table) {
        const auto& state = *self->state_;
        self->send(http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                   render_metrics(state.daemon, state.metrics, state.transport(), table), true);
      });
      return;
    }
    if (target == "/events" && request_.method() == http::verb::get) return start_events();
    if (target == "/" || target == "/metrics" || target == "/events") {
      return send_json(http::status::method_not_allowed,
                       answer(kError, "POST / for commands, GET /metrics, GET /events"), true);
    }
    send_json(http::status::not_found, answer(kError, "no such endpoint: POST /, GET /metrics, GET /events"), true);
  }

  void send_json(http::status status, const Answer& body, bool keep_alive) {
    send(status, "application/json", body.dump() + "\n", keep_alive);
  }

  void send(http::status status, std::string_view content_type, std::string body, bool keep_alive) {
    response_ = {};
    response_.result(status);
    response_.version(11);
    response_.set(http::field::server, "landlord");
    response_.set(http::field::content_type, beast::string_view{content_type.data(), content_type.size()});
    response_.body() = std::move(body);
    response_.keep_alive(keep_alive && request_.keep_alive());
    response_.prepare_payload();
    stream_.expires_after(state_->limits.write_timeout);
    http::async_write(stream_, response_,
                      [self = this->shared_from_this()](beast::error_code error, std::size_t) {
                        if (error || !self->response_.keep_alive()) return self->close();
                        self->read_request();
                      });
  }

  // ---- an answer made in pieces (AnswerStream): chunked, or close-delimited for HTTP/1.0.
  // Each piece is written as it comes; the next is asked for once it is written, so at most two
  // pieces are in memory and no turn of the loop handles more than one.

  void send_stream(std::shared_ptr<AnswerStream> stream) {
    answer_stream_ = std::move(stream);
    chunked_ = request_.version() >= 11;
    keep_alive_ = chunked_ && request_.keep_alive();
    out_ = "HTTP/1.1 200 OK\r\nServer: landlord\r\nContent-Type: application/json\r\n";
    out_ += chunked_ ? "Transfer-Encoding: chunked\r\n" : "";
    out_ += keep_alive_ ? "" : "Connection: close\r\n";
    out_ += "\r\n";
    frame_.clear();
    frame_end_.clear();
    write_piece(false);
  }

  void next_piece() {
    stream_.expires_never();  // waiting for the worker, not for the reader
    answer_stream_->next([self = this->shared_from_this()](std::string piece) {
      if (self->closed_) return;
      const bool last = piece.empty();
      self->out_ = last ? std::string{"\n"} : std::move(piece);  // an answer ends with a newline
      self->frame_.clear();
      self->frame_end_.clear();
      if (self->chunked_) {
        self->frame_.clear();
        append_hex(self->frame_, self->out_.size());
        self->frame_ += "\r\n";
        self->frame_end_ = last ? "\r\n0\r\n\r\n" : "\r\n";
      }
      self->write_piece(last);
    });
  }

  void write_piece(bool last) {
    stream_.expires_after(state_->limits.write_timeout);
    const std::array<net::const_buffer, 3> buffers{net::buffer(frame_), net::buffer(out_), net::buffer(frame_end_)};
    net::async_write(stream_, buffers, [self = this->shared_from_this(), last](beast::error_code error, std::size_t) {
      if (error) return self->close();
      if (!last) return self->next_piece();
      self->answer_stream_.reset();
      self->out_ = {};
      if (!self->keep_alive_) return self->close();
      self->read_request();
    });
  }

  // ---- GET /events: a close-delimited stream of JSON lines

  void start_events() {
    if (door().event_streams >= state_->limits.max_event_streams) {
      ++state_->metrics.control_rejected;
      return send_json(http::status::service_unavailable,
                       answer(kError, std::to_string(state_->limits.max_event_streams) +
                                          " /events streams are open on this door already; commands still get in"),
                       false);
    }
    ++door().event_streams;  // and out of the command slots (admit)
    subscriber_ = state_->hub.subscribe([weak = this->weak_from_this()] {
      auto self = weak.lock();
      if (!self || self->flush_posted_) return;
      self->flush_posted_ = true;
      net::post(self->stream_.get_executor(), [self] {
        self->flush_posted_ = false;
        self->flush_events();
      });
    });
    out_ = "HTTP/1.1 200 OK\r\nServer: landlord\r\nContent-Type: application/x-ndjson\r\n"
           "Cache-Control: no-cache\r\nConnection: close\r\n\r\n";
    stream_.expires_never();
    watch_for_close();
    write_out();
  }

  // The reader sends nothing more; a read that ends means it went away.
  void watch_for_close() {
    stream_.async_read_some(net::buffer(discard_), [self = this->shared_from_this()](beast::error_code error, std::size_t) {
      if (error) return self->close();
      self->watch_for_close();
    });
  }

  void flush_events() {
    if (closed_) return;
    if (state_->hub.dropped(*subscriber_)) {  // too slow: it loses the stream, even mid-write
      ++state_->event_streams_dropped;
      return close();
    }
    if (writing_) return;
    EventHub::Taken taken = state_->hub.take(*subscriber_);
    if (taken.lines.empty()) return;
    out_ = std::move(taken.lines);
    write_out();
  }

  void write_out() {
    writing_ = true;
    stream_.expires_after(state_->limits.write_timeout);
    net::async_write(stream_, net::buffer(out_), [self = this->shared_from_this()](beast::error_code error, std::size_t) {
      self->writing_ = false;
      if (error) return self->close();
      self->flush_events();
    });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    stream_.socket().shutdown(net::socket_base::shutdown_both, ignored);
    stream_.close();
  }

  beast::basic_stream<Protocol> stream_;
  StatePtr state_;
  bool needs_token_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  std::optional<EventHub::SubscriberId> subscriber_;
  std::optional<std::uint64_t> waiting_;  // the key in door().waiting while waiting for a request
  bool evicted_ = false;
  std::string out_;
  std::shared_ptr<AnswerStream> answer_stream_;
  std::string frame_, frame_end_;  // a chunk's size line and its end
  bool chunked_ = false, keep_alive_ = false;
  std::array<char, 256> discard_{};
  bool writing_ = false, flush_posted_ = false, closed_ = false;
};

// At the limit, the longest-idle connection waiting for a request is closed to make room, so idle
// connections can never lock the API's users out; a new one is refused only when every slot is
// busy (a command in progress, an answer being written). Each door counts its own; /events
// streams have slots of their own (start_events), so they never take a command's.
bool admit(Service::State& state, Service::State::Door& door) {
  if (door.connections - door.event_streams - door.evicting < state.limits.max_connections) return true;
  if (door.waiting.empty()) return false;
  auto evict = std::move(door.waiting.begin()->second);
  door.waiting.erase(door.waiting.begin());
  evict();
  return true;
}

template <class Protocol>
void accept(const StatePtr& state, typename Protocol::acceptor& acceptor, bool needs_token) {
  acceptor.async_accept([state, &acceptor, needs_token](beast::error_code error, typename Protocol::socket socket) {
    if (error == net::error::operation_aborted || state->stopped) return;
    if (error) {  // out of descriptors, say: try again shortly rather than spin
      auto timer = std::make_shared<net::steady_timer>(state->io, std::chrono::milliseconds{100});
      timer->async_wait([state, &acceptor, needs_token, timer](beast::error_code) {
        if (!state->stopped) accept<Protocol>(state, acceptor, needs_token);
      });
      return;
    }
    set_close_on_exec(socket.native_handle());
    if (admit(*state, state->doors[kDoor<Protocol>])) {
      std::make_shared<Session<Protocol>>(std::move(socket), state, needs_token)->start();
    } else {
      ++state->metrics.control_rejected;
      ++state->metrics.control_refused;
      beast::error_code ignored;
      socket.close(ignored);
    }
    accept<Protocol>(state, acceptor, needs_token);
  });
}

Expected<std::string, std::string> read_token(const std::string& path) {
  std::ifstream file{path};
  if (!file) return unexpected("cannot read control.token-file " + path);
  std::string token;
  std::getline(file, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
  if (token.empty()) return unexpected("control.token-file " + path + " is empty");
  return token;
}

}  // namespace

Service::Service(net::io_context& io, Daemon& daemon, Metrics& metrics, ServiceLimits limits)
    : state_(std::make_shared<State>(io, daemon, metrics, limits)) {}

Service::~Service() { stop(); }

Expected<void, std::string> Service::start(const config::ControlSection& config) {
  namespace fs = std::filesystem;
  using Local = net::local::stream_protocol;
  if (config.token_file) {
    auto token = read_token(*config.token_file);
    if (!token) return unexpected(token.error());
    state_->token = std::move(*token);
  }
  std::error_code fs_error;
  const fs::path socket_path{config.socket};
  fs::create_directories(socket_path.parent_path(), fs_error);
  if (fs::exists(socket_path, fs_error)) {
    Local::socket probe{state_->io};
    beast::error_code connect_error;
    probe.connect(Local::endpoint{config.socket}, connect_error);
    if (!connect_error) return unexpected("control socket " + config.socket + " is in use by another process");
    fs::remove(socket_path, fs_error);  // left by a process that died
  }
  beast::error_code error;
  auto& unix_acceptor = state_->unix_acceptor.emplace(state_->io);
  if (unix_acceptor.open(Local{}, error); !error) set_close_on_exec(unix_acceptor.native_handle());
  if (!error) unix_acceptor.bind(Local::endpoint{config.socket}, error);
  if (!error) unix_acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) return unexpected("cannot listen on control socket " + config.socket + ": " + error.message());
  state_->socket_path = config.socket;
  ::chmod(config.socket.c_str(), 0660);
  accept<Local>(state_, unix_acceptor, false);

  if (config.listen) {
    using Tcp = net::ip::tcp;
    const Tcp::endpoint endpoint{net::ip::address_v4{config.listen->address.to_uint()}, config.listen->port};
    auto& tcp_acceptor = state_->tcp_acceptor.emplace(state_->io);
    if (tcp_acceptor.open(Tcp::v4(), error); !error) set_close_on_exec(tcp_acceptor.native_handle());
    if (!error) tcp_acceptor.set_option(Tcp::acceptor::reuse_address(true), error);
    if (!error) tcp_acceptor.bind(endpoint, error);
    if (!error) tcp_acceptor.listen(net::socket_base::max_listen_connections, error);
    if (error) {
      return unexpected("cannot listen on control.listen " + config.listen->address.to_string() + ":" +
                        std::to_string(config.listen->port) + ": " + error.message());
    }
    accept<Tcp>(state_, tcp_acceptor, true);
  }
  return {};
}

void Service::stop() {
  if (state_->stopped) return;
  state_->stopped = true;
  state_->commands.scanner().cancel();  // the scans' answers hold their connections
  beast::error_code ignored;
  if (state_->unix_acceptor) state_->unix_acceptor->close(ignored);
  if (state_->tcp_acceptor) state_->tcp_acceptor->close(ignored);
  if (!state_->socket_path.empty()) {
    std::error_code fs_error;
    std::filesystem::remove(state_->socket_path, fs_error);
  }
}

void Service::publish(const LeaseEvent& event) {
  ++state_->metrics.events_published;
  state_->hub.publish(event);
}

bool Service::wants_events() const { return state_->hub.has_subscribers(); }

}  // namespace landlord::control
