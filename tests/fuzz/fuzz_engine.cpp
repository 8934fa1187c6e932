// libFuzzer target for parse -> engine -> build with a random config. The input's first bytes
// choose a config (subnets, pools, lease times, reservations, relays, authoritative or not),
// written as YAML and loaded by the real loader; the rest is a sequence of client messages
// (type, client, addresses, options, link, time passing), each built to bytes, parsed back and
// handled by the engine. Every reply must build within its size limit and parse back to the
// same type and xid; every lease named by an outcome lies in a configured subnet; the
// allocator's free set agrees with the records of every address touched; a client holds one
// bound lease per subnet. Also compiled into fuzz_engine_replay (the normal build).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/wire/message.hpp"

namespace {

using namespace landlord;
namespace option = wire::option;
using wire::MessageType;

// The input as a stream of small numbers; zeros once it runs out.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return offset_ < size_ ? data_[offset_++] : 0; }
  std::uint32_t below(std::uint32_t limit) { return (byte() | (byte() << 8u)) % limit; }
  bool flag() { return (byte() & 1u) != 0; }
  bool empty() const { return offset_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

constexpr int kSubnets = 3;  // 198.18.<16 * i>.0/<prefix>: never overlapping

Ipv4 subnet_base(int index) { return Ipv4{198, 18, static_cast<std::uint8_t>(16 * index), 0}; }

std::string config_yaml(Bytes& in) {
  std::string yaml = "server:\n  authoritative: " + std::string(in.flag() ? "true" : "false") + "\n";
  // At least 8 s: T1 (50 %) and T2 (87.5 %) are whole seconds and must differ.
  yaml += "lease:\n  time: " + std::to_string(8 + in.below(7200)) + "s\n";
  yaml += "  offer-hold: " + std::to_string(1 + in.below(60)) + "s\n";
  yaml += "  decline-hold: " + std::to_string(1 + in.below(600)) + "s\n";
  if (in.flag()) yaml += "  min: 8s\n  max: 4h\n";
  yaml += "subnets:\n";
  const int subnets = 1 + static_cast<int>(in.below(kSubnets));
  for (int index = 0; index < subnets; ++index) {
    const int prefix = 24 + static_cast<int>(in.below(7));  // /24 to /30
    const std::uint32_t hosts = (1u << (32 - prefix)) - 2;
    const std::uint32_t base = subnet_base(index).to_uint();
    const auto host = [&](std::uint32_t n) { return Ipv4{base + 1 + n % hosts}.to_string(); };
    yaml += "  - subnet: " + subnet_base(index).to_string() + "/" + std::to_string(prefix) + "\n";
    const std::uint32_t first = in.below(hosts);
    const std::uint32_t last = std::min(hosts - 1, first + in.below(hosts));
    yaml += "    pools: [" + host(first) + "-" + host(last) + "]\n";
    if (index > 0) yaml += "    relays: [198.19." + std::to_string(index) + ".1]\n";
    if (in.flag()) yaml += "    lease: {time: " + std::to_string(8 + in.below(600)) + "s}\n";
    if (in.flag()) {
      yaml += "    reservations:\n      - {mac: \"02:00:00:00:00:0" + std::to_string(in.below(8)) +
              "\", address: " + host(in.below(hosts)) + "}\n";
    }
  }
  return yaml;
}

struct Run {
  config::Config config;
  engine::Engine engine;
  TimePoint now = time_from_unix_ms(1'800'000'000'000);
  std::size_t acks = 0;
  explicit Run(config::Config loaded) : config(std::move(loaded)), engine(config) {}

  bool configured(Ipv4 address) const {
    return std::any_of(config.subnets.begin(), config.subnets.end(),
                       [&](const auto& subnet) { return subnet.subnet.contains(address); });
  }

  // An address the messages may name: mostly inside the subnets, sometimes anywhere.
  Ipv4 address(Bytes& in) const {
    const auto& subnet = config.subnets[in.below(static_cast<std::uint32_t>(config.subnets.size()))];
    if (in.byte() == 0xff) return Ipv4{in.below(65536) << 16 | in.below(65536)};
    return Ipv4{subnet.subnet.network.to_uint() + in.below(1u << (32 - subnet.subnet.prefix_length))};
  }

  void step(Bytes& in) {
    wire::Message message;
    const auto type = static_cast<MessageType>(1 + in.below(8));  // server types too
    const std::uint8_t client = static_cast<std::uint8_t>(in.below(8));
    message.xid = in.below(65536);
    message.chaddr = {2, 0, 0, 0, 0, client};
    message.flags = in.flag() ? wire::kBroadcastFlag : 0;
    message.options.set_u8(option::kMessageType, static_cast<std::uint8_t>(type));
    if (in.flag()) {
      const std::uint8_t id[] = {1, 2, 0, 0, 0, 0, client};
      message.options.set(option::kClientId, id);
    }
    const std::uint8_t fields = in.byte();
    if (fields & 1u) message.options.set_ipv4(option::kRequestedAddress, address(in));
    if (fields & 2u) message.ciaddr = address(in);
    if (fields & 4u) message.options.set_ipv4(option::kServerId, in.flag() ? Ipv4{198, 18, 0, 1} : address(in));
    if (fields & 8u) message.options.set_u32(option::kLeaseTime, in.below(65536) * in.below(65536));
    if (fields & 16u) message.options.set_u16(option::kMaxMessageSize, in.below(65536));
    if (fields & 32u) {
      const std::uint8_t agent[] = {1, 2, 0, client, 2, 1, in.byte()};
      message.options.set(option::kRelayAgentInfo, agent);
    }
    engine::Ingress ingress;
    ingress.interface_index = 2;
    ingress.interface_name = "fuzz0";
    ingress.interface_address = Ipv4{198, 18, 0, 1};
    ingress.to_broadcast = in.flag();
    ingress.source_address = message.ciaddr;
    if (fields & 64u) {
      message.giaddr = in.flag() ? Ipv4{198, 19, static_cast<std::uint8_t>(in.below(kSubnets)), 1} : address(in);
      message.hops = 1;
      ingress.source_address = message.giaddr;
      ingress.source_port = engine::kServerPort;
    }

    // Bytes first: the engine sees what a socket would give it.
    std::array<std::uint8_t, wire::kMaxPacketSize> packet;
    const auto built = wire::build(message, packet);
    LANDLORD_ASSERT(built.has_value());
    const auto parsed = wire::parse(std::span(packet).first(built->size));
    LANDLORD_ASSERT(parsed.has_value());

    now += Duration{in.below(4) == 0 ? 1000 * in.below(4000) : in.below(2000)};
    check(engine.handle(*parsed, ingress, now), *parsed);
    for (const auto& record : engine.reclaim(now, 64)) check_record(record);
  }

  void check_record(const lease::Lease& record) const {
    LANDLORD_ASSERT(configured(record.address));
    LANDLORD_ASSERT(engine.free_set_agrees(record.address));
  }

  void check(const engine::Outcome& outcome, const wire::Message& request) {
    for (const auto& record : outcome.mutations) check_record(record);
    if (outcome.event.address != Ipv4{} && configured(outcome.event.address)) {
      LANDLORD_ASSERT(engine.free_set_agrees(outcome.event.address));
    }
    if (!outcome.reply) return;
    const wire::Message& reply = outcome.reply->message;
    LANDLORD_ASSERT(reply.op == wire::Op::BootReply && reply.xid == request.xid);
    const auto type = reply.type();
    LANDLORD_ASSERT(type == MessageType::Offer || type == MessageType::Ack || type == MessageType::Nak);
    std::array<std::uint8_t, wire::kMaxPacketSize> packet;
    const std::size_t limit = outcome.reply->max_size;
    LANDLORD_ASSERT(limit >= 548 && limit <= 1500 - 28);
    const auto built = wire::build(reply, std::span(packet).first(limit));
    LANDLORD_ASSERT(built.has_value() && built->size <= limit);
    const auto again = wire::parse(std::span(packet).first(built->size));
    LANDLORD_ASSERT(again.has_value() && again->type() == type && again->xid == reply.xid);
    if (type == MessageType::Ack && !reply.yiaddr.is_zero()) {
      ++acks;
      LANDLORD_ASSERT(configured(reply.yiaddr));
      const auto held = engine.find(request.client_key());
      LANDLORD_ASSERT(held.has_value() && held->state == lease::LeaseState::Bound);
    }
  }
};

std::size_t run(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const std::string yaml = config_yaml(in);
  auto loaded = config::load_string(yaml, "fuzz.yaml");
  // The generator writes only valid files: one refused is a loader or generator bug.
  if (!loaded) std::fprintf(stderr, "%s%s", yaml.c_str(), config::format_errors(loaded.error()).c_str());
  LANDLORD_ASSERT(loaded.has_value());
  Run state(std::move(*loaded));
  for (int steps = 0; steps < 512 && !in.empty(); ++steps) state.step(in);
  return state.acks;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)run(data, size);
  return 0;
}

// For the replay: a seed named valid-* must get at least one lease ACKed, so an engine that
// answers nothing fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) {
  return run(data, size) > 0;
}
