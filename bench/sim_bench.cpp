// The simulator's own cost, without sockets: how many client steps and whole lease lifecycles
// the sans-I/O core runs per second. The transports' system calls come on top (bench/sim.sh
// measures packets per CPU-second end to end).
#include <benchmark/benchmark.h>

#include <deque>

#include "landlord/sim/fleet.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;

constexpr Ipv4 kServer{198, 18, 0, 1};
const TimePoint kStart = time_from_unix_ms(1'700'000'000'000);

wire::Message reply_to(const wire::Message& request, wire::MessageType type, Ipv4 address,
                       std::uint32_t lease_s) {
  wire::Message reply;
  reply.op = wire::Op::BootReply;
  reply.xid = request.xid;
  reply.hlen = request.hlen;
  reply.chaddr = request.chaddr;
  reply.yiaddr = address;
  reply.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(type));
  reply.options.set_ipv4(wire::option::kServerId, kServer);
  reply.options.set_u32(wire::option::kLeaseTime, lease_s);
  return reply;
}

// One client: DISCOVER -> OFFER -> REQUEST -> ACK -> RENEW at T1 -> ACK, per iteration.
void BM_ClientLifecycleSteps(benchmark::State& state) {
  const std::array<std::uint8_t, 6> mac = {2, 0, 0, 0, 0, 1};
  const ClientIdentity identity{HardwareAddress{HardwareAddress::kEthernet, mac}, {}};
  const Ipv4 address{198, 18, 0, 10};
  std::uint64_t seed = 1;
  for (auto _ : state) {
    Client client(identity, Timing{}, seed++);
    TimePoint now = kStart;
    Output out = client.step(Start{}, now);
    const auto offer = reply_to(out.transmission->message, wire::MessageType::Offer, address, 60);
    out = client.step(Received{&offer}, now);
    const auto ack = reply_to(out.transmission->message, wire::MessageType::Ack, address, 60);
    out = client.step(Received{&ack}, now);
    now = *client.next_deadline();
    out = client.step(Tick{}, now);
    const auto renewed = reply_to(out.transmission->message, wire::MessageType::Ack, address, 60);
    out = client.step(Received{&renewed}, now);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * 5);  // client steps
}
BENCHMARK(BM_ClientLifecycleSteps);

// A responder that answers everything at once: every address is fresh, every request granted.
class InstantServer : public Sink {
 public:
  void send(Transmission& transmission) override {
    const wire::Message& request = transmission.message;
    const auto type = request.type();
    if (type == wire::MessageType::Discover) {
      pending_.push_back(reply_to(request, wire::MessageType::Offer, next_address(), 60));
    } else if (type == wire::MessageType::Request) {
      const Ipv4 wanted = request.ciaddr.is_zero()
                              ? *request.options.get_ipv4(wire::option::kRequestedAddress)
                              : request.ciaddr;
      pending_.push_back(reply_to(request, wire::MessageType::Ack, wanted, 60));
    }
  }
  std::deque<wire::Message> pending_;

 private:
  Ipv4 next_address() { return Ipv4{Ipv4{198, 18, 0, 0}.to_uint() + ++allocated_}; }
  std::uint32_t allocated_ = 0;
};

// A fleet living ten minutes of 60 s leases in virtual time: DORA, then a renewal every 30 s.
void BM_FleetTenMinutesVirtual(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  std::size_t exchanges = 0;
  for (auto _ : state) {
    Workload workload;
    workload.clients = clients;
    workload.arrival_rate_per_s = static_cast<double>(clients) / 10;
    workload.duration = 600s;
    Fleet fleet(workload, kStart);
    InstantServer server;
    TimePoint now = kStart;
    while (!fleet.finished(now)) {
      fleet.advance(now, server);
      while (!server.pending_.empty()) {
        const wire::Message reply = std::move(server.pending_.front());
        server.pending_.pop_front();
        fleet.receive(reply, now, Fleet::as_ns(now), server);
      }
      const auto next = fleet.next_deadline();
      if (!next) break;
      now = std::max(now + 1ms, *next);
    }
    exchanges += fleet.stats().leases + fleet.stats().renewals + fleet.stats().offers;
  }
  state.counters["exchanges/s"] =
      benchmark::Counter(static_cast<double>(exchanges), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FleetTenMinutesVirtual)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace landlord::sim
