// Whole-table commands read the lease table in pieces between other work (table_scan.hpp): the
// answers stay complete and ordered across many pieces, and the event loop serves requests
// while such a command is in progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "fake_daemon.hpp"
#include "landlord/wire/options.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;
using Json = nlohmann::json;

const char* kLargePool = R"(store: {type: memory}
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.0.10-198.18.255.250]
  - subnet: 198.19.0.0/24
    pools: [198.19.0.10-198.19.0.250]
)";

// Three pieces and a part: enough to make every command take several turns.
constexpr std::size_t kRecords = 3 * kScanPiece + 123;

// A one-hour lease granted now, as the store would hand it back (T1 30 min, T2 52 min).
lease::Lease stored_lease(const FakeDaemon& daemon, Ipv4 address, const std::array<std::uint8_t, 6>& mac,
                          lease::LeaseState state, std::uint32_t subnet_id) {
  lease::Lease lease;
  lease.address = address;
  lease.hardware = HardwareAddress{1, mac};
  lease.client = ClientKey::from({}, lease.hardware);
  lease.state = state;
  lease.subnet_id = subnet_id;
  lease.granted_at = daemon.now_;
  lease.lease_time = std::chrono::hours{1};
  lease.renew_time = std::chrono::minutes{30};
  lease.rebind_time = std::chrono::minutes{52};
  lease.fencing_token = 1;
  return lease;
}

// kRecords leases in subnet 1, restored in shuffled address order (so table order is not address
// order), every seventh released; then one bound lease in subnet 2. Returns the addresses.
std::vector<Ipv4> fill(FakeDaemon& daemon) {
  std::vector<Ipv4> addresses;
  for (std::uint32_t i = 0; i < kRecords; ++i) addresses.push_back(Ipv4{Ipv4(198, 18, 0, 10).to_uint() + i});
  std::shuffle(addresses.begin(), addresses.end(), std::mt19937{17});
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::uint32_t n = addresses[i].to_uint();
    const std::array<std::uint8_t, 6> mac{0x02, 0x01, 0, static_cast<std::uint8_t>(n >> 16),
                                          static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
    daemon.engine().restore(stored_lease(daemon, addresses[i], mac,
                                         i % 7 == 0 ? lease::LeaseState::Released : lease::LeaseState::Bound, 1));
  }
  const Ipv4 other(198, 19, 0, 20);
  daemon.engine().restore(stored_lease(daemon, other, {0x02, 0x02, 0, 0, 0, 1}, lease::LeaseState::Bound, 2));
  addresses.push_back(other);
  std::sort(addresses.begin(), addresses.end());
  return addresses;
}

std::vector<Ipv4> addresses_of(const Json& leases) {
  std::vector<Ipv4> out;
  for (const auto& lease : leases) out.push_back(*Ipv4::parse(lease["ip-address"].get<std::string>()));
  return out;
}

TEST(TableScan, GetAllListsEveryLeaseOnceInAddressOrder) {
  FakeDaemon daemon(kLargePool);
  const auto expected = fill(daemon);
  const auto all = daemon.ask(R"({"command": "lease4-get-all"})");
  ASSERT_EQ(all["result"], kSuccess);
  EXPECT_EQ(all["text"], std::to_string(expected.size()) + " IPv4 lease(s) found.");
  EXPECT_EQ(addresses_of(all["arguments"]["leases"]), expected);  // once each, in order
  EXPECT_EQ(all["arguments"]["leases"][0]["hw-address"], "02:01:00:12:00:0a");
  // Every piece's batch, the ordering, and the text's pieces went to the worker; the text (about
  // 4 MB) came in pieces.
  EXPECT_GE(daemon.offloaded, 4 + 1 + 2);
  EXPECT_GT(daemon.stream_pieces, 4u);

  const auto bound = daemon.ask(R"({"command": "lease4-get-all", "arguments": {"subnets": [1], "state": "bound"}})");
  std::size_t bound_count = 0;
  for (const auto& lease : bound["arguments"]["leases"]) {
    EXPECT_EQ(lease["subnet-id"], 1);
    EXPECT_EQ(lease["lease-state"], "bound");
    ++bound_count;
  }
  EXPECT_EQ(bound_count, kRecords - (kRecords + 6) / 7);
  // The kea-ctrl-agent form wraps the serialised answer in a list.
  const auto wrapped = daemon.ask(R"({"command": "lease4-get-all", "service": ["dhcp4"], "arguments": {"subnets": [2]}})");
  ASSERT_TRUE(wrapped.is_array());
  EXPECT_EQ(wrapped[0]["arguments"]["leases"].size(), 1u);
}

TEST(TableScan, PagesCoverEveryLeaseOnceInAddressOrder) {
  FakeDaemon daemon(kLargePool);
  const auto expected = fill(daemon);
  for (const std::size_t limit : {1000u, 4999u, 65536u}) {
    std::vector<Ipv4> paged;
    std::string from = "start";
    for (int pages = 0; pages < 100; ++pages) {
      const auto page = daemon.ask(R"({"command": "lease4-get-page", "arguments": {"from": ")" + from +
                                   R"(", "limit": )" + std::to_string(limit) + "}}");
      if (page["result"] == kEmpty) {
        EXPECT_EQ(page["arguments"]["count"], 0);
        break;
      }
      ASSERT_EQ(page["result"], kSuccess) << page["text"];
      const auto got = addresses_of(page["arguments"]["leases"]);
      EXPECT_EQ(page["arguments"]["count"], got.size());
      EXPECT_EQ(got.size(), std::min(limit, expected.size() - paged.size()));
      paged.insert(paged.end(), got.begin(), got.end());
      from = got.back().to_string();
    }
    EXPECT_EQ(paged, expected) << "limit " << limit;
  }
}

// DISCOVER then REQUEST from a new client, as the event loop would handle them between turns.
bool dora(FakeDaemon& daemon, std::uint8_t last_byte) {
  wire::Message discover;
  discover.xid = last_byte;
  discover.chaddr = {0x02, 0x09, 0, 0, 0, last_byte};
  discover.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Discover));
  engine::Ingress ingress;
  ingress.interface_address = Ipv4(198, 19, 0, 1);
  ingress.to_broadcast = true;
  const auto offer = daemon.engine().handle(discover, ingress, daemon.now_);
  if (!offer.reply) return false;
  wire::Message request = discover;
  request.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Request));
  request.options.set_ipv4(wire::option::kServerId, Ipv4(198, 19, 0, 1));
  request.options.set_ipv4(wire::option::kRequestedAddress, offer.reply->message.yiaddr);
  const auto ack = daemon.engine().handle(request, ingress, daemon.now_);
  return ack.reply && ack.reply->message.type() == wire::MessageType::Ack;
}

// A whole-table command takes one piece per turn of the event loop; requests are served in
// between, and each lease is shown as it was when its piece was read.
TEST(TableScan, RequestsAreServedBetweenThePiecesOfAWholeTableCommand) {
  FakeDaemon daemon(kLargePool);
  const auto expected = fill(daemon);
  // The record in the first table position (read in the first piece) and one in the last piece.
  std::optional<lease::Lease> early, late;
  daemon.engine().for_each_lease_in(0, 1, [&](const lease::Lease& lease) { early = lease; });
  daemon.engine().for_each_lease_in(kRecords - 1, kRecords, [&](const lease::Lease& lease) { late = lease; });
  ASSERT_TRUE(early && late && early->state == lease::LeaseState::Released && late->state == lease::LeaseState::Bound);

  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "lease4-get-all"})", [&](Answer response) { answer = std::move(response); });
  ASSERT_FALSE(answer) << "a whole-table command answered in one turn";
  ASSERT_EQ(daemon.deferred.size(), 1u);  // the first piece, waiting its turn
  daemon.run_deferred([&, ran = 0]() mutable { return ran++ == 1; });  // one piece
  ASSERT_FALSE(answer);

  // Between pieces: a client gets a lease, an operator revokes the lease read last (its piece
  // not read yet) and changes the one read first (read already).
  EXPECT_TRUE(dora(daemon, 1));
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": ")" + late->address.to_string() + "\"}}")["result"],
            kSuccess);
  ASSERT_FALSE(answer);
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-add", "arguments": {"ip-address": ")" + early->address.to_string() +
                       R"(", "hw-address": "02:09:00:00:00:02"}})")["result"], kSuccess);

  std::size_t turns = 1;
  while (!answer && !daemon.deferred.empty()) turns += daemon.run_deferred([&, ran = 0]() mutable { return ran++ == 1; });
  ASSERT_TRUE(answer);
  ASSERT_TRUE(answer->stream);  // the list is written out in pieces as the transport asks
  EXPECT_GE(turns, 4u + 1u);    // four pieces at least, then the worker's answer
  const Json parsed = daemon.parsed(*answer);
  const auto& leases = parsed["arguments"]["leases"];
  const auto listed = addresses_of(leases);
  ASSERT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  EXPECT_EQ(std::set<Ipv4>(listed.begin(), listed.end()).size(), listed.size());  // each address once
  for (const Ipv4 address : expected) EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), address)) << address.to_string();
  for (const auto& lease : leases) {
    if (lease["ip-address"] == early->address.to_string()) {
      EXPECT_EQ(lease["lease-state"], "released");  // as its piece read it, before lease4-add
    }
    if (lease["ip-address"] == late->address.to_string()) {
      EXPECT_EQ(lease["lease-state"], "released");  // read after lease4-del
    }
  }
}

// lease4-wipe revokes in pieces too: a commit per piece of at most 1,024 records, requests served
// between pieces, at most four pieces at the store at once (the next piece once one is answered:
// the store's commit queue takes 16,384 records and refuses beyond, which stopped a wipe of
// 100,000 leases after 20 to 50 pieces), and the answer only once every piece is durable.
TEST(TableScan, WipeRevokesInPiecesAndAnswersOnceEveryPieceIsDurable) {
  FakeDaemon daemon(kLargePool);
  fill(daemon);
  const std::size_t bound = kRecords - (kRecords + 6) / 7;  // subnet 1's; subnet 2's one is kept
  const std::size_t pieces = (bound + 1023) / 1024;
  ASSERT_GT(pieces, 8u);
  daemon.hold_commits = true;
  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1, "confirm": true}})",
                                [&](Answer response) { answer = std::move(response); });
  // The scan's pieces and two pieces of revocations; then a client is served and the API answers.
  daemon.run_deferred([&] { return daemon.commit_sizes.size() == 2; });
  ASSERT_EQ(daemon.commit_sizes.size(), 2u);
  EXPECT_TRUE(dora(daemon, 3));
  EXPECT_EQ(daemon.ask(R"({"command": "status-get"})")["result"], kSuccess);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 19, 0, 20))->state, lease::LeaseState::Bound);
  // With every commit held, the wipe stops at four pieces at the store and waits.
  daemon.run_deferred();
  ASSERT_TRUE(daemon.deferred.empty());
  ASSERT_EQ(daemon.held.size(), 4u) << "pieces at the store while none is answered";
  ASSERT_EQ(daemon.commit_sizes.size(), 4u);
  // One piece answered: one more made, in a later turn.
  auto first = std::move(daemon.held.front());
  daemon.held.erase(daemon.held.begin());
  first.second({});
  EXPECT_EQ(daemon.held.size(), 3u);
  daemon.run_deferred();
  EXPECT_EQ(daemon.held.size(), 4u);
  // The rest, answering whatever is held until the wipe has made every piece.
  for (std::size_t round = 0; round < 2 * pieces && !answer; ++round) {
    ASSERT_LE(daemon.held.size(), 4u);
    daemon.release_commits();
    daemon.run_deferred();
  }
  ASSERT_TRUE(answer);
  std::size_t total = 0;
  ASSERT_EQ(daemon.commit_sizes.size(), pieces);
  for (const std::size_t size : daemon.commit_sizes) {
    EXPECT_LE(size, 1024u);
    total += size;
  }
  EXPECT_EQ(total, bound);
  EXPECT_EQ(answer->json["result"], kSuccess);
  EXPECT_EQ(answer->json["arguments"]["deleted"], bound);
  std::size_t still_bound = 0;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (lease.subnet_id == 1 && lease.state == lease::LeaseState::Bound) ++still_bound;
  });
  EXPECT_EQ(still_bound, 0u);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 19, 0, 20))->state, lease::LeaseState::Bound);  // subnet 2's
}

// A piece the store does not take stops the wipe with the store's reason; the answer counts
// what is durable, what waits for the store and what was left, with every piece answered.
TEST(TableScan, WipeStopsWhenAPieceIsNotTakenAndCountsEveryPiece) {
  FakeDaemon daemon(kLargePool);
  fill(daemon);
  const std::size_t bound = kRecords - (kRecords + 6) / 7;
  daemon.hold_commits = true;
  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1, "confirm": true}})",
                                [&](Answer response) { answer = std::move(response); });
  daemon.run_deferred();
  ASSERT_EQ(daemon.held.size(), 4u);
  // The second piece comes back refused, the others written.
  auto held = std::move(daemon.held);
  daemon.held.clear();
  held[0].second({});
  held[1].second(unexpected(std::string{"the store's commit queue is full"}));
  held[2].second({});
  daemon.run_deferred();
  EXPECT_FALSE(answer) << "a piece is still at the store";
  EXPECT_TRUE(daemon.held.empty()) << "no piece after the refusal";
  held[3].second({});
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->json["result"], kError);
  EXPECT_EQ(answer->json["arguments"]["deleted"], 3 * 1024);
  EXPECT_EQ(answer->json["text"], "the store's commit queue is full; of " + std::to_string(bound) +
                                      " lease(s) in subnet 1, 3072 revoked and durable, 1024 revoked and waiting "
                                      "for the store, " + std::to_string(bound - 4096) + " left as they were");
}

// Bound leases in the table (of one subnet, when given).
std::size_t count_bound(FakeDaemon& daemon, std::optional<std::uint32_t> subnet_id = std::nullopt) {
  std::size_t bound = 0;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if ((!subnet_id || lease.subnet_id == *subnet_id) && lease.state == lease::LeaseState::Bound) ++bound;
  });
  return bound;
}

const std::string kClockAhead =
    "this server's clock is 5000 ms ahead of the shared store's, more than store.max-clock-skew 1s";

// The wipe of fill()'s leases, stopped by `stop` (for `why`) after three pieces: the answer is an
// error that says how many were revoked and durable, and the rest are left as they were.
void wipe_stopped_after_three_pieces(FakeDaemon& daemon, const std::function<void()>& stop, const std::string& why) {
  fill(daemon);
  const std::size_t bound = kRecords - (kRecords + 6) / 7;
  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1, "confirm": true}})",
                                [&](Answer response) { answer = std::move(response); });
  daemon.run_deferred([&] { return daemon.commit_sizes.size() == 3; });
  stop();
  daemon.run_deferred();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->json["result"], kError);
  EXPECT_EQ(answer->json["arguments"]["deleted"], 3 * 1024);
  EXPECT_EQ(answer->json["text"], why + "; of " + std::to_string(bound) +
                                      " lease(s) in subnet 1, 3072 revoked and durable, 0 revoked and waiting for "
                                      "the store, " + std::to_string(bound - 3072) + " left as they were");
  EXPECT_EQ(count_bound(daemon, 1), bound - 3072);
}

// A store that stops accepting writes part of the way through stops the wipe.
TEST(TableScan, WipeStopsWhenTheStoreFails) {
  FakeDaemon daemon(kLargePool);
  wipe_stopped_after_three_pieces(daemon, [&] { daemon.store_up = false; }, "the lease store is not accepting writes");
}

// So does a clock that stops agreeing with the shared store's (Daemon::may_end_leases): revoking
// ends leases, as the expiry timer does. Before, the wipe went on regardless.
TEST(TableScan, WipeStopsWhenTheClockStopsAgreeing) {
  FakeDaemon daemon(kLargePool);
  wipe_stopped_after_three_pieces(daemon, [&] { daemon.clock_disagrees = kClockAhead; }, kClockAhead);
}

// leases-reclaim of 100,000 expired leases goes the wipe's way (change_in_pieces.hpp): pieces of
// at most 1,024 records, at most four at the store at once, clients served between pieces, the
// answer once every piece is durable. Before, it reclaimed at most 65,536 in one turn and one
// commit (larger than the store's whole commit queue) and called that complete.
TEST(TableScan, ReclaimOfManyExpiredLeasesGoesInPiecesWhileClientsAreServed) {
  constexpr std::size_t kExpired = 100000;
  FakeDaemon daemon(R"(store: {type: memory}
subnets:
  - subnet: 198.18.0.0/15
    pools: [198.18.0.10-198.19.255.250]
)");
  for (std::uint32_t i = 0; i < kExpired; ++i) {
    lease::Lease lease;
    lease.address = Ipv4{Ipv4(198, 18, 0, 10).to_uint() + i};
    const std::array<std::uint8_t, 6> mac{0x02, 0x01, 0, static_cast<std::uint8_t>(i >> 16),
                                          static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i)};
    lease.hardware = HardwareAddress{1, mac};
    lease.client = ClientKey::from({}, lease.hardware);
    lease.state = lease::LeaseState::Bound;
    lease.subnet_id = 1;
    lease.granted_at = daemon.now_ - std::chrono::hours{2} + std::chrono::milliseconds{i};  // ended an hour ago
    lease.lease_time = std::chrono::hours{1};
    lease.renew_time = std::chrono::minutes{30};
    lease.rebind_time = std::chrono::minutes{52};
    lease.fencing_token = 1;
    daemon.engine().restore(lease);
  }
  const std::size_t pieces = (kExpired + 1023) / 1024;
  daemon.hold_commits = true;
  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "leases-reclaim", "arguments": {"remove": false}})",
                                [&](Answer response) { answer = std::move(response); });
  daemon.run_deferred([&] { return daemon.commit_sizes.size() == 2; });
  ASSERT_EQ(daemon.commit_sizes.size(), 2u);
  EXPECT_TRUE(dora(daemon, 3)) << "a client is served between two pieces";
  EXPECT_EQ(daemon.ask(R"({"command": "status-get"})")["result"], kSuccess);
  daemon.run_deferred();
  ASSERT_TRUE(daemon.deferred.empty());
  ASSERT_EQ(daemon.held.size(), 4u) << "pieces at the store while none is answered";
  bool served_halfway = false;
  for (std::size_t round = 0; round < 2 * pieces && !answer; ++round) {
    ASSERT_LE(daemon.held.size(), 4u);
    daemon.release_commits();
    if (!served_halfway && daemon.commit_sizes.size() >= pieces / 2) {
      EXPECT_TRUE(dora(daemon, 4)) << "halfway";
      served_halfway = true;
    }
    daemon.run_deferred();
  }
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->json["result"], kSuccess);
  EXPECT_EQ(answer->json["arguments"]["reclaimed"], kExpired);
  EXPECT_EQ(answer->json["text"], "Reclamation of expired leases is complete: 100000 reclaimed.");
  ASSERT_EQ(daemon.commit_sizes.size(), pieces);
  for (const std::size_t size : daemon.commit_sizes) EXPECT_LE(size, 1024u);
  // Every one durable as expired, once; none bound in memory but the two clients served.
  ASSERT_EQ(daemon.durable.size(), kExpired);
  std::set<Ipv4> written;
  for (const lease::Lease& record : daemon.durable) {
    EXPECT_EQ(record.state, lease::LeaseState::Expired);
    written.insert(record.address);
  }
  EXPECT_EQ(written.size(), kExpired);
  std::size_t still_bound = 0;
  daemon.engine().for_each_lease([&](const lease::Lease& lease) {
    if (lease.state == lease::LeaseState::Bound) ++still_bound;
  });
  EXPECT_TRUE(served_halfway);
  EXPECT_EQ(still_bound, 2u) << "the clients served meanwhile";
  for (const engine::Event& event : daemon.events) EXPECT_EQ(event.kind, engine::EventKind::Expire);
  // Nothing is due any more: a second reclaim has nothing to do.
  daemon.hold_commits = false;
  EXPECT_EQ(daemon.ask(R"({"command": "leases-reclaim"})")["arguments"]["reclaimed"], 0);
}

// A reclaim of every bound lease of fill()'s table, stopped by `stop` once two pieces are committed:
// the answer, which must be an error counting those two pieces as durable, with `why` first; the
// rest stays bound, for the expiry timer.
void reclaim_stopped_after_two_pieces(FakeDaemon& daemon, const std::function<void()>& stop, const std::string& why) {
  fill(daemon);
  daemon.now_ += std::chrono::hours{2};  // every bound lease has ended
  const std::size_t bound = kRecords - (kRecords + 6) / 7 + 1;  // subnet 2's one too
  std::optional<Answer> answer;
  daemon.commands().handle_body(R"({"command": "leases-reclaim"})", [&](Answer response) { answer = std::move(response); });
  daemon.run_deferred([&] { return daemon.commit_sizes.size() == 2; });
  stop();
  daemon.run_deferred();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->json["result"], kError);
  EXPECT_EQ(answer->json["arguments"]["reclaimed"], 2 * 1024);
  EXPECT_EQ(answer->json["text"], why + "; 2048 reclaimed and durable, 0 reclaimed and waiting for the store");
  EXPECT_EQ(daemon.commit_sizes.size(), 2u);
  EXPECT_EQ(count_bound(daemon), bound - 2048);
}

// A store that stops accepting writes part of the way through stops the reclaim.
TEST(TableScan, ReclaimStopsWhenTheStoreFails) {
  FakeDaemon daemon(kLargePool);
  reclaim_stopped_after_two_pieces(daemon, [&] { daemon.store_up = false; }, "the lease store is not accepting writes");
}

// So does a clock that stops agreeing with the shared store's (Daemon::may_end_leases).
TEST(TableScan, ReclaimStopsWhenTheClockStopsAgreeing) {
  FakeDaemon daemon(kLargePool);
  reclaim_stopped_after_two_pieces(daemon, [&] { daemon.clock_disagrees = kClockAhead; }, kClockAhead);
}

}  // namespace
}  // namespace landlord::control
