// libFuzzer target for the codec: any bytes either fail to parse with a typed error, or parse
// to a message that builds, parses again to the same message and builds to the same bytes.
// Also compiled into fuzz_corpus_replay (tests/unit/wire) so every test run checks the corpus.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "landlord/base/assert.hpp"
#include "landlord/wire/message.hpp"

namespace {

using namespace landlord;
using namespace landlord::wire;

bool same_header(const Message& a, const Message& b) {
  return a.op == b.op && a.htype == b.htype && a.hlen == b.hlen && a.hops == b.hops &&
         a.xid == b.xid && a.secs == b.secs && a.flags == b.flags && a.ciaddr == b.ciaddr &&
         a.yiaddr == b.yiaddr && a.siaddr == b.siaddr && a.giaddr == b.giaddr &&
         a.chaddr == b.chaddr && a.sname == b.sname && a.file == b.file;
}

bool same_value(const Options& a, const Options& b, std::uint8_t code) {
  const auto x = a.get(code);
  const auto y = b.get(code);
  return a.has(code) == b.has(code) && std::equal(x.begin(), x.end(), y.begin(), y.end());
}

// Build's documented reordering: 82 is written last in the options field, and when it overloads,
// 53 first. Every other option keeps its relative order.
bool order_kept_apart_from_53_and_82(const Options& original, const Options& rebuilt) {
  const auto movable = [](std::uint8_t code) {
    return code == option::kMessageType || code == option::kRelayAgentInfo;
  };
  auto next = rebuilt.codes().begin();
  for (const std::uint8_t code : original.codes()) {
    if (movable(code)) continue;
    next = std::find_if(next, rebuilt.codes().end(), [&](std::uint8_t c) { return !movable(c); });
    if (next == rebuilt.codes().end() || *next != code) return false;
    ++next;
  }
  return std::none_of(next, rebuilt.codes().end(), [&](std::uint8_t c) { return !movable(c); });
}

void check_invariants(const Message& message) {
  LANDLORD_ASSERT(message.type().has_value());
  LANDLORD_ASSERT(message.hlen <= HardwareAddress::kMaxLength);
  LANDLORD_ASSERT(!message.options.has(option::kOverload));
  std::array<bool, 256> seen{};
  for (const std::uint8_t code : message.options.codes()) {
    LANDLORD_ASSERT(code != option::kPad && code != option::kEnd && !seen[code]);
    LANDLORD_ASSERT(message.options.has(code));
    seen[code] = true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Message message;
  if (const auto error = parse_into({data, size}, message)) {
    LANDLORD_ASSERT(error->offset <= std::max(size, kMaxPacketSize));
    LANDLORD_ASSERT(!to_string(error->kind).empty());
    return 0;
  }
  check_invariants(message);

  std::array<std::uint8_t, kMaxPacketSize> buffer;
  const auto built = build(message, buffer);
  LANDLORD_ASSERT(built.has_value());  // 53 always fits in kMaxPacketSize
  LANDLORD_ASSERT(built->size <= buffer.size());
  const std::span<const std::uint8_t> bytes{buffer.data(), built->size};
  const auto reparsed = parse(bytes);
  LANDLORD_ASSERT(reparsed.has_value());
  check_invariants(*reparsed);

  LANDLORD_ASSERT(same_header(*reparsed, message));
  LANDLORD_ASSERT(reparsed->options.size() + built->omitted == message.options.size());
  for (const std::uint8_t code : reparsed->options.codes()) {
    LANDLORD_ASSERT(same_value(reparsed->options, message.options, code));
  }
  LANDLORD_ASSERT(reparsed->type() == message.type());
  if (built->omitted != 0) return 0;  // what was left out is counted; the rest was checked

  LANDLORD_ASSERT(order_kept_apart_from_53_and_82(message.options, reparsed->options));
  if (built->overload == 0) {
    // Nothing moved but 82: the message comes back equal once 82 is put last.
    Message expected = message;
    if (message.options.has(option::kRelayAgentInfo)) {
      expected.options.erase(option::kRelayAgentInfo);
      LANDLORD_ASSERT(expected.options.set(option::kRelayAgentInfo,
                                           message.options.get(option::kRelayAgentInfo)));
    }
    LANDLORD_ASSERT(*reparsed == expected);
  }

  // Building the rebuilt message gives the same bytes: build is stable on its own output.
  std::array<std::uint8_t, kMaxPacketSize> again;
  const auto rebuilt = build(*reparsed, again);
  LANDLORD_ASSERT(rebuilt.has_value() && rebuilt->size == built->size);
  LANDLORD_ASSERT(std::equal(bytes.begin(), bytes.end(), again.begin()));
  return 0;
}
