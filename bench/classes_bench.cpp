// The per-packet cost of options and client classes: one DORA (DISCOVER → OFFER, REQUEST →
// ACK through Engine::handle, both replies built to bytes) for a new client, with
//   BM_DoraPlain    the bench lab's configuration: one subnet, routers and DNS, no classes;
//   BM_DoraClasses  ten classes (the client matches three, one on option 82) and options at
//                   every scope: top level, subnet, pool, class, reservation.
// bench/classes_callgrind.sh counts the instructions of dora_exchange() under callgrind.
#include <benchmark/benchmark.h>

#include <array>

#include "landlord/config/loader.hpp"
#include "landlord/engine/engine.hpp"

namespace {

using namespace landlord;
using wire::MessageType;
namespace option = wire::option;

const Ipv4 kServer{10, 0, 0, 1};
const Ipv4 kRelay{10, 0, 0, 2};

constexpr const char* kPlain = R"(
subnets:
  - subnet: 10.0.0.0/8
    pools: [10.0.1.0-10.255.255.254]
    options: {routers: 10.0.0.1, dns-servers: 10.0.0.53}
)";

constexpr const char* kClasses = R"(
options: {dns-servers: [10.0.0.53, 10.0.0.54], ntp-servers: 10.0.0.123, domain-name: lab.test,
          domain-search: [lab.test, corp.lab.test]}
classes:
  - {name: uefi, match: {client-architecture: [7, 9]}, options: {boot-file: ipxe.efi, next-server: 10.0.0.3}}
  - {name: bios, match: {client-architecture: 0}, options: {boot-file: pxelinux.0}}
  - {name: ipxe, match: {user-class: iPXE}, options: {boot-file: "http://10.0.0.3/boot.ipxe"}}
  - {name: pxe, match: {vendor-class: PXEClient}, options: {tftp-server-name: tftp.lab.test}}
  - {name: phones, match: {vendor-class: "Cisco Systems", hardware-address: "00:1b:54"}, options: {tftp-server-address: 10.0.0.69}, lease: {time: 10m}}
  - {name: printers, match: {hardware-address: "00:00:48"}, options: {domain-name: printers.lab.test}}
  - {name: port7, match: {giaddr: 10.0.0.0/24, circuit-id: "eth0/7"}, options: {domain-name: port7.lab.test}}
  - {name: port8, match: {circuit-id: "eth0/8"}, options: {domain-name: port8.lab.test}}
  - {name: line9, match: {remote-id: "0x0a0b"}, options: {ntp-servers: 10.0.9.123}}
  - {name: cameras, match: {vendor-class: "AXIS"}, options: {routers: 10.0.0.254}}
subnets:
  - subnet: 10.0.0.0/8
    options: {routers: 10.0.0.1, domain-name: subnet.lab.test, interface-mtu: 1500}
    pools:
      - {range: 10.0.1.0-10.255.255.254, options: {dns-servers: 10.0.0.55, time-offset: 3600}}
    reservations:
      - {mac: "02:ff:00:00:00:01", address: 10.0.0.10, hostname: printer, options: {dns-servers: 10.0.0.56}}
      - {mac: "02:ff:00:00:00:02", address: 10.0.0.11, hostname: scanner}
)";

config::Config load(const char* yaml) {
  auto loaded = config::load_string(yaml, "bench.yaml");
  if (!loaded) {
    std::fprintf(stderr, "%s\n", config::format_errors(loaded.error()).c_str());
    std::abort();
  }
  return std::move(*loaded);
}

// Relayed (so the relay-keyed classes can match), asking for a few options as clients do.
wire::Message message(MessageType type, bool with_class_facts) {
  wire::Message message;
  message.giaddr = kRelay;
  message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(type));
  message.options.set(option::kParameterRequestList, std::vector<std::uint8_t>{1, 3, 6, 15, 42, 66, 67, 119});
  if (with_class_facts) {  // UEFI PXE with iPXE on port eth0/7: uefi, ipxe, pxe, port7
    message.options.set_text(option::kVendorClass, "PXEClient:Arch:00007:UNDI:003016");
    message.options.set(93, std::vector<std::uint8_t>{0, 7});
    message.options.set_text(77, "iPXE");
    message.options.set(option::kRelayAgentInfo, std::vector<std::uint8_t>{1, 6, 'e', 't', 'h', '0', '/', '7'});
  }
  return message;
}

void set_client(wire::Message& message, std::uint32_t client) {
  message.chaddr[0] = 2;
  message.chaddr[2] = static_cast<std::uint8_t>(client >> 24);
  message.chaddr[3] = static_cast<std::uint8_t>(client >> 16);
  message.chaddr[4] = static_cast<std::uint8_t>(client >> 8);
  message.chaddr[5] = static_cast<std::uint8_t>(client);
  message.xid = client;
}

struct Exchange {
  engine::Engine& engine;
  engine::Ingress from;
  wire::Message discover, request;
  std::array<std::uint8_t, 1500> out{};
};

// One DORA of a new client, both replies built: what callgrind counts (--toggle-collect).
[[gnu::noinline]] std::size_t dora_exchange(Exchange& exchange, std::uint32_t client, TimePoint now) {
  set_client(exchange.discover, client);
  set_client(exchange.request, client);
  const engine::Outcome offer = exchange.engine.handle(exchange.discover, exchange.from, now);
  std::size_t bytes = wire::build(offer.reply->message, exchange.out)->size;
  exchange.request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  const engine::Outcome ack = exchange.engine.handle(exchange.request, exchange.from, now);
  if (ack.mutations.size() != 1) std::abort();
  bytes += wire::build(ack.reply->message, exchange.out)->size;
  return bytes;
}

void run(benchmark::State& state, const char* yaml, bool with_class_facts) {
  const config::Config config = load(yaml);
  engine::Engine engine(config);
  Exchange exchange{engine, {}, message(MessageType::Discover, with_class_facts),
                    message(MessageType::Request, with_class_facts)};
  exchange.from.interface_name = "bench0";
  exchange.from.interface_address = kServer;
  exchange.from.source_address = kRelay;
  exchange.request.options.set_ipv4(option::kServerId, kServer);
  TimePoint now = time_from_unix_ms(1'800'000'000'000);
  std::uint32_t client = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes += dora_exchange(exchange, client++, now);
    now += Duration{1};
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["reply_bytes"] = static_cast<double>(bytes) / (2.0 * static_cast<double>(state.iterations()));
}

void BM_DoraPlain(benchmark::State& state) { run(state, kPlain, false); }
void BM_DoraClasses(benchmark::State& state) { run(state, kClasses, true); }

BENCHMARK(BM_DoraPlain)->Iterations(20'000);
BENCHMARK(BM_DoraClasses)->Iterations(20'000);

}  // namespace
