// A whole DORA exchange (DISCOVER → OFFER, REQUEST → ACK) through Engine::handle.
//   BM_DoraNewClient       every exchange is a new client: allocation, hold, grant, indexes grow
//   BM_DoraReturningClient 50,000 clients cycling: each finds its bound lease (affinity path)
//   BM_DoraAdmitted*       the daemon's path for new clients: request_facts, admission (the
//                          default limits), then handle. FactsGiven hands the facts to handle
//                          (the daemon since issue #16); ChoosingTwice lets handle choose the
//                          subnet again (before). Instructions per DORA: bench/README.md.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "landlord/engine/admission.hpp"
#include "landlord/engine/engine.hpp"

namespace {

using namespace landlord;
using wire::MessageType;
namespace option = wire::option;

const Ipv4 kServer{10, 0, 0, 1};

config::Config make_config() {
  config::Config config;
  config::Subnet subnet;
  subnet.id = 1;
  subnet.subnet = Cidr{Ipv4{10, 0, 0, 0}, 8};
  subnet.pools = {{Ipv4{10, 0, 1, 0}, Ipv4{10, 255, 255, 254}}};
  subnet.options = {{option::kRouters, {10, 0, 0, 1}}, {option::kDnsServers, {10, 0, 0, 53}}};
  subnet.lease = config.lease;
  config.subnets = {subnet};
  return config;
}

engine::Ingress ingress() {
  engine::Ingress ingress;
  ingress.interface_name = "bench0";
  ingress.interface_address = kServer;
  ingress.to_broadcast = true;
  return ingress;
}

wire::Message message(MessageType type) {
  wire::Message message;
  message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(type));
  message.options.set(option::kParameterRequestList, std::vector<std::uint8_t>{1, 3, 6});
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

void run_dora(benchmark::State& state, std::uint32_t client_count) {
  engine::Engine engine(make_config());
  const engine::Ingress from = ingress();
  wire::Message discover = message(MessageType::Discover);
  wire::Message request = message(MessageType::Request);
  request.options.set_ipv4(option::kServerId, kServer);
  TimePoint now = time_from_unix_ms(1'800'000'000'000);
  std::uint32_t client = 0;
  for (auto _ : state) {
    set_client(discover, client);
    set_client(request, client);
    const engine::Outcome offer = engine.handle(discover, from, now);
    request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
    const engine::Outcome ack = engine.handle(request, from, now);
    if (ack.mutations.size() != 1) state.SkipWithError("no ACK");
    benchmark::DoNotOptimize(ack);
    client = client + 1 == client_count ? 0 : client + 1;
    now += Duration{1};
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["leases"] = static_cast<double>(engine.counters().grants);
}

// handle_admitted() as it was before issue #16's change, step for step: handle() chose the
// subnet again.
[[gnu::noinline]] engine::Admitted choosing_twice(engine::Engine& engine, engine::Admission& admission,
                                                  const engine::RequestFacts& facts, const wire::Message& message,
                                                  const engine::Ingress& from, const engine::Applicant& applicant,
                                                  TimePoint now) {
  if (facts.new_address) {
    if (auto refusal = admission.admit(facts.subnet_id, applicant, now)) return {engine::Outcome{}, refusal};
  }
  engine::Admitted admitted{engine.handle(message, from, now), std::nullopt};
  const engine::Outcome& outcome = admitted.outcome;
  if (facts.subnet_id == 0 || !outcome.reply) return admitted;
  switch (outcome.event.kind) {
    case engine::EventKind::Offer:
      admission.offered(facts.subnet_id, applicant, outcome.event.address, message.client_key(), now);
      break;
    case engine::EventKind::Grant:
    case engine::EventKind::Renew:
    case engine::EventKind::Rebind:
      admission.granted(facts.subnet_id, applicant, outcome.event.address, message.client_key());
      break;
    default:
      break;
  }
  return admitted;
}

// Not inlined: callgrind's --toggle-collect counts this function alone (bench/README.md).
[[gnu::noinline]] engine::Outcome admitted_exchange(engine::Engine& engine, engine::Admission& admission,
                                                    const wire::Message& message, const engine::Ingress& from,
                                                    TimePoint now, bool facts_given) {
  const engine::RequestFacts facts = engine.request_facts(message, from);
  const engine::Applicant applicant = engine::applicant_of(message, from, std::nullopt);
  if (facts_given) {
    return engine::handle_admitted(engine, admission, facts, message, from, applicant, now).outcome;
  }
  return choosing_twice(engine, admission, facts, message, from, applicant, now).outcome;
}

void run_admitted_dora(benchmark::State& state, bool facts_given) {
  const config::Config config = make_config();
  engine::Engine engine(config);
  engine::Admission admission{config, [](Ipv4, const ClientKey&) { return true; },
                              [](Ipv4, const ClientKey&) { return true; }};
  const engine::Ingress from = ingress();
  wire::Message discover = message(MessageType::Discover);
  wire::Message request = message(MessageType::Request);
  request.options.set_ipv4(option::kServerId, kServer);
  TimePoint now = time_from_unix_ms(1'800'000'000'000);
  std::uint32_t client = 0;
  for (auto _ : state) {
    set_client(discover, client);
    set_client(request, client);
    const engine::Outcome offer = admitted_exchange(engine, admission, discover, from, now, facts_given);
    if (!offer.reply) state.SkipWithError("no OFFER");
    request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
    const engine::Outcome ack = admitted_exchange(engine, admission, request, from, now, facts_given);
    if (ack.mutations.size() != 1) state.SkipWithError("no ACK");
    benchmark::DoNotOptimize(ack);
    ++client;
    now += std::chrono::milliseconds{1};
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DoraNewClient(benchmark::State& state) { run_dora(state, 0xffffffffu); }
void BM_DoraAdmittedFactsGiven(benchmark::State& state) { run_admitted_dora(state, true); }
void BM_DoraAdmittedChoosingTwice(benchmark::State& state) { run_admitted_dora(state, false); }
void BM_DoraReturningClient(benchmark::State& state) { run_dora(state, 50'000); }

// A fixed count keeps the table (and memory) bounded for the new-client case.
BENCHMARK(BM_DoraNewClient)->Iterations(500'000);
BENCHMARK(BM_DoraReturningClient)->Iterations(500'000);
BENCHMARK(BM_DoraAdmittedFactsGiven)->Iterations(50'000);
BENCHMARK(BM_DoraAdmittedChoosingTwice)->Iterations(50'000);

}  // namespace
