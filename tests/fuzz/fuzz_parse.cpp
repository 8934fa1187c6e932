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

// Builds into `limit` bytes and checks what any limit must give: nothing written past it, a
// message that parses, the same header and type, every option kept with its value in its order
// (53 and 82 aside) or counted as omitted.
struct Checked {
  BuildResult result;
  Message reparsed;
};
Checked build_and_check(const Message& message, std::span<std::uint8_t> buffer, std::size_t limit) {
  constexpr std::uint8_t kSentinel = 0xa5;
  std::fill(buffer.begin() + static_cast<std::ptrdiff_t>(limit), buffer.end(), kSentinel);
  const auto built = build(message, buffer.first(limit));
  LANDLORD_ASSERT(built.has_value());  // 53 (1 byte, checked by parse) always fits >= 244 bytes
  LANDLORD_ASSERT(built->size <= limit);
  LANDLORD_ASSERT(std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(limit), buffer.end(),
                              [](std::uint8_t byte) { return byte == kSentinel; }));
  const auto reparsed = parse(buffer.first(built->size));
  LANDLORD_ASSERT(reparsed.has_value());
  check_invariants(*reparsed);
  LANDLORD_ASSERT(same_header(*reparsed, message));
  LANDLORD_ASSERT(reparsed->type() == message.type());
  LANDLORD_ASSERT(reparsed->options.size() + built->omitted == message.options.size());
  for (const std::uint8_t code : reparsed->options.codes()) {
    LANDLORD_ASSERT(same_value(reparsed->options, message.options, code));
  }
  Options kept;  // the original without what was omitted: order must match it
  for (const std::uint8_t code : message.options.codes()) {
    if (reparsed->options.has(code)) LANDLORD_ASSERT(kept.set(code, message.options.get(code)));
  }
  LANDLORD_ASSERT(order_kept_apart_from_53_and_82(kept, reparsed->options));
  return {*built, *reparsed};
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

  // Smaller limits: option 57's minimum and the smallest buffer that holds 53 (with 52) and END.
  std::array<std::uint8_t, kMaxPacketSize + 64> buffer;
  (void)build_and_check(message, buffer, reply_size_limit(std::nullopt));
  (void)build_and_check(message, buffer, 247);

  // The largest limit: whatever parsed fits again unless RFC 3396 instances were packed tighter
  // than build packs them; then the message comes back equal (82 put last, 53 first if overloaded).
  const auto [built, reparsed] = build_and_check(message, buffer, kMaxPacketSize);
  if (built.omitted != 0) return 0;
  if (built.overload == 0) {
    Message expected = message;
    if (message.options.has(option::kRelayAgentInfo)) {
      expected.options.erase(option::kRelayAgentInfo);
      LANDLORD_ASSERT(expected.options.set(option::kRelayAgentInfo,
                                           message.options.get(option::kRelayAgentInfo)));
    }
    LANDLORD_ASSERT(reparsed == expected);
  }

  // Building the rebuilt message gives the same bytes: build is stable on its own output.
  std::array<std::uint8_t, kMaxPacketSize> again;
  const auto rebuilt = build(reparsed, again);
  LANDLORD_ASSERT(rebuilt.has_value() && rebuilt->size == built.size);
  LANDLORD_ASSERT(std::equal(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(built.size),
                             again.begin()));
  return 0;
}
