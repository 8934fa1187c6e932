// libFuzzer target for everything the DNS updater (src/ddns) parses from outside: the first
// byte picks the parser, the rest is its input.
//   0: a DNS response: parse_response, TSIG verification, and the bytes handed to an Updater
//      as the answer to the message it has in flight (its id patched in), then its timeout
//   1: a client FQDN option 81: parse, encode and parse back to the same labels; the name
//      decision with and without a hostname keeps its promises
//   2: a BIND key file
// Never a crash, a hang or an assertion. Also compiled into fuzz_ddns_replay (the normal build)
// over the committed corpus in tests/fuzz/corpus-ddns.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "landlord/base/assert.hpp"
#include "landlord/ddns/fqdn.hpp"
#include "landlord/ddns/tsig.hpp"
#include "landlord/ddns/updater.hpp"

namespace {

using namespace landlord;
using namespace landlord::ddns;

Name must(std::string_view text) {
  auto name = Name::from_text(text);
  LANDLORD_ASSERT(name.has_value());
  return *name;
}

Settings lab_settings(bool signed_updates) {
  Settings settings;
  settings.forward_zone = must("lab.test");
  settings.reverse_zones = {must("18.198.in-addr.arpa")};
  settings.max_attempts = 2;
  if (signed_updates) {
    settings.key = TsigKey{must("ddns-key"), TsigAlgorithm::kHmacSha256, std::vector<std::uint8_t>(32, 0x5a)};
  }
  return settings;
}

bool response(std::span<const std::uint8_t> bytes, bool signed_updates) {
  const auto parsed = parse_response(bytes);
  if (parsed) {
    LANDLORD_ASSERT(parsed->records.size() ==
                    std::size_t{parsed->counts[1]} + parsed->counts[2] + parsed->counts[3]);
    if (parsed->tsig) {
      LANDLORD_ASSERT(parsed->tsig_offset >= 12 && parsed->tsig_offset < bytes.size());
      const std::vector<std::uint8_t> request_mac(32, 0x11);
      (void)tsig_verify(bytes, *parsed, *lab_settings(true).key, std::span<const std::uint8_t>(request_mac),
                        1'800'000'000);
      (void)tsig_verify(bytes, *parsed, *lab_settings(true).key, std::nullopt, 1'800'000'000);
    }
  }
  // The same bytes as the answer to an update in flight.
  Updater updater(lab_settings(signed_updates), 7);
  const TimePoint now = time_from_unix_ms(1'800'000'000'000);
  Binding binding;
  binding.address = Ipv4(198, 18, 0, 5);
  binding.identifier = {DhcidIdentifierType::kChaddr, {1, 2, 0, 0, 0, 0, 1}};
  binding.fqdn = must("alpha.lab.test");
  binding.lease_time = std::chrono::hours(1);
  LANDLORD_ASSERT(updater.add(binding, now));
  const auto sent = updater.take_outgoing();
  LANDLORD_ASSERT(sent.size() == 1);
  std::vector<std::uint8_t> answer(bytes.begin(), bytes.end());
  if (answer.size() >= 2) {
    answer[0] = static_cast<std::uint8_t>(sent[0].id >> 8);
    answer[1] = static_cast<std::uint8_t>(sent[0].id);
  }
  updater.on_response(answer, now);
  updater.on_response(answer, now);  // a duplicate is ignored
  for (int i = 0; i < 8 && updater.queued() > 0; ++i) {
    const auto deadline = updater.next_deadline();
    LANDLORD_ASSERT(deadline.has_value() && *deadline >= now);
    updater.tick(*deadline);
    (void)updater.take_outgoing();
  }
  LANDLORD_ASSERT(updater.queued() == 0);
  const auto completions = updater.take_completions();
  LANDLORD_ASSERT(completions.size() == 1);
  LANDLORD_ASSERT(completions[0].messages_sent >= 1 && completions[0].messages_sent <= 8);
  return parsed.has_value();
}

bool client_fqdn(std::span<const std::uint8_t> bytes) {
  const auto parsed = parse_client_fqdn(bytes);
  if (parsed) {
    const auto reparsed = parse_client_fqdn(encode_client_fqdn(*parsed));
    LANDLORD_ASSERT(reparsed.has_value());
    LANDLORD_ASSERT(reparsed->flags == parsed->flags && reparsed->labels == parsed->labels);
    if (!parsed->labels.empty()) LANDLORD_ASSERT(reparsed->fully_qualified == parsed->fully_qualified);
  }
  const Settings settings = lab_settings(false);
  const std::string_view hostname(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (const NameRequest& request : {NameRequest{bytes, std::nullopt, std::nullopt},
                                     NameRequest{bytes, hostname, std::nullopt},
                                     NameRequest{std::nullopt, hostname, hostname}}) {
    const NameDecision decision = decide_name(settings, request);
    if (decision.forward || decision.reverse) LANDLORD_ASSERT(decision.fqdn.has_value());
    if (decision.forward) LANDLORD_ASSERT(decision.fqdn->is_within(settings.forward_zone));
    if (decision.fqdn) {
      LANDLORD_ASSERT(decision.fqdn->wire().size() <= kMaxNameWireLength);
      for (const auto& label : decision.fqdn->labels()) {
        LANDLORD_ASSERT(!label.empty() && label.size() <= kMaxLabelLength);
        LANDLORD_ASSERT(label.front() != '-' && label.back() != '-');
        for (const char c : label) LANDLORD_ASSERT((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
      }
    }
    if (decision.reply_fqdn) {
      const auto reply = parse_client_fqdn(encode_client_fqdn(*decision.reply_fqdn));
      LANDLORD_ASSERT(reply.has_value());
      LANDLORD_ASSERT(reply->s() == decision.forward);
    }
  }
  return parsed.has_value();
}

bool key_file(std::span<const std::uint8_t> bytes) {
  const auto keys = parse_key_file(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "fuzz.key");
  if (!keys) {
    LANDLORD_ASSERT(keys.error().rfind("fuzz.key:", 0) == 0);
    return false;
  }
  for (const auto& key : *keys) LANDLORD_ASSERT(!key.secret.empty());
  return true;
}

bool run(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return false;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: return response(rest, true);
    case 1: return client_fqdn(rest);
    case 2: return key_file(rest);
    default: return response(rest, false);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)run(data, size);
  return 0;
}

// For the replay: a seed named valid-* must parse, so a parser that refuses everything fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) { return run(data, size); }
