// The update transactions of RFC 4703 §5 against a fake authoritative server that applies RFC
// 2136 for real: add, conflict with another client, an operator's static records, removal,
// the four conflict modes, retries with back-off, TCP after truncation, TSIG refusals.
#include <gtest/gtest.h>

#include "fake_dns_server.hpp"
#include "landlord/ddns/updater.hpp"
#include "test_support.hpp"

namespace landlord::ddns {
namespace {

using testing::FakeDnsServer;
using testing::name;
using std::chrono::seconds;

using RdataSet = std::vector<std::vector<std::uint8_t>>;
const TimePoint kStart = time_from_unix_ms(1'800'000'000'000);

TsigKey lab_key() {
  auto keys = parse_key_file(testing::read_text("hmac-sha256.key"), "hmac-sha256.key");
  return keys->front();
}

Settings lab_settings() {
  Settings settings;
  settings.forward_zone = name("lab.test");
  settings.reverse_zones = {name("18.198.in-addr.arpa")};
  settings.server = {Ipv4(127, 0, 0, 1), 53053};
  settings.key = lab_key();
  return settings;
}

Binding client(int n, const char* fqdn, Ipv4 address) {
  Binding binding;
  binding.address = address;
  binding.identifier = {DhcidIdentifierType::kChaddr, {1, 2, 0, 0, 0, 0, static_cast<std::uint8_t>(n)}};
  binding.fqdn = name(fqdn);
  binding.lease_time = std::chrono::hours(1);
  return binding;
}

class Harness {
 public:
  explicit Harness(Settings settings = lab_settings())
      : server({name("lab.test"), name("18.198.in-addr.arpa")}, settings.key), updater(settings, 12345) {}

  // Delivers messages until nothing is in the air, then moves time to the next deadline;
  // bounded, so a transaction that never ends fails the test instead of hanging it.
  std::vector<Completion> run(int max_rounds = 200) {
    for (int round = 0; round < max_rounds; ++round) {
      auto outgoing = updater.take_outgoing();
      if (!outgoing.empty()) {
        for (const auto& message : outgoing) {
          EXPECT_EQ(message.server, updater.settings().server);
          auto answer = server.handle(message.bytes, message.transport == Transport::kTcp, unix_seconds(now));
          if (answer) updater.on_response(*answer, now);
        }
        continue;
      }
      const auto deadline = updater.next_deadline();
      if (!deadline) break;
      EXPECT_GE(*deadline, now);
      now = *deadline;
      updater.tick(now);
    }
    EXPECT_EQ(updater.queued(), 0u);
    return updater.take_completions();
  }

  Completion one(Operation operation, const Binding& binding) {
    EXPECT_TRUE(operation == Operation::kAdd ? updater.add(binding, now) : updater.remove(binding, now));
    auto completions = run();
    EXPECT_EQ(completions.size(), 1u);
    return completions.empty() ? Completion{} : completions.front();
  }

  FakeDnsServer server;
  Updater updater;
  TimePoint now = kStart;
};

std::vector<std::uint8_t> dhcid_of(const Binding& binding) { return dhcid_rdata(binding.identifier, binding.fqdn); }

TEST(Updater, AddWritesAPtrAndDhcidBesideBothNames) {
  Harness h;
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  const Completion done = h.one(Operation::kAdd, alpha);
  EXPECT_EQ(done.forward, RecordStatus::kDone);
  EXPECT_EQ(done.reverse, RecordStatus::kDone);
  EXPECT_EQ(done.cause, Cause::kNone);
  EXPECT_EQ(done.messages_sent, 2u);
  EXPECT_EQ(h.server.rdatas(alpha.fqdn, rr_type::kA), (RdataSet{a_rdata(alpha.address)}));
  EXPECT_EQ(h.server.rdatas(alpha.fqdn, rr_type::kDhcid), (RdataSet{dhcid_of(alpha)}));
  const Name reverse = name("5.0.18.198.in-addr.arpa");
  EXPECT_EQ(h.server.rdatas(reverse, rr_type::kPtr), (RdataSet{ptr_rdata(alpha.fqdn)}));
  EXPECT_EQ(h.server.rdatas(reverse, rr_type::kDhcid), (RdataSet{dhcid_of(alpha)}));
}

TEST(Updater, RenewalOfTheSameClientReplacesItsOwnRecords) {
  Harness h;
  Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  h.one(Operation::kAdd, alpha);
  alpha.address = Ipv4(198, 18, 0, 6);  // the same client, a new address
  const Completion done = h.one(Operation::kAdd, alpha);
  EXPECT_EQ(done.forward, RecordStatus::kDone);
  EXPECT_EQ(done.reverse, RecordStatus::kDone);
  EXPECT_EQ(done.messages_sent, 3u);  // NXDOMAIN refused (YXDOMAIN), then DHCID-checked replace, then PTR
  EXPECT_EQ(h.server.rdatas(alpha.fqdn, rr_type::kA), (RdataSet{a_rdata(alpha.address)}));
}

TEST(Updater, AnotherClientsNameIsNotTakenRfc4703Section5_3) {
  Harness h;
  h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  const Binding intruder = client(2, "alpha.lab.test", Ipv4(198, 18, 0, 9));
  const Completion refused = h.one(Operation::kAdd, intruder);
  EXPECT_EQ(refused.forward, RecordStatus::kConflict);
  EXPECT_EQ(refused.reverse, RecordStatus::kNotAttempted);  // no PTR for a name it does not hold
  EXPECT_EQ(h.server.rdatas(intruder.fqdn, rr_type::kA), (RdataSet{a_rdata(Ipv4(198, 18, 0, 5))}));
  EXPECT_FALSE(h.server.has(name("9.0.18.198.in-addr.arpa"), rr_type::kPtr));
  EXPECT_NE(refused.detail.find("NXRRSET"), std::string::npos) << refused.detail;
  // And the intruder's removal leaves the owner's records alone.
  const Completion removal = h.one(Operation::kRemove, intruder);
  EXPECT_EQ(removal.forward, RecordStatus::kConflict);
  EXPECT_TRUE(h.server.has(intruder.fqdn, rr_type::kA));
}

TEST(Updater, AnOperatorsStaticRecordsAreNeverOverwrittenOrDeleted) {
  Harness h;
  const Binding printer = client(3, "printer.lab.test", Ipv4(198, 18, 0, 7));
  h.server.put(printer.fqdn, rr_type::kA, a_rdata(Ipv4(198, 18, 0, 250)));
  const Name reverse = name("7.0.18.198.in-addr.arpa");
  h.server.put(reverse, rr_type::kPtr, ptr_rdata(name("static.lab.test")));
  const Completion add = h.one(Operation::kAdd, printer);
  EXPECT_EQ(add.forward, RecordStatus::kConflict);
  const Binding other = client(4, "other.lab.test", Ipv4(198, 18, 0, 7));
  const Completion ptr = h.one(Operation::kAdd, other);  // the name is free, the PTR is static
  EXPECT_EQ(ptr.forward, RecordStatus::kDone);
  EXPECT_EQ(ptr.reverse, RecordStatus::kConflict);
  EXPECT_EQ(h.server.rdatas(printer.fqdn, rr_type::kA), (RdataSet{a_rdata(Ipv4(198, 18, 0, 250))}));
  EXPECT_EQ(h.server.rdatas(reverse, rr_type::kPtr), (RdataSet{ptr_rdata(name("static.lab.test"))}));
  h.one(Operation::kRemove, printer);
  h.one(Operation::kRemove, other);
  EXPECT_TRUE(h.server.has(printer.fqdn, rr_type::kA));
  EXPECT_EQ(h.server.rdatas(reverse, rr_type::kPtr), (RdataSet{ptr_rdata(name("static.lab.test"))}));
  EXPECT_FALSE(h.server.has(other.fqdn, rr_type::kA));
}

TEST(Updater, StalePtrOfAnotherDhcpClientIsReplaced) {
  Harness h;
  h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  // The address goes to another client without alpha's removal (lost, or a restore).
  const Binding beta = client(2, "beta.lab.test", Ipv4(198, 18, 0, 5));
  const Completion done = h.one(Operation::kAdd, beta);
  EXPECT_EQ(done.reverse, RecordStatus::kDone);
  EXPECT_EQ(h.server.rdatas(name("5.0.18.198.in-addr.arpa"), rr_type::kPtr), (RdataSet{ptr_rdata(beta.fqdn)}));
}

TEST(Updater, RemovalDeletesADhcidAndPtrRfc4703Section5_5) {
  Harness h;
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  h.one(Operation::kAdd, alpha);
  const Completion removed = h.one(Operation::kRemove, alpha);
  EXPECT_EQ(removed.forward, RecordStatus::kDone);
  EXPECT_EQ(removed.reverse, RecordStatus::kDone);
  EXPECT_EQ(removed.messages_sent, 3u);
  EXPECT_EQ(h.server.size(), 0u);
}

TEST(Updater, DhcidStaysWhileTheClientHasAnotherAddressUnderTheName) {
  Harness h;
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  h.one(Operation::kAdd, alpha);
  h.server.put(alpha.fqdn, rr_type::kA, a_rdata(Ipv4(198, 18, 1, 5)));
  const Completion removed = h.one(Operation::kRemove, alpha);
  EXPECT_EQ(removed.forward, RecordStatus::kDone);
  EXPECT_EQ(h.server.rdatas(alpha.fqdn, rr_type::kA), (RdataSet{a_rdata(Ipv4(198, 18, 1, 5))}));
  EXPECT_TRUE(h.server.has(alpha.fqdn, rr_type::kDhcid));
}

TEST(Updater, NoCheckWithDhcidOverwritesAndCheckExistsTakesOnlyDhcpNames) {
  Settings settings = lab_settings();
  settings.conflict_mode = ConflictMode::kNoCheckWithDhcid;
  Harness no_check(settings);
  no_check.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  const Completion taken = no_check.one(Operation::kAdd, client(2, "alpha.lab.test", Ipv4(198, 18, 0, 9)));
  EXPECT_EQ(taken.forward, RecordStatus::kDone);
  EXPECT_EQ(no_check.server.rdatas(name("alpha.lab.test"), rr_type::kA), (RdataSet{a_rdata(Ipv4(198, 18, 0, 9))}));

  settings.conflict_mode = ConflictMode::kCheckExistsWithDhcid;
  Harness exists(settings);
  exists.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  const Binding second = client(2, "alpha.lab.test", Ipv4(198, 18, 0, 9));
  EXPECT_EQ(exists.one(Operation::kAdd, second).forward, RecordStatus::kDone);
  EXPECT_EQ(exists.server.rdatas(second.fqdn, rr_type::kDhcid), (RdataSet{dhcid_of(second)}));
  exists.server.put(name("static.lab.test"), rr_type::kA, a_rdata(Ipv4(198, 18, 0, 1)));
  EXPECT_EQ(exists.one(Operation::kAdd, client(3, "static.lab.test", Ipv4(198, 18, 0, 10))).forward,
            RecordStatus::kConflict);
}

TEST(Updater, NoCheckWithoutDhcidWritesNoDhcid) {
  Settings settings = lab_settings();
  settings.conflict_mode = ConflictMode::kNoCheckWithoutDhcid;
  Harness h(settings);
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  h.one(Operation::kAdd, alpha);
  EXPECT_TRUE(h.server.has(alpha.fqdn, rr_type::kA));
  EXPECT_FALSE(h.server.has(alpha.fqdn, rr_type::kDhcid));
  EXPECT_TRUE(h.server.has(name("5.0.18.198.in-addr.arpa"), rr_type::kPtr));
  h.one(Operation::kRemove, alpha);
  EXPECT_EQ(h.server.size(), 0u);
}

TEST(Updater, LostMessagesAndServfailAreRetriedWithBackoff) {
  Harness h;
  h.server.drop_next = 2;
  h.server.servfail_next = 1;
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  const Completion done = h.one(Operation::kAdd, alpha);
  EXPECT_EQ(done.forward, RecordStatus::kDone);
  EXPECT_EQ(done.reverse, RecordStatus::kDone);
  EXPECT_EQ(done.messages_sent, 5u);
  // Two timeouts of 2 s, back-offs of 1 s, 2 s and 4 s: 11 s.
  EXPECT_EQ(h.now - kStart, seconds(11));
}

TEST(Updater, GivesUpAfterMaxAttemptsWithTheCause) {
  Settings settings = lab_settings();
  settings.max_attempts = 3;
  Harness h(settings);
  h.server.drop_next = 100;
  const Completion failed = h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  EXPECT_EQ(failed.forward, RecordStatus::kFailed);
  EXPECT_EQ(failed.reverse, RecordStatus::kNotAttempted);
  EXPECT_EQ(failed.cause, Cause::kTimeout);
  EXPECT_EQ(failed.messages_sent, 3u);
  EXPECT_EQ(h.server.requests, 3);
}

TEST(Updater, TruncatedAnswerIsAskedAgainOverTcp) {
  Harness h;
  h.server.truncate_udp = true;
  const Completion done = h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
  EXPECT_EQ(done.forward, RecordStatus::kDone);
  EXPECT_EQ(done.reverse, RecordStatus::kDone);
  EXPECT_EQ(h.server.tcp_requests, 2);
  EXPECT_EQ(h.server.requests, 4);
}

TEST(Updater, RefusedNotAuthAndTsigErrorsFailAtOnceWithTheirCause) {
  for (const auto& [rcode, cause] : {std::pair{Rcode::kRefused, Cause::kRefused}, std::pair{Rcode::kNotAuth, Cause::kNotAuth},
                                     std::pair{Rcode::kNotZone, Cause::kNotZone}, std::pair{Rcode::kFormErr, Cause::kFormErr}}) {
    Harness h;
    h.server.always = rcode;
    const Completion failed = h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
    EXPECT_EQ(failed.forward, RecordStatus::kFailed);
    EXPECT_EQ(failed.cause, cause);
    EXPECT_EQ(failed.messages_sent, 1u);
  }
  for (const auto& [error, cause] : {std::pair{Rcode::kBadKey, Cause::kBadKey}, std::pair{Rcode::kBadSig, Cause::kBadSig},
                                     std::pair{Rcode::kBadTime, Cause::kBadTime}}) {
    Harness h;
    h.server.tsig_error = error;
    const Completion failed = h.one(Operation::kAdd, client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)));
    EXPECT_EQ(failed.cause, cause) << cause_text(failed.cause);
    EXPECT_EQ(failed.messages_sent, 1u);
  }
}

TEST(Updater, GarbageAnswersAreIgnoredAndReportedOnTimeout) {
  Settings settings = lab_settings();
  settings.max_attempts = 1;
  Harness h(settings);
  ASSERT_TRUE(h.updater.add(client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)), h.now));
  const auto sent = h.updater.take_outgoing();
  ASSERT_EQ(sent.size(), 1u);
  // Bytes that are not DNS but carry the id of the message in flight.
  const std::vector<std::uint8_t> garbage{static_cast<std::uint8_t>(sent[0].id >> 8), static_cast<std::uint8_t>(sent[0].id), 1, 2, 3};
  h.updater.on_response(garbage, h.now);
  EXPECT_EQ(h.updater.ignored_responses(), 1u);
  h.now += seconds(2);
  h.updater.tick(h.now);
  auto completions = h.updater.take_completions();
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].cause, Cause::kInvalidResponse);
  EXPECT_NE(completions[0].detail.find("unreadable response"), std::string::npos) << completions[0].detail;
}

TEST(Updater, AnswerSignedWithAnotherSecretIsIgnored) {
  Harness h;
  ASSERT_TRUE(h.updater.add(client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)), h.now));
  const auto sent = h.updater.take_outgoing();
  TsigKey forged_key = lab_key();
  forged_key.secret[0] ^= 1;
  FakeDnsServer forger({name("lab.test")}, std::nullopt);
  auto answer = forger.handle(sent[0].bytes, false, unix_seconds(h.now));  // unsigned NOERROR
  ASSERT_TRUE(answer.has_value());
  const auto forged = tsig_sign(*answer, forged_key, unix_seconds(h.now), kDefaultFudgeSeconds,
                                std::span<const std::uint8_t>(sent[0].bytes.data(), 0));
  h.updater.on_response(forged.bytes, h.now);
  EXPECT_EQ(h.updater.ignored_responses(), 1u);
  EXPECT_TRUE(h.updater.take_completions().empty());
}

TEST(Updater, UnsignedAnswerToASignedRequestIsIgnored) {
  Harness h;
  ASSERT_TRUE(h.updater.add(client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5)), h.now));
  const auto sent = h.updater.take_outgoing();
  std::vector<std::uint8_t> answer(12, 0);
  answer[0] = static_cast<std::uint8_t>(sent[0].id >> 8);
  answer[1] = static_cast<std::uint8_t>(sent[0].id);
  answer[2] = static_cast<std::uint8_t>(0x80 | kOpcodeUpdate << 3);
  answer[3] = static_cast<std::uint8_t>(Rcode::kNoError);
  h.updater.on_response(answer, h.now);
  EXPECT_EQ(h.updater.ignored_responses(), 1u);
  EXPECT_TRUE(h.updater.take_completions().empty());
  EXPECT_EQ(h.updater.in_flight(), 1u);
}

TEST(Updater, WorkForOneNameRunsInArrivalOrder) {
  Harness h;
  const Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  ASSERT_TRUE(h.updater.add(alpha, h.now));
  ASSERT_TRUE(h.updater.remove(alpha, h.now));
  ASSERT_TRUE(h.updater.add(client(2, "beta.lab.test", Ipv4(198, 18, 0, 6)), h.now));
  EXPECT_EQ(h.updater.in_flight(), 2u);  // alpha's add and beta's add; alpha's removal waits
  const auto completions = h.run();
  ASSERT_EQ(completions.size(), 3u);
  EXPECT_FALSE(h.server.has(alpha.fqdn, rr_type::kA));  // removed after it was added
  EXPECT_TRUE(h.server.has(name("beta.lab.test"), rr_type::kA));
}

TEST(Updater, BoundedInFlightAndQueue) {
  Settings settings = lab_settings();
  settings.max_in_flight = 2;
  settings.max_queued = 3;
  Harness h(settings);
  EXPECT_TRUE(h.updater.add(client(1, "a.lab.test", Ipv4(198, 18, 0, 1)), h.now));
  EXPECT_TRUE(h.updater.add(client(2, "b.lab.test", Ipv4(198, 18, 0, 2)), h.now));
  EXPECT_TRUE(h.updater.add(client(3, "c.lab.test", Ipv4(198, 18, 0, 3)), h.now));
  EXPECT_EQ(h.updater.in_flight(), 2u);
  EXPECT_FALSE(h.updater.add(client(4, "d.lab.test", Ipv4(198, 18, 0, 4)), h.now));
  auto completions = h.updater.take_completions();
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].cause, Cause::kQueueFull);
  EXPECT_EQ(h.run().size(), 3u);
}

TEST(Updater, NamesAndAddressesOutsideTheZonesAreReportedNotSent) {
  Harness h;
  ASSERT_TRUE(h.updater.add(client(1, "host.other.org", Ipv4(10, 0, 0, 1)), h.now));
  EXPECT_TRUE(h.updater.take_outgoing().empty());
  auto completions = h.updater.take_completions();
  ASSERT_EQ(completions.size(), 1u);
  EXPECT_EQ(completions[0].forward, RecordStatus::kFailed);
  EXPECT_EQ(completions[0].reverse, RecordStatus::kFailed);
  EXPECT_EQ(completions[0].cause, Cause::kOutsideZone);
  EXPECT_EQ(completions[0].detail, "host.other.org. is outside lab.test.");
}

TEST(Updater, TtlIsAThirdOfTheLeaseRfc4702Section5) {
  Harness h;
  Binding alpha = client(1, "alpha.lab.test", Ipv4(198, 18, 0, 5));
  alpha.lease_time = std::chrono::hours(3);
  ASSERT_TRUE(h.updater.add(alpha, h.now));
  const auto sent = h.updater.take_outgoing();
  auto parsed = parse_response(sent[0].bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->records[1].ttl, 3600u);
  EXPECT_EQ(ttl_for_lease(TtlPolicy{}, seconds(30)), 60u);           // the floor
  EXPECT_EQ(ttl_for_lease(TtlPolicy{}, std::chrono::hours(240)), 86400u);  // the ceiling
  EXPECT_EQ(ttl_for_lease(TtlPolicy{1.0 / 3.0, 300, 60, 86400}, std::chrono::hours(3)), 300u);
}

TEST(Settings, ValidateAndParse) {
  Settings settings = lab_settings();
  EXPECT_TRUE(validate(settings).has_value());
  settings.reverse_zones.push_back(name("lab.test"));
  EXPECT_EQ(validate(settings).error(), "reverse-zone 'lab.test.' is not below in-addr.arpa");
  EXPECT_EQ(parse_server_address("198.18.0.1"), (ServerAddress{Ipv4(198, 18, 0, 1), 53}));
  EXPECT_EQ(parse_server_address("198.18.0.1:5353"), (ServerAddress{Ipv4(198, 18, 0, 1), 5353}));
  EXPECT_FALSE(parse_server_address("198.18.0.1:0").has_value());
  EXPECT_FALSE(parse_server_address("198.18.0.1:65536").has_value());
  EXPECT_FALSE(parse_server_address("ns.lab.test").has_value());
  EXPECT_EQ(conflict_mode_from_text("check-exists-with-dhcid"), ConflictMode::kCheckExistsWithDhcid);
  EXPECT_FALSE(conflict_mode_from_text("check").has_value());
  EXPECT_STREQ(conflict_mode_text(ConflictMode::kNoCheckWithoutDhcid), "no-check-without-dhcid");
}

}  // namespace
}  // namespace landlord::ddns
