// The simulator's memory: bytes per simulated client with a million clients in one process, and
// a day of lease churn (1,000 clients, 60 s leases, 24 h of virtual time) in flat memory. RSS is
// read from /proc/self/statm; the figures are counters in the benchmark's output:
//   build/release/bench/sim_memory_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <deque>
#include <functional>
#include <fstream>

#include "landlord/sim/fleet.hpp"
#include "landlord/sim/timeline.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;

constexpr Ipv4 kServer{198, 18, 0, 1};
const TimePoint kStart = time_from_unix_ms(1'700'000'000'000);

double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return static_cast<double>(resident_pages) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

wire::Message reply_to(const wire::Message& request, wire::MessageType type, Ipv4 address) {
  wire::Message reply;
  reply.op = wire::Op::BootReply;
  reply.xid = request.xid;
  reply.hlen = request.hlen;
  reply.chaddr = request.chaddr;
  reply.yiaddr = address;
  reply.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(type));
  reply.options.set_ipv4(wire::option::kServerId, kServer);
  reply.options.set_u32(wire::option::kLeaseTime, 60);
  return reply;
}

// Answers every DISCOVER and REQUEST at once with a fresh or the requested address.
class InstantServer : public Sink {
 public:
  void send(Transmission& transmission) override {
    const wire::Message& request = transmission.message;
    const auto type = request.type();
    if (type == wire::MessageType::Discover) {
      pending_.push_back(reply_to(request, wire::MessageType::Offer,
                                  Ipv4{Ipv4{198, 18, 0, 0}.to_uint() + ++allocated_}));
    } else if (type == wire::MessageType::Request) {
      const Ipv4 wanted = request.ciaddr.is_zero()
                              ? *request.options.get_ipv4(wire::option::kRequestedAddress)
                              : request.ciaddr;
      pending_.push_back(reply_to(request, wire::MessageType::Ack, wanted));
    }
  }
  std::deque<wire::Message> pending_;

 private:
  std::uint32_t allocated_ = 0;
};

// Runs `fleet` in virtual time until `until`, answering at once.
void run_until(Fleet& fleet, InstantServer& server, TimePoint& now, TimePoint until,
               const std::function<void(TimePoint)>& each_step = {}) {
  while (!fleet.finished(now) && now < until) {
    if (each_step) each_step(now);
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
}

// A million clients arrive in 10 s of virtual time and take their leases; RSS before and after,
// per client (the fleet's per-client vectors, the client machines, the holder maps).
void BM_MemoryPerClient(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    const double before = resident_bytes();
    Workload workload;
    workload.clients = clients;
    workload.arrival_rate_per_s = static_cast<double>(clients) / 10;
    workload.duration = 20s;
    Fleet fleet(workload, kStart);
    InstantServer server;
    TimePoint now = kStart;
    run_until(fleet, server, now, kStart + 15s);
    const double after = resident_bytes();
    state.counters["clients_bound"] = static_cast<double>(fleet.bound_now());
    state.counters["rss_growth_MB"] = (after - before) / 1e6;
    state.counters["bytes_per_client"] = (after - before) / static_cast<double>(clients);
    state.counters["sizeof_Client"] = static_cast<double>(sizeof(Client));
  }
}
BENCHMARK(BM_MemoryPerClient)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kSecond);

// A day of churn: 1,000 clients renewing every 30 s (60 s leases) for 24 h of virtual time,
// with the timeline sampling every second as --timeline/--html do. RSS at 1 h and at 24 h.
void BM_SoakDayVirtual(benchmark::State& state) {
  for (auto _ : state) {
    Workload workload;
    workload.clients = 1000;
    workload.arrival_rate_per_s = 100;
    workload.duration = 24h;
    Fleet fleet(workload, kStart);
    Timeline timeline(fleet);
    InstantServer server;
    TimePoint now = kStart;
    double next_sample_s = 1;
    const auto sample = [&](TimePoint at) {
      const double at_s = std::chrono::duration<double>(at - kStart).count();
      while (at_s >= next_sample_s) timeline.sample(next_sample_s++);
    };
    run_until(fleet, server, now, kStart + 1h, sample);
    const double at_hour = resident_bytes();
    const std::size_t renewals_at_hour = fleet.stats().renewals;
    run_until(fleet, server, now, kStart + 24h, sample);
    const double at_day = resident_bytes();
    state.counters["rss_1h_MB"] = at_hour / 1e6;
    state.counters["rss_24h_MB"] = at_day / 1e6;
    state.counters["renewals_1h"] = static_cast<double>(renewals_at_hour);
    state.counters["renewals_24h"] = static_cast<double>(fleet.stats().renewals);
    state.counters["timeline_samples"] = static_cast<double>(timeline.samples().size());
    // What the vectors of every sample kept before the histograms: 8 bytes per latency and
    // per lease fraction, for the renewals of the day alone.
    state.counters["old_samples_MB"] = static_cast<double>(fleet.stats().renewals) * 16 / 1e6;
  }
}
BENCHMARK(BM_SoakDayVirtual)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace landlord::sim
