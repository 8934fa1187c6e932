// The Beast transport on a real UNIX socket and TCP port (loopback): routes, limits, tokens, the
// event stream and its slow-reader drop.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "fake_daemon.hpp"
#include "landlord/control/client.hpp"
#include "landlord/control/service.hpp"

namespace landlord::control {
namespace {

namespace net = boost::asio;
using Local = net::local::stream_protocol;
using testing::FakeDaemon;

std::string socket_path() { return "/tmp/landlord-control-test-" + std::to_string(::getpid()) + ".sock"; }

std::uint16_t free_port() {
  net::io_context io;
  net::ip::tcp::acceptor acceptor{io, {net::ip::address_v4::loopback(), 0}};
  return acceptor.local_endpoint().port();
}

// The service on its own event loop thread, as in the daemon.
class Running {
 public:
  explicit Running(ServiceLimits limits = {}, config::ControlSection config = {}) {
    config.enabled = true;
    config.socket = socket_path();
    daemon.loop = &io_;
    service_ = std::make_unique<Service>(io_, daemon, metrics, limits);
    const auto started = service_->start(config);
    EXPECT_TRUE(started.has_value()) << (started ? "" : started.error());
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Running() {
    // A commit a test left held holds its connection: both end here, while the loop exists.
    on_loop([this] {
      daemon.held.clear();
      service_->stop();
    });
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  void on_loop(std::function<void()> work) {
    std::promise<void> done;
    net::post(io_, [&] {
      work();
      done.set_value();
    });
    done.get_future().wait();
  }
  ClientTarget target() const {
    ClientTarget target;
    target.socket_path = socket_path();
    target.timeout = std::chrono::seconds{5};
    return target;
  }
  void publish(std::uint8_t last_octet) {
    on_loop([&] {
      LeaseEvent event;
      event.kind = engine::EventKind::Renew;
      event.lease.address = Ipv4(198, 18, 0, last_octet);
      event.lease.state = lease::LeaseState::Bound;
      service_->publish(event);
    });
  }

  FakeDaemon daemon;
  Metrics metrics;

 private:
  net::io_context io_;
  net::executor_work_guard<net::io_context::executor_type> guard_{io_.get_executor()};
  std::unique_ptr<Service> service_;
  std::thread thread_;
};

HttpResponse must(Expected<HttpResponse, std::string> response) {
  EXPECT_TRUE(response.has_value()) << (response ? "" : response.error());
  return response ? *response : HttpResponse{};
}

TEST(Service, AnswersCommandsMetricsAndErrorsOnTheSocket) {
  Running running;
  struct stat info {};
  ASSERT_EQ(::stat(socket_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0660u);
  const auto status = must(http_request(running.target(), "POST", "/", R"({"command": "status-get"})"));
  EXPECT_EQ(status.status, 200u);
  EXPECT_EQ(nlohmann::json::parse(status.body)["result"], kSuccess);
  const auto metrics = must(http_request(running.target(), "GET", "/metrics"));
  EXPECT_NE(metrics.body.find("landlord_pool_addresses{subnet_id=\"1\""), std::string::npos);
  EXPECT_EQ(must(http_request(running.target(), "GET", "/nowhere")).status, 404u);
  EXPECT_EQ(must(http_request(running.target(), "GET", "/")).status, 405u);
  const auto bad = must(http_request(running.target(), "POST", "/", "{"));
  EXPECT_EQ(nlohmann::json::parse(bad.body)["text"], "invalid JSON in the request body (at byte 2)");
}

// A lease list is sent in chunks as the worker writes it out: HTTP/1.1 chunked on a connection
// that stays open for the next request, close-delimited for HTTP/1.0.
TEST(Service, LeaseListsAreStreamedInChunks) {
  Running running;
  running.on_loop([&] {
    for (std::uint8_t last = 100; last < 200; ++last) {
      lease::Lease lease;
      lease.address = Ipv4(198, 18, 0, last);
      lease.hardware = HardwareAddress{1, std::array<std::uint8_t, 6>{0x02, 0, 0, 0, 1, last}};
      lease.client = ClientKey::from({}, lease.hardware);
      lease.hostname = std::string(5000, 'h');  // about 500 KB in all: more than one piece
      lease.state = lease::LeaseState::Bound;
      lease.subnet_id = 1;
      lease.granted_at = running.daemon.now_;
      lease.lease_time = std::chrono::hours{1};
      lease.renew_time = std::chrono::minutes{30};
      lease.rebind_time = std::chrono::minutes{52};
      lease.fencing_token = 1;
      running.daemon.engine().restore(lease);
    }
  });
  const auto all = must(http_request(running.target(), "POST", "/", R"({"command": "lease4-get-all"})"));
  ASSERT_EQ(all.status, 200u);
  const auto parsed = nlohmann::json::parse(all.body);
  EXPECT_EQ(parsed["result"], kSuccess);
  EXPECT_EQ(parsed["arguments"]["leases"].size(), 100u);
  EXPECT_EQ(all.body.back(), '\n');

  net::io_context io;
  const auto exchange = [&](Local::socket& socket, const std::string& request, const std::string& until) {
    net::write(socket, net::buffer(request));
    std::string got;
    std::array<char, 65536> buffer{};
    boost::system::error_code error;
    while (!error && got.find(until) == std::string::npos) got.append(buffer.data(), socket.read_some(net::buffer(buffer), error));
    return got;
  };
  Local::socket kept{io};
  kept.connect(Local::endpoint{socket_path()});
  const std::string body = R"({"command": "lease4-get-all", "service": ["dhcp4"]})";
  const std::string chunked = exchange(kept, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                                                 "\r\n\r\n" + body, "\r\n0\r\n\r\n");
  EXPECT_NE(chunked.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(chunked.find("Connection: close"), std::string::npos);
  std::size_t chunks = 0;
  std::string decoded;
  for (std::size_t at = chunked.find("\r\n\r\n") + 4;;) {
    const std::size_t line_end = chunked.find("\r\n", at);
    ASSERT_NE(line_end, std::string::npos);
    const std::size_t size = std::stoul(chunked.substr(at, line_end - at), nullptr, 16);
    if (size == 0) break;
    decoded += chunked.substr(line_end + 2, size);
    at = line_end + 2 + size + 2;
    ++chunks;
  }
  EXPECT_GE(chunks, 3u);  // "[", the list's pieces, "]", the newline
  const auto wrapped = nlohmann::json::parse(decoded);
  ASSERT_TRUE(wrapped.is_array());
  EXPECT_EQ(wrapped[0]["arguments"]["leases"].size(), 100u);
  // The same connection answers the next request.
  const std::string status = R"({"command": "status-get"})";
  const std::string next = exchange(kept, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(status.size()) +
                                              "\r\n\r\n" + status, "}\n");
  EXPECT_NE(next.find("\"result\":0"), std::string::npos);

  Local::socket old{io};
  old.connect(Local::endpoint{socket_path()});
  const std::string plain = exchange(old, "POST / HTTP/1.0\r\nContent-Length: 29\r\n\r\n{\"command\": \"lease4-get-all\"}",
                                     "\x01never");  // read until the server closes
  EXPECT_NE(plain.find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(plain.find("chunked"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(plain.substr(plain.find("\r\n\r\n") + 4))["arguments"]["leases"].size(), 100u);
}

TEST(Service, ABodyOverTheLimitIsRefusedWith413) {
  ServiceLimits limits;
  limits.max_body_bytes = 1024;
  Running running{limits};
  const auto response = must(http_request(running.target(), "POST", "/", std::string(4096, ' ')));
  EXPECT_EQ(response.status, 413u);
  EXPECT_EQ(nlohmann::json::parse(response.body)["text"], "request larger than 1024 bytes");
  EXPECT_EQ(must(http_request(running.target(), "POST", "/", R"({"command": "subnet4-list"})")).status, 200u);
}

// Reads until the server closes (or 10 s pass without a byte); how long that took.
std::chrono::milliseconds until_closed(Local::socket& socket) {
  timeval limit{10, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  const auto start = std::chrono::steady_clock::now();
  std::array<char, 4096> buffer{};
  boost::system::error_code error;
  while (!error) socket.read_some(net::buffer(buffer), error);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

TEST(Service, IdleAndUnfinishedRequestsAreClosedAfterTheReadTimeout) {
  ServiceLimits limits;
  limits.read_timeout = std::chrono::milliseconds{300};
  Running running{limits};
  net::io_context io;
  Local::socket idle{io}, unfinished{io};
  idle.connect(Local::endpoint{socket_path()});
  unfinished.connect(Local::endpoint{socket_path()});
  net::write(unfinished, net::buffer(std::string{"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"comm"}));
  EXPECT_LT(until_closed(idle).count(), 3000);
  EXPECT_LT(until_closed(unfinished).count(), 3000);
  // The stream's timer closes the socket before the read's handler counts the timeout.
  for (int i = 0; i < 100 && running.metrics.control_rejected.load() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  EXPECT_GE(running.metrics.control_rejected.load(), 2u);
}

// Idle connections can no longer lock the API's users out until their read timeout: at the
// limit (64 by default), the longest idle is closed to admit a new connection.
TEST(Service, IdleConnectionsAtTheLimitMakeRoomForANewOne) {
  Running running;  // the default limits: 64 connections, 10 s to send a request
  net::io_context io;
  std::vector<Local::socket> idle;
  for (int i = 0; i < 100; ++i) idle.emplace_back(io).connect(Local::endpoint{socket_path()});
  const auto start = std::chrono::steady_clock::now();
  const auto status = must(http_request(running.target(), "POST", "/", R"({"command": "status-get"})"));
  EXPECT_EQ(status.status, 200u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds{2});
  EXPECT_EQ(running.metrics.control_evicted.load(), 100u + 1u - 64u);  // the oldest idle ones
  EXPECT_EQ(running.metrics.control_refused.load(), 0u);
  EXPECT_LT(until_closed(idle.front()).count(), 1000);  // the longest idle went first
  const auto metrics = must(http_request(running.target(), "GET", "/metrics")).body;
  // 37, or 38 if the scrape's own connection came before status-get's had ended.
  EXPECT_TRUE(metrics.find("landlord_control_connections_evicted_total 37\n") != std::string::npos ||
              metrics.find("landlord_control_connections_evicted_total 38\n") != std::string::npos)
      << metrics;
}

// Writes a request on a raw connection (its answer is not read).
template <class Socket>
void send_raw(Socket& socket, const std::string& method_target, const std::string& body = "") {
  std::string request = method_target + " HTTP/1.1\r\nHost: x\r\n";
  if (!body.empty()) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  net::write(socket, net::buffer(request + "\r\n" + body));
}

// Reads an answer's head (up to the blank line).
template <class Socket>
std::string read_head(Socket& socket) {
  std::string head;
  std::array<char, 256> buffer{};
  while (head.find("\r\n\r\n") == std::string::npos) head.append(buffer.data(), socket.read_some(net::buffer(buffer)));
  return head;
}

// Opens `count` connections each holding a command in progress (a lease4-add whose commit the
// fake store holds until release_commits): busy, not idle. Returns once the store holds them all.
std::vector<Local::socket> busy_commands(Running& running, net::io_context& io, std::size_t count) {
  running.daemon.hold_commits = true;
  std::vector<Local::socket> busy;
  for (std::size_t i = 0; i < count; ++i) {
    auto& stream = busy.emplace_back(io);
    stream.connect(Local::endpoint{socket_path()});
    send_raw(stream, "POST /", R"({"command": "lease4-add", "arguments": {"ip-address": "198.18.0.)" +
                                   std::to_string(150 + i) + R"(", "hw-address": "02:00:00:00:01:)" +
                                   std::to_string(10 + i) + R"("}})");
  }
  for (int i = 0; i < 200; ++i) {
    std::size_t held = 0;
    running.on_loop([&] { held = running.daemon.held.size(); });
    if (held == count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  return busy;
}

// A connection is refused only when every slot is busy: here, four commands in progress.
TEST(Service, ConnectionsBeyondTheCapAreClosedAtOnceWhenAllAreBusy) {
  ServiceLimits limits;
  limits.max_connections = 4;
  Running running{limits};
  net::io_context io;
  auto busy = busy_commands(running, io, 4);
  Local::socket extra{io};
  extra.connect(Local::endpoint{socket_path()});
  EXPECT_LT(until_closed(extra).count(), 1000);
  EXPECT_EQ(running.metrics.control_refused.load(), 1u);
  EXPECT_EQ(running.metrics.control_evicted.load(), 0u);
  running.on_loop([&] { running.daemon.release_commits(); });
  for (auto& stream : busy) EXPECT_EQ(read_head(stream).rfind("HTTP/1.1 200", 0), 0u);
  busy.clear();
  for (int i = 0; i < 100; ++i) {  // the connections end on the loop once their clients went
    const auto answered = http_request(running.target(), "POST", "/", R"({"command": "subnet4-list"})");
    if (answered && answered->status == 200u) return;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  ADD_FAILURE() << "the API stayed full after the commands ended";
}

// Issue #31: 64 /events streams used to take every slot, on both doors at once.
TEST(Service, EventStreamsHaveSlotsOfTheirOwnAndNeverLockCommandsOut) {
  ServiceLimits limits;
  limits.max_connections = 4;
  limits.max_event_streams = 3;
  Running running{limits};
  net::io_context io;
  std::vector<Local::socket> streams;
  for (int i = 0; i < 3; ++i) {
    auto& stream = streams.emplace_back(io);
    stream.connect(Local::endpoint{socket_path()});
    send_raw(stream, "GET /events");
    EXPECT_EQ(read_head(stream).rfind("HTTP/1.1 200", 0), 0u);
  }
  Local::socket fourth{io};
  fourth.connect(Local::endpoint{socket_path()});
  send_raw(fourth, "GET /events");
  EXPECT_EQ(read_head(fourth).rfind("HTTP/1.1 503", 0), 0u);
  // Every command slot is still free: four commands at once get in.
  auto busy = busy_commands(running, io, 4);
  running.on_loop([&] { running.daemon.release_commits(); });
  for (auto& stream : busy) EXPECT_EQ(read_head(stream).rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(running.metrics.control_refused.load(), 0u);
}

// The UNIX socket full of busy commands and /events streams; the TCP listener still answers,
// and the other way round.
TEST(Service, EachDoorHasItsOwnSlots) {
  const auto token_path = "/tmp/landlord-control-token-doors-" + std::to_string(::getpid());
  std::ofstream{token_path} << "s3cret\n";
  ServiceLimits limits;
  limits.max_connections = 2;
  limits.max_event_streams = 2;
  config::ControlSection config;
  config.listen = config::Endpoint{Ipv4(127, 0, 0, 1), free_port()};
  config.token_file = token_path;
  Running running{limits, config};
  net::io_context io;
  // The streams first: a connection takes a command slot until its request says /events.
  std::vector<Local::socket> streams;
  for (int i = 0; i < 2; ++i) {
    auto& stream = streams.emplace_back(io);
    stream.connect(Local::endpoint{socket_path()});
    send_raw(stream, "GET /events");
    EXPECT_EQ(read_head(stream).rfind("HTTP/1.1 200", 0), 0u);
  }
  auto busy = busy_commands(running, io, 2);
  ClientTarget tcp;
  tcp.host = "127.0.0.1";
  tcp.port = config.listen->port;
  tcp.token = "s3cret";
  tcp.timeout = std::chrono::seconds{5};
  const auto answered = http_request(tcp, "POST", "/", R"({"command": "subnet4-list"})");
  ASSERT_TRUE(answered) << answered.error();
  EXPECT_EQ(answered->status, 200u);
  // The TCP door's streams are its own too.
  net::ip::tcp::socket tcp_stream{io};
  tcp_stream.connect({net::ip::address_v4::loopback(), config.listen->port});
  net::write(tcp_stream, net::buffer(std::string{"GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n"}));
  EXPECT_EQ(read_head(tcp_stream).rfind("HTTP/1.1 200", 0), 0u);
  running.on_loop([&] { running.daemon.release_commits(); });
  std::filesystem::remove(token_path);
}

TEST(Service, TcpNeedsTheBearerToken) {
  const auto token_path = "/tmp/landlord-control-token-" + std::to_string(::getpid());
  std::ofstream{token_path} << "s3cret\n";
  config::ControlSection config;
  config.listen = config::Endpoint{Ipv4(127, 0, 0, 1), free_port()};
  config.token_file = token_path;
  Running running{{}, config};
  ClientTarget target;
  target.host = "127.0.0.1";
  target.port = config.listen->port;
  EXPECT_EQ(must(http_request(target, "GET", "/metrics")).status, 401u);
  target.token = "wrong!";
  EXPECT_EQ(must(http_request(target, "GET", "/metrics")).status, 401u);
  target.token = "s3cret";
  EXPECT_EQ(must(http_request(target, "GET", "/metrics")).status, 200u);
  // The socket needs no token: its file mode guards it.
  EXPECT_EQ(must(http_request(running.target(), "GET", "/metrics")).status, 200u);
  std::filesystem::remove(token_path);
}

TEST(Service, EventsAreStreamedAsLinesInOrder) {
  Running running;
  std::vector<std::string> lines;
  std::thread reader([&] {
    const auto followed = follow_lines(running.target(), "/events", [&](std::string_view line) {
      lines.emplace_back(line);
      return lines.size() < 3;
    });
    EXPECT_TRUE(followed.has_value()) << (followed ? "" : followed.error());
  });
  // Wait for the subscription, then publish.
  for (int i = 0; i < 200; ++i) {
    const auto metrics = must(http_request(running.target(), "GET", "/metrics"));
    if (metrics.body.find("landlord_event_streams 1\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  for (std::uint8_t octet : {1, 2, 3}) running.publish(octet);
  reader.join();
  ASSERT_EQ(lines.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(nlohmann::json::parse(lines[i])["ip-address"], "198.18.0." + std::to_string(i + 1));
    EXPECT_EQ(nlohmann::json::parse(lines[i])["event"], "renew");
  }
}

TEST(Service, AReaderThatDoesNotReadIsDroppedWithoutSlowingPublish) {
  ServiceLimits limits;
  limits.event_queue_bytes = 4096;
  Running running{limits};
  net::io_context io;
  Local::socket stalled{io};
  stalled.connect(Local::endpoint{socket_path()});
  net::write(stalled, net::buffer(std::string{"GET /events HTTP/1.1\r\nHost: x\r\n\r\n"}));
  for (int i = 0; i < 200; ++i) {
    const auto metrics = must(http_request(running.target(), "GET", "/metrics"));
    if (metrics.body.find("landlord_event_streams 1\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20000; ++i) running.publish(static_cast<std::uint8_t>(i));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds{20});
  std::string metrics;
  for (int i = 0; i < 100; ++i) {  // the dropped stream's last handlers end on the loop
    metrics = must(http_request(running.target(), "GET", "/metrics")).body;
    if (metrics.find("landlord_event_streams 0\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  EXPECT_NE(metrics.find("landlord_event_streams_dropped_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("landlord_event_streams 0\n"), std::string::npos);
  EXPECT_LT(until_closed(stalled).count(), 5000);  // what the kernel buffered, then the end
}

TEST(Service, ASecondServiceRefusesASocketInUse) {
  Running running;
  net::io_context io;
  FakeDaemon daemon;
  Metrics metrics;
  Service second{io, daemon, metrics};
  config::ControlSection config;
  config.socket = socket_path();
  const auto started = second.start(config);
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error(), "control socket " + socket_path() + " is in use by another process");
}

}  // namespace
}  // namespace landlord::control
