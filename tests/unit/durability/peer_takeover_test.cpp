// Issue #14: servers on one PostgreSQL store taking the same lease over at the same instant (the
// client's REBINDING broadcast reaches both). Each server here is what the daemon runs: an
// Engine, a durability Machine and a PostgresLeaseStore of its own (writing with its server-id);
// the two commits race on two threads. Exactly one server writes the next token and ACKs; the
// other's write is refused by the database and its ACK never leaves. Every write the store
// accepts is recorded: no token of an address is ever accepted from two servers.
// Runs only under the ctest fixture `postgres` (postgres_test_support.hpp).
#include <gtest/gtest.h>

#include <barrier>
#include <cstdio>
#include <map>
#include <thread>

#include "engine_harness.hpp"
#include "landlord/durability/machine.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "postgres_test_support.hpp"

namespace landlord::durability {
namespace {

using engine::testing::Harness;
using engine::testing::kOtherServer;
using engine::testing::kServerAddress;
using engine::testing::kStart;
using engine::testing::key;
using engine::testing::mac;
using lease::LeaseState;
using store::PostgresLeaseStore;
using store::WriteResult;
using wire::MessageType;
using namespace std::chrono_literals;

constexpr Ipv4 kThirdServer{198, 18, 0, 3};  // a server that is gone: it granted the leases

config::Config peer_config(Ipv4 own) {
  config::Config config = engine::testing::make_config();
  config.server.server_id = own;
  config.peers.servers = {kServerAddress, kOtherServer};
  return config;
}

// One server: engine, commit-then-ACK machine and its own connection to the shared database.
struct Server {
  Server(Ipv4 own, const std::string& url) : Server(own, url, peer_config(own)) {}
  Server(Ipv4 own, const std::string& url, config::Config config) : id(own), harness(std::move(config)) {
    auto opened = PostgresLeaseStore::open({.url = url, .writer = own});
    EXPECT_TRUE(opened.has_value()) << (opened ? "" : opened.error().message);
    if (opened) store = std::move(*opened);
  }
  // The daemon's start-up: every stored row into the engine.
  void load() {
    const auto loaded = store->load([&](lease::Lease&& record) { harness.engine.restore(std::move(record)); });
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  }
  // The client's DISCOVER after trying long enough that any peer answers (answer-all-after),
  // then its REQUEST for the offer, proposed: the batch the ACK waits for.
  Batch grant(std::uint8_t client) {
    auto discover = engine::testing::client_message(MessageType::Discover, client);
    discover.secs = 10;
    const engine::Outcome offer = harness.send(discover);
    EXPECT_EQ(engine::testing::reply_type(offer), MessageType::Offer);
    if (!offer.reply) return {};
    return propose(harness.select(client, offer.reply->message.yiaddr, id));
  }
  // An outcome with records, proposed: the batch it waits for.
  Batch propose(engine::Outcome outcome) {
    EXPECT_TRUE(machine.propose(outcome, Origin{}));
    machine.ready(harness.now, out);
    EXPECT_EQ(out.batches.size(), 1u);
    return out.batches.empty() ? Batch{} : out.batches.front();
  }
  struct Answer {
    Verdict verdict = Verdict::Unavailable;
    std::optional<MessageType> reply;  // what would leave (none: nothing is sent)
  };
  // The store's answer to the batch, then what the machine lets go of.
  Answer committed(const Batch& batch, CommitResult result) {
    machine.committed(batch.id, std::move(result), harness.engine, harness.now);
    machine.ready(harness.now, out);
    EXPECT_EQ(out.released.size(), 1u);
    if (out.released.empty()) return {};
    const Release& release = out.released.front();
    Answer answer{release.verdict, std::nullopt};
    if (release.verdict == Verdict::Send && release.reply != nullptr) {
      answer.reply = release.reply->message.type();
    }
    return answer;
  }

  Ipv4 id;
  Harness harness;
  Machine machine;
  std::unique_ptr<PostgresLeaseStore> store;
  Ready out;
};

constexpr int kClients = 40;
Ipv4 address_of(int client) { return Ipv4{198, 18, 0, static_cast<std::uint8_t>(100 + client)}; }
std::uint8_t mac_of(int client) { return static_cast<std::uint8_t>(1 + client); }

class PeerTakeover : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!store::testing::postgres_server()) {
      GTEST_FAIL() << "LANDLORD_TEST_POSTGRES is not set: run through ctest (fixture postgres)";
    }
  }
  // Every write the database accepted, by address and token: the one server it came from.
  void accepted(const Server& server, const Batch& batch, const CommitResult& result) {
    ASSERT_TRUE(result.has_value());
    for (std::size_t i = 0; i < batch.records.size(); ++i) {
      if ((*result)[i] != WriteResult::Written) continue;
      const auto& record = batch.records[i];
      const auto [slot, inserted] =
          token_owner_.try_emplace({record.address.to_uint(), record.fencing_token}, server.id);
      EXPECT_TRUE(inserted || slot->second == server.id)
          << record.address.to_string() << " token " << record.fencing_token << " accepted from "
          << slot->second.to_string() << " and from " << server.id.to_string();
    }
  }
  // Both servers answer the same client's REBINDING at the same virtual instant; their commits
  // start together. Returns the winner (exactly one must win).
  Server* race(Server& first, Server& second, std::uint8_t client, Ipv4 address) {
    return race(first, second, client, address,
                [](Server& server, std::uint8_t who, Ipv4 at) { return server.harness.rebind(who, at); });
  }
  // The same for any request both answer: `answer(server, client, address)` is its outcome.
  template <typename Answer>
  Server* race(Server& first, Server& second, std::uint8_t client, Ipv4 address, Answer answer) {
    engine::Outcome from_first = answer(first, client, address);
    engine::Outcome from_second = answer(second, client, address);
    EXPECT_EQ(engine::testing::reply_type(from_first), MessageType::Ack);
    EXPECT_EQ(engine::testing::reply_type(from_second), MessageType::Ack);
    const Batch first_batch = first.propose(std::move(from_first));
    const Batch second_batch = second.propose(std::move(from_second));
    EXPECT_EQ(first_batch.records.size(), 1u);
    EXPECT_EQ(second_batch.records.size(), 1u);
    if (first_batch.records.empty() || second_batch.records.empty()) return nullptr;
    EXPECT_EQ(first_batch.records[0].fencing_token, second_batch.records[0].fencing_token)
        << "both take the held token plus one";
    CommitResult first_result = failure(), second_result = failure();
    std::barrier together(2);
    std::thread other([&] {
      together.arrive_and_wait();
      second_result = second.store->commit(second_batch.records);
    });
    together.arrive_and_wait();
    first_result = first.store->commit(first_batch.records);
    other.join();
    accepted(first, first_batch, first_result);
    accepted(second, second_batch, second_result);
    const Server::Answer first_answer = first.committed(first_batch, first_result);
    const Server::Answer second_answer = second.committed(second_batch, second_result);
    const bool first_won = first_answer.verdict == Verdict::Send;
    const bool second_won = second_answer.verdict == Verdict::Send;
    EXPECT_NE(first_won, second_won) << address.to_string() << ": exactly one server may ACK";
    const Server::Answer& lost = first_won ? second_answer : first_answer;
    EXPECT_EQ(lost.verdict, Verdict::StaleToken) << "the loser's write is refused by token";
    EXPECT_EQ(lost.reply, std::nullopt) << "the loser sends nothing";
    EXPECT_EQ((first_won ? first_answer : second_answer).reply, MessageType::Ack);
    return first_won ? &first : second_won ? &second : nullptr;
  }
  static CommitResult failure() {
    return unexpected(store::StoreError{store::StoreError::Kind::Io, "not committed"});
  }
  std::map<Ipv4, lease::Lease> rows() {
    std::map<Ipv4, lease::Lease> found;
    auto reader = PostgresLeaseStore::open({.url = database_.url()});
    EXPECT_TRUE(reader.has_value());
    if (!reader) return found;
    const auto loaded = (*reader)->load([&](lease::Lease&& record) { found.emplace(record.address, record); });
    EXPECT_TRUE(loaded.has_value());
    return found;
  }

  // Every client granted a lease by `server`, committed and ACKed: each client's granted token.
  std::map<std::uint8_t, lease::FencingToken> grant_each(Server& server) {
    std::map<std::uint8_t, lease::FencingToken> granted;
    for (int client = 0; client < kClients; ++client) {
      const Batch batch = server.grant(mac_of(client));
      EXPECT_EQ(batch.records.size(), 1u);
      if (batch.records.size() != 1) break;
      const CommitResult result = server.store->commit(batch.records);
      accepted(server, batch, result);
      EXPECT_EQ(server.committed(batch, result).reply, MessageType::Ack);
      granted[mac_of(client)] = batch.records[0].fencing_token;
    }
    return granted;
  }
  // After a reboot race: each address's row is its winner's (client, server) with the token
  // granted before plus one, whichever server won.
  void expect_one_new_epoch_each(const std::map<Ipv4, std::pair<std::uint8_t, Ipv4>>& winners,
                                 const std::map<std::uint8_t, lease::FencingToken>& granted) {
    const auto stored = rows();
    for (const auto& [address, winner] : winners) {
      const auto row = stored.find(address);
      ASSERT_NE(row, stored.end());
      EXPECT_EQ(row->second.client, key(winner.first));
      EXPECT_EQ(row->second.fencing_token, granted.at(winner.first) + 1) << "one new epoch";
      EXPECT_EQ(row->second.writer, winner.second) << "the winner's row";
    }
  }

  store::testing::ScratchDatabase database_;
  std::map<std::pair<std::uint32_t, lease::FencingToken>, Ipv4> token_owner_;
};

// A third server granted the leases, then went away; at T2 each client's REBINDING reaches both
// survivors at once.
TEST_F(PeerTakeover, TwoServersTakingALeaseOverAtOnceHaveExactlyOneWinner) {
  {
    auto granting = PostgresLeaseStore::open({.url = database_.url(), .writer = kThirdServer});
    ASSERT_TRUE(granting.has_value()) << granting.error().message;
    std::vector<lease::Lease> grants;
    for (int client = 0; client < kClients; ++client) {
      lease::Lease grant;
      grant.address = address_of(client);
      grant.client = key(mac_of(client));
      grant.hardware = mac(mac_of(client));
      grant.state = LeaseState::Bound;
      grant.subnet_id = 1;
      grant.granted_at = kStart - 53min;  // T2 of a 1 h lease is at 52.5 min
      grant.lease_time = 1h;
      grant.renew_time = 30min;
      grant.rebind_time = 52min + 30s;
      grant.fencing_token = 5;
      grants.push_back(grant);
    }
    const auto written = (*granting)->commit(grants);
    ASSERT_TRUE(written.has_value()) << written.error().message;
    ASSERT_EQ(*written, std::vector<WriteResult>(kClients, WriteResult::Written));
  }
  Server first{kServerAddress, database_.url()};
  Server second{kOtherServer, database_.url()};
  ASSERT_TRUE(first.store && second.store);
  first.load();
  second.load();
  std::map<Ipv4, Ipv4> winners;
  for (int client = 0; client < kClients; ++client) {
    const Server* winner = race(first, second, mac_of(client), address_of(client));
    if (winner != nullptr) winners[address_of(client)] = winner->id;
  }
  const auto stored = rows();
  int first_wins = 0;
  for (int client = 0; client < kClients; ++client) {
    const auto row = stored.find(address_of(client));
    ASSERT_NE(row, stored.end());
    EXPECT_EQ(row->second.fencing_token, 6u) << "one takeover: the held token plus one";
    EXPECT_EQ(row->second.writer, winners[address_of(client)]) << "the winner's row";
    EXPECT_EQ(row->second.client, key(mac_of(client)));
    first_wins += winners[address_of(client)] == kServerAddress ? 1 : 0;
  }
  std::printf("takeover race: first server won %d of %d\n", first_wins, kClients);
}

// The server that granted the lease is alive but the client's renewals did not reach it: at T2
// the REBINDING reaches it and its peer. Its own rebind and the peer's takeover still write the
// same token (the held one plus one), so again exactly one ACKs.
TEST_F(PeerTakeover, TheGrantingServerAndItsPeerRebindingAtOnceHaveExactlyOneWinner) {
  Server first{kServerAddress, database_.url()};
  Server second{kOtherServer, database_.url()};
  ASSERT_TRUE(first.store && second.store);
  for (int client = 0; client < kClients; ++client) {
    const Batch batch = first.grant(mac_of(client));
    ASSERT_EQ(batch.records.size(), 1u);
    const CommitResult result = first.store->commit(batch.records);
    accepted(first, batch, result);
    ASSERT_EQ(first.committed(batch, result).reply, MessageType::Ack);
  }
  second.load();
  first.harness.now += 53min;
  second.harness.now += 53min;
  int first_wins = 0;
  for (int client = 0; client < kClients; ++client) {
    const Ipv4 address = first.harness.engine.find(key(mac_of(client)))->address;
    const Server* winner = race(first, second, mac_of(client), address);
    first_wins += winner == &first ? 1 : 0;
  }
  std::printf("rebind race: the granting server won %d of %d\n", first_wins, kClients);
}

// A server that confirms a lease another server holds the token of (the client rebooted, and its
// INIT-REBOOT reached this one) takes the next token: the store would refuse a bound record with
// the other's token from it. The other server's later renewal with its old token is refused.
TEST_F(PeerTakeover, ExtendingAnotherServersLeaseTakesTheNextToken) {
  Server first{kServerAddress, database_.url()};
  Server second{kOtherServer, database_.url()};
  ASSERT_TRUE(first.store && second.store);
  const std::uint8_t who = mac_of(0);
  Batch batch = first.grant(who);
  ASSERT_EQ(batch.records.size(), 1u);
  const Ipv4 address = batch.records[0].address;
  // Read before the answer: a batch's records are the machine's until the next ready().
  const lease::FencingToken granted = batch.records[0].fencing_token;
  CommitResult result = first.store->commit(batch.records);
  accepted(first, batch, result);
  ASSERT_EQ(first.committed(batch, result).reply, MessageType::Ack);

  second.load();
  second.harness.now += 10min;
  // The client's `secs` says it has been trying for answer-all-after: the granting server may be
  // down, so the peer answers it (engine: Peers.AnInitRebootIsAnsweredByTheServerWhoseTokenTheLeaseIs).
  batch = second.propose(second.harness.init_reboot(who, address, 3));
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].fencing_token, granted + 1);
  result = second.store->commit(batch.records);
  accepted(second, batch, result);
  EXPECT_EQ(second.committed(batch, result).reply, MessageType::Ack);

  first.harness.now += 20min;
  batch = first.propose(first.harness.renew(who, address));
  ASSERT_EQ(batch.records.size(), 1u);
  EXPECT_EQ(batch.records[0].fencing_token, granted);
  result = first.store->commit(batch.records);
  accepted(first, batch, result);
  const Server::Answer stale = first.committed(batch, result);
  EXPECT_EQ(stale.verdict, Verdict::StaleToken);
  EXPECT_EQ(stale.reply, std::nullopt);
}

// A client of the first server's reboots; its INIT-REBOOT is broadcast. The first server holds the
// lease's token and answers at once; the second answers only once the client has been trying for
// answer-all-after — here the first server was slow, not dead, so both answer the same
// retransmission. Both write the held token plus one, and the database lets exactly one of
// them have it: one ACK, never two (before, the holder wrote its own token and the peer the next,
// and both were accepted when the holder's committed first).
TEST_F(PeerTakeover, TheHolderAndALatePeerConfirmingOneRebootHaveExactlyOneWinner) {
  Server first{kServerAddress, database_.url()};
  Server second{kOtherServer, database_.url()};
  ASSERT_TRUE(first.store && second.store);
  const std::map<std::uint8_t, lease::FencingToken> granted = grant_each(first);
  ASSERT_EQ(granted.size(), static_cast<std::size_t>(kClients));
  second.load();  // the second server's view: every row, each naming the first as its writer
  first.harness.now += 10min;
  second.harness.now += 10min;
  int first_wins = 0;
  std::map<Ipv4, std::pair<std::uint8_t, Ipv4>> winners;  // address: client, winning server
  for (int client = 0; client < kClients; ++client) {
    const std::uint8_t who = mac_of(client);
    const Ipv4 address = first.harness.engine.find(key(who))->address;
    const engine::Outcome left = second.harness.init_reboot(who, address);
    EXPECT_EQ(engine::testing::reply_type(left), std::nullopt) << "the peer leaves a fresh reboot to the holder";
    EXPECT_TRUE(left.mutations.empty());
    const Server* winner = race(first, second, who, address, [](Server& server, std::uint8_t c, Ipv4 at) {
      return server.harness.init_reboot(c, at, 3);
    });
    first_wins += winner == &first ? 1 : 0;
    if (winner != nullptr) winners[address] = {who, winner->id};
  }
  EXPECT_EQ(winners.size(), static_cast<std::size_t>(kClients));
  expect_one_new_epoch_each(winners, granted);
  std::printf("reboot race: the holder won %d of %d\n", first_wins, kClients);
}

// Servers that share the store without `peers:` answer every INIT-REBOOT, the holder and the
// other alike, at once. Each writes the held token plus one, so the database takes exactly one
// of the two confirmations: one ACK per reboot, never two.
TEST_F(PeerTakeover, ServersSharingAStoreWithoutPeersConfirmingOneRebootHaveExactlyOneWinner) {
  const auto shared_config = [&](Ipv4 own) {
    config::Config config = engine::testing::make_config();
    config.server.server_id = own;
    config.store.type = config::StoreSection::Type::Postgresql;
    config.store.url = database_.url();
    return config;
  };
  Server first{kServerAddress, database_.url(), shared_config(kServerAddress)};
  Server second{kOtherServer, database_.url(), shared_config(kOtherServer)};
  ASSERT_TRUE(first.store && second.store);
  const std::map<std::uint8_t, lease::FencingToken> granted = grant_each(first);
  ASSERT_EQ(granted.size(), static_cast<std::size_t>(kClients));
  second.load();
  first.harness.now += 10min;
  second.harness.now += 10min;
  int first_wins = 0;
  std::map<Ipv4, std::pair<std::uint8_t, Ipv4>> winners;
  for (int client = 0; client < kClients; ++client) {
    const std::uint8_t who = mac_of(client);
    const Ipv4 address = first.harness.engine.find(key(who))->address;
    // secs 0: no peers, so nobody waits; both answer the first broadcast.
    const Server* winner = race(first, second, who, address, [](Server& server, std::uint8_t c, Ipv4 at) {
      return server.harness.init_reboot(c, at);
    });
    first_wins += winner == &first ? 1 : 0;
    if (winner != nullptr) winners[address] = {who, winner->id};
  }
  EXPECT_EQ(winners.size(), static_cast<std::size_t>(kClients));
  expect_one_new_epoch_each(winners, granted);
  std::printf("reboot race without peers: the holder won %d of %d\n", first_wins, kClients);
}

}  // namespace
}  // namespace landlord::durability
