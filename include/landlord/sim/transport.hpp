#pragma once
// The simulator's network side: how the fleet's transmissions reach a real server and its
// replies come back. Two transports: UDP as a relay agent (loopback, benchmarks) and Ethernet
// frames on an interface (labs). Both are plain sockets; the fleet never sees them.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"
#include "landlord/sim/closed_loop.hpp"
#include "landlord/sim/fleet.hpp"
#include "landlord/sim/frames.hpp"

namespace landlord::sim {

// Writes captured traffic as a pcap file (Ethernet link type); a no-op without libpcap.
class PcapWriter {
 public:
  static Expected<std::unique_ptr<PcapWriter>, std::string> open(const std::string& path);
  virtual ~PcapWriter() = default;
  virtual void write(std::span<const std::uint8_t> frame) = 0;
};

class Transport : public Sink {
 public:
  using Receiver = std::function<void(std::span<const std::uint8_t> dhcp_payload)>;
  // Sends what send() queued.
  virtual void flush() = 0;
  // Waits up to `timeout` for traffic and hands each DHCP reply payload to `receiver`.
  virtual std::size_t poll(Duration timeout, const Receiver& receiver) = 0;
  virtual std::string name() const = 0;
  // What this transport does not exercise, for the report.
  virtual std::string note() const = 0;
  void capture_to(PcapWriter* writer) { pcap_ = writer; }
  // The option 82 this transport adds to every request (relay mode); empty when none.
  virtual std::span<const std::uint8_t> relay_agent_info() const { return {}; }
  // Replies the kernel dropped because our receive queue was full, so far: the simulator, not
  // the server, lost them. nullopt when the transport cannot tell.
  virtual std::optional<std::size_t> receive_drops() { return std::nullopt; }

 protected:
  PcapWriter* pcap_ = nullptr;
};

struct Endpoint {
  Ipv4 address;
  std::uint16_t port = 0;
};
// "ADDR" or "ADDR:PORT"; `default_port` when the port is left out.
std::optional<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port);

// A relay agent on a UDP socket (RFC 1542 / RFC 3046): giaddr = the bound address, hops = 1,
// option 82 with the RFC 8357 relay-source-port sub-option so the server answers our port.
// Every request is relayed, renewals and rebinds alike.
Expected<std::unique_ptr<Transport>, std::string> open_relay_transport(Endpoint server,
                                                                       Endpoint bind);

// Ethernet frames on `interface` through an AF_PACKET socket: broadcast DISCOVER/REQUEST from
// each client's own MAC, RENEW unicast from the leased address to the server, and ARP answers
// for addresses our clients hold (`holder_of`).
using ArpOwner = std::function<std::optional<HardwareAddress>(Ipv4)>;
Expected<std::unique_ptr<Transport>, std::string> open_packet_transport(
    const std::string& interface, ArpOwner holder_of);

// Runs `fleet` on `transport` in real time until its duration is over or `stop` turns true.
// `progress` is called once per `period` (the terminal's status line, the timeline).
struct RealtimeResult {
  double elapsed_s = 0;
  double cpu_s = 0;
};
RealtimeResult run_realtime(Fleet& fleet, Transport& transport, const volatile bool& stop,
                            const std::function<void(double elapsed_s)>& progress,
                            Duration period = std::chrono::seconds(1));
// The same for the closed-loop benchmark, until its search stops.
RealtimeResult run_realtime(ClosedLoop& loop, Transport& transport, const volatile bool& stop,
                            const std::function<void(double elapsed_s)>& progress,
                            Duration period = std::chrono::seconds(1));

// The time base of a real run: wall clock at start plus steady time since.
class RunClock {
 public:
  RunClock();
  TimePoint now() const;
  std::int64_t precise_ns() const;
  // now() at the moment precise_ns() returned `precise_ns`: one clock read serves both.
  TimePoint at(std::int64_t precise_ns) const;

 private:
  TimePoint wall_start_;
  std::int64_t steady_start_ns_;
};

}  // namespace landlord::sim
