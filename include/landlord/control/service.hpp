#pragma once
// The control API as the daemon runs it: HTTP/1.1 on a UNIX socket and optionally TCP, on the
// daemon's own io_context (commands, GET /metrics, GET /events). Bounded everywhere: request
// size, read and write time, open connections, the event queue of each /events reader.
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "landlord/base/expected.hpp"
#include "landlord/config/config.hpp"
#include "landlord/control/daemon.hpp"
#include "landlord/control/events.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control {

struct ServiceLimits {
  std::size_t max_body_bytes = 1 << 20;
  std::size_t max_header_bytes = 16 << 10;
  std::chrono::milliseconds read_timeout{10000};   // a whole request, or a keep-alive idle
  std::chrono::milliseconds write_timeout{10000};
  // Each door (the UNIX socket, the TCP listener) has its own slots, so that one cannot lock
  // operators out of the other. Connections for commands and /metrics, per door: beyond, the
  // longest-idle connection waiting for a request is closed to admit the new one; with every
  // connection busy, the new one is closed at once.
  std::size_t max_connections = 64;
  // /events streams, per door, apart from the above: a stream leaves its command slot when it
  // starts; beyond this many, GET /events is answered 503 and commands still get in.
  std::size_t max_event_streams = 16;
  std::size_t event_queue_bytes = 1 << 20;         // per /events reader; beyond: dropped
};

class Service {
 public:
  // `metrics` outlives the io_context's handlers (the daemon declares it first).
  Service(boost::asio::io_context& io, Daemon& daemon, Metrics& metrics, ServiceLimits limits = {});
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Opens the UNIX socket (mode 0660, its directory made if missing) and the TCP listener,
  // reads the token file. An error names what failed.
  Expected<void, std::string> start(const config::ControlSection& config);
  // Closes the listeners (and removes the socket file); open connections end with the loop.
  void stop();

  // A committed lease event: to every /events reader.
  void publish(const LeaseEvent& event);
  bool wants_events() const;

  struct State;  // service.cpp's; shared with the connections it serves

 private:
  std::shared_ptr<State> state_;
};

}  // namespace landlord::control
