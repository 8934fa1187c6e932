// Codec speed on real packets: parse and build of each kind of frame in the capture
// (tests/data/captures/real-clients.pcap). Run: build/release/bench/wire_bench
#include <benchmark/benchmark.h>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "../tests/support/pcap_reader.hpp"
#include "landlord/wire/message.hpp"

namespace {

using namespace landlord::wire;

const std::vector<std::uint8_t>& frame(std::size_t number) {
  static const auto datagrams =
      landlord::test::read_udp_datagrams(LANDLORD_CAPTURES_DIR "/real-clients.pcap");
  for (const auto& datagram : datagrams) {
    if (datagram.frame_number == number) return datagram.payload;
  }
  throw std::runtime_error("no frame " + std::to_string(number));
}

// Frames: 1 dhclient DISCOVER, 4 Kea ACK, 10 udhcpc REQUEST, 16 dhcpcd REQUEST (the largest).
void label(benchmark::State& state) {
  static const char* const names[] = {"", "dhclient-discover", "", "", "kea-ack", "", "", "", "",
                                      "", "udhcpc-request", "", "", "", "", "", "dhcpcd-request"};
  state.SetLabel(names[state.range(0)]);
}

void BM_Parse(benchmark::State& state) {
  const auto& packet = frame(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto message = parse(packet);
    benchmark::DoNotOptimize(message);
  }
  label(state);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * packet.size()));
}

// The server's loop: one Message reused for every packet.
void BM_ParseInto(benchmark::State& state) {
  const auto& packet = frame(static_cast<std::size_t>(state.range(0)));
  Message message;
  for (auto _ : state) {
    auto error = parse_into(packet, message);
    benchmark::DoNotOptimize(error);
    benchmark::DoNotOptimize(message);
  }
  label(state);
}

void BM_Build(benchmark::State& state) {
  const auto message = parse(frame(static_cast<std::size_t>(state.range(0)))).value();
  std::array<std::uint8_t, 1500> buffer;
  for (auto _ : state) {
    auto result = build(message, buffer);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(buffer.data());
  }
  label(state);
}

// Build squeezed into 250 bytes, so the options overflow into file and sname.
void BM_BuildOverloaded(benchmark::State& state) {
  const auto message = parse(frame(static_cast<std::size_t>(state.range(0)))).value();
  std::array<std::uint8_t, 250> buffer;
  for (auto _ : state) {
    auto result = build(message, buffer);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(buffer.data());
  }
  label(state);
}

void frames(benchmark::internal::Benchmark* bench) {
  for (const int number : {1, 4, 10, 16}) bench->Arg(number);
}

BENCHMARK(BM_Parse)->Apply(frames);
BENCHMARK(BM_ParseInto)->Apply(frames);
BENCHMARK(BM_Build)->Apply(frames);
BENCHMARK(BM_BuildOverloaded)->Apply(frames);

}  // namespace
