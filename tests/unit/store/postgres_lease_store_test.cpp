// What only the PostgreSQL backend promises: several servers on one database (a race for one
// address has exactly one winner, a paused writer is refused), the versioned schema, the change
// feed the servers learn each other's writes from, who is up, and a lost or stalled connection. The
// conformance suite (lease_store_conformance_test.cpp) covers the rest. Runs only under the
// ctest fixture `postgres` (postgres_test_support.hpp).
#include <algorithm>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <barrier>
#include <thread>

#include "landlord/store/open_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "postgres_test_support.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using lease::LeaseState;
using testing::bound_lease;
using testing::load_all;
using testing::same_lease;
using testing::ScratchDatabase;

class PostgresLeaseStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::postgres_server()) {
      GTEST_FAIL() << "LANDLORD_TEST_POSTGRES is not set: run through ctest (fixture postgres)";
    }
  }
  std::unique_ptr<PostgresLeaseStore> open(std::chrono::milliseconds timeout = std::chrono::seconds{5}) {
    auto store = PostgresLeaseStore::open({.url = database_.url(), .timeout = timeout});
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }
  // Another server's store (server-id 198.18.0.1) that NOTIFYs at most once per `interval`.
  std::unique_ptr<PostgresLeaseStore> notifying_writer(std::chrono::milliseconds interval) {
    auto store = PostgresLeaseStore::open({.url = database_.url(), .writer = Ipv4{198, 18, 0, 1},
                                           .notify = true, .notify_interval = interval});
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }
  static std::vector<WriteResult> commit_ok(PostgresLeaseStore& store, std::vector<lease::Lease> batch) {
    auto results = store.commit(batch);
    EXPECT_TRUE(results.has_value()) << (results ? "" : results.error().message);
    return results ? *results : std::vector<WriteResult>{};
  }

  ScratchDatabase database_;
};

// Two servers grant the same free address to two different clients at the same moment, many
// times over: the database lets exactly one through each time, and keeps the winner's record.
TEST_F(PostgresLeaseStoreTest, TwoServersRacingForOneFreeAddressHaveExactlyOneWinner) {
  auto first = open();
  auto second = open();
  ASSERT_TRUE(first && second);
  constexpr std::uint32_t kRounds = 200;
  std::vector<WriteResult> first_results(kRounds), second_results(kRounds);
  std::barrier start_together(2);
  const auto race = [&](PostgresLeaseStore& store, std::uint32_t client_offset,
                        std::vector<WriteResult>& results) {
    for (std::uint32_t round = 0; round < kRounds; ++round) {
      // Both believe they make the first grant of the address: token 1 each.
      auto grant = bound_lease(100'000 + round * 2 + client_offset, 1);
      grant.address = bound_lease(round).address;
      // Each batch also carries a record of the server's own, so a refusal is per record.
      const std::vector batch{grant, bound_lease(10'000 + round * 2 + client_offset, 1)};
      start_together.arrive_and_wait();
      auto written = store.commit(batch);
      ASSERT_TRUE(written.has_value()) << written.error().message;
      ASSERT_EQ(written->size(), 2u);
      EXPECT_EQ((*written)[1], WriteResult::Written);
      results[round] = (*written)[0];
    }
  };
  std::thread other([&] { race(*second, 1, second_results); });
  race(*first, 0, first_results);
  other.join();

  std::size_t first_wins = 0, second_wins = 0;
  std::map<Ipv4, lease::Lease> stored;
  for (auto& record : load_all(*first)) stored.emplace(record.address, record);
  for (std::uint32_t round = 0; round < kRounds; ++round) {
    const bool first_won = first_results[round] == WriteResult::Written;
    const bool second_won = second_results[round] == WriteResult::Written;
    EXPECT_NE(first_won, second_won) << "round " << round << ": exactly one must win";
    first_wins += first_won;
    second_wins += second_won;
    const auto winner = bound_lease(100'000 + round * 2 + (first_won ? 0 : 1), 1);
    const auto row = stored.find(bound_lease(round).address);
    ASSERT_NE(row, stored.end());
    EXPECT_EQ(row->second.client, winner.client) << "round " << round;
  }
  std::printf("race: first won %zu, second won %zu of %u\n", first_wins, second_wins, kRounds);
}

// A server paused past a lease wakes up and writes from its old view: every write is refused,
// because another server took the address over (a higher token) or extended it (a later start).
TEST_F(PostgresLeaseStoreTest, PausedServersWritesAreRefusedAfterATakeover) {
  auto paused = open();
  auto survivor = open();
  ASSERT_TRUE(paused && survivor);
  auto granted = bound_lease(1, 1);
  ASSERT_EQ(commit_ok(*paused, {granted}), std::vector{WriteResult::Written});
  // The client rebinds at T2 to the survivor, which extends the lease from the shared row.
  auto rebound = granted;
  rebound.granted_at += granted.rebind_time;
  rebound.last_extension = lease::Extension::Rebinding;
  ASSERT_EQ(commit_ok(*survivor, {rebound}), std::vector{WriteResult::Written});
  // The paused server wakes: it expires the lease it granted, and gives the address to someone
  // else with a token one higher than it knew.
  auto stale_expiry = granted;
  stale_expiry.state = LeaseState::Expired;
  auto stale_grant = bound_lease(2, 2);
  stale_grant.address = granted.address;
  stale_grant.granted_at = granted.expires_at();
  EXPECT_EQ(commit_ok(*paused, {stale_expiry, stale_grant}),
            (std::vector{WriteResult::StaleToken, WriteResult::StaleToken}));
  const auto rows = load_all(*survivor);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(same_lease(rebound, rows[0]));
}

TEST_F(PostgresLeaseStoreTest, FreshDatabaseGetsTheSchemaAtItsVersion) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(database_.sql("SELECT version FROM landlord_schema"),
            std::to_string(PostgresLeaseStore::kSchemaVersion));
  EXPECT_EQ(database_.sql("SELECT count(*) FROM landlord_schema"), "1");
  store.reset();
  auto again = open();  // opening again neither fails nor migrates twice
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(database_.sql("SELECT count(*) FROM landlord_schema"), "1");
}

TEST_F(PostgresLeaseStoreTest, VersionZeroIsMigrated) {
  // A database that a landlord began but never finished migrating (version 0, no leases).
  database_.sql("CREATE TABLE landlord_schema (version integer NOT NULL);"
                " INSERT INTO landlord_schema VALUES (0)");
  auto store = open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(database_.sql("SELECT version FROM landlord_schema"),
            std::to_string(PostgresLeaseStore::kSchemaVersion));
  EXPECT_EQ(commit_ok(*store, {bound_lease(1, 1)}), std::vector{WriteResult::Written});
}

TEST_F(PostgresLeaseStoreTest, VersionOneIsMigratedAndKeepsItsLeases) {
  // A database of schema version 1 (before client classes were kept), with a lease in it.
  auto store = open();
  ASSERT_NE(store, nullptr);
  auto record = bound_lease(2, 7);
  record.classes.clear();
  EXPECT_EQ(commit_ok(*store, {record}), std::vector{WriteResult::Written});
  store.reset();
  database_.sql("ALTER TABLE leases DROP COLUMN classes, DROP COLUMN writer, DROP COLUMN fqdn,"
                " DROP COLUMN fqdn_fwd, DROP COLUMN fqdn_rev, DROP COLUMN dns_state, DROP COLUMN relay_agent_info;"
                " UPDATE landlord_schema SET version = 1");
  store = open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(database_.sql("SELECT version FROM landlord_schema"),
            std::to_string(PostgresLeaseStore::kSchemaVersion));
  auto rows = load_all(*store);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(same_lease(record, rows[0]));
  record.classes = "ipxe,lab";
  EXPECT_EQ(commit_ok(*store, {record}), std::vector{WriteResult::Written});
  EXPECT_EQ(database_.sql("SELECT classes FROM leases"), "ipxe,lab");
}

TEST_F(PostgresLeaseStoreTest, VersionTwoIsMigratedAndItsRowsAreAnyServersToContinue) {
  // A database of schema version 2 (before rows named their writer), with a lease in it.
  auto store = open();
  ASSERT_NE(store, nullptr);
  const auto record = bound_lease(2, 7);
  EXPECT_EQ(commit_ok(*store, {record}), std::vector{WriteResult::Written});
  store.reset();
  database_.sql("ALTER TABLE leases DROP COLUMN writer, DROP COLUMN fqdn, DROP COLUMN fqdn_fwd,"
                " DROP COLUMN fqdn_rev, DROP COLUMN dns_state, DROP COLUMN relay_agent_info;"
                " UPDATE landlord_schema SET version = 2");
  auto server = PostgresLeaseStore::open({.url = database_.url(), .writer = Ipv4{198, 18, 0, 2}});
  ASSERT_TRUE(server.has_value()) << server.error().message;
  EXPECT_EQ(database_.sql("SELECT version FROM landlord_schema"),
            std::to_string(PostgresLeaseStore::kSchemaVersion));
  auto rows = load_all(**server);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(same_lease(record, rows[0]));
  EXPECT_TRUE(rows[0].writer.is_zero()) << "written before there were writers";
  // A row without a writer is anybody's: this server may extend it with its token.
  auto renewed = record;
  renewed.granted_at += std::chrono::minutes{30};
  EXPECT_EQ(commit_ok(**server, {renewed}), std::vector{WriteResult::Written});
  EXPECT_EQ(database_.sql("SELECT host(writer) FROM leases"), "198.18.0.2");
}

// A token is one server's: a bound record with the token another server wrote is refused (it
// must take the next token), while the end of the same lease (expiry, release) with that token
// is accepted and leaves the token its server's.
TEST_F(PostgresLeaseStoreTest, ABoundRecordWithAnotherServersTokenIsRefused) {
  auto first = PostgresLeaseStore::open({.url = database_.url(), .writer = Ipv4{198, 18, 0, 1}});
  auto second = PostgresLeaseStore::open({.url = database_.url(), .writer = Ipv4{198, 18, 0, 2}});
  ASSERT_TRUE(first.has_value() && second.has_value());
  const auto granted = bound_lease(3, 4);
  ASSERT_EQ(commit_ok(**first, {granted}), std::vector{WriteResult::Written});
  EXPECT_EQ(load_all(**second).at(0).writer, (Ipv4{198, 18, 0, 1}));

  auto extended = granted;
  extended.granted_at += std::chrono::minutes{10};
  EXPECT_EQ(commit_ok(**second, {extended}), std::vector{WriteResult::StaleToken});
  auto renewed = extended;  // the same extension from the token's own server
  EXPECT_EQ(commit_ok(**first, {renewed}), std::vector{WriteResult::Written});

  auto expired = renewed;
  expired.state = LeaseState::Expired;
  EXPECT_EQ(commit_ok(**second, {expired}), std::vector{WriteResult::Written});
  EXPECT_EQ(database_.sql("SELECT host(writer) FROM leases"), "198.18.0.1");

  auto taken_over = renewed;
  taken_over.fencing_token = 5;
  taken_over.granted_at += std::chrono::minutes{5};
  EXPECT_EQ(commit_ok(**second, {taken_over}), std::vector{WriteResult::Written});
  EXPECT_EQ(database_.sql("SELECT host(writer) FROM leases"), "198.18.0.2");
  auto late = taken_over;  // the first server, with the token it now has from the feed
  late.granted_at += std::chrono::minutes{1};
  EXPECT_EQ(commit_ok(**first, {late}), std::vector{WriteResult::StaleToken});
}

TEST_F(PostgresLeaseStoreTest, NewerSchemaIsForeignAndUntouched) {
  database_.sql("CREATE TABLE landlord_schema (version integer NOT NULL);"
                " INSERT INTO landlord_schema VALUES (99)");
  auto store = PostgresLeaseStore::open({.url = database_.url()});
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().kind, StoreError::Kind::Foreign);
  EXPECT_NE(store.error().message.find("schema version 99"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(database_.sql("SELECT to_regclass('leases') IS NULL"), "t");
}

TEST_F(PostgresLeaseStoreTest, ForeignLeasesTableIsRefusedAndUntouched) {
  database_.sql("CREATE TABLE leases (id integer); INSERT INTO leases VALUES (7)");
  auto store = PostgresLeaseStore::open({.url = database_.url()});
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().kind, StoreError::Kind::Foreign);
  EXPECT_NE(store.error().message.find("not landlord's"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(database_.sql("SELECT id FROM leases"), "7");
  EXPECT_EQ(database_.sql("SELECT to_regclass('landlord_schema') IS NULL"), "t");
}

// The database and this test share a host and its clock: a local clock moved by an injected
// offset reads as that offset, within half the round trip (and the milliseconds' rounding).
TEST_F(PostgresLeaseStoreTest, ClockOffsetIsThisServersClockMinusTheDatabases) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  const auto system_now = [] {
    return time_from_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count());
  };
  for (const Duration injected : {Duration{std::chrono::minutes{5}}, Duration{-3000}, Duration{0}}) {
    auto reading = store->clock_offset([&] { return system_now() + injected; });
    ASSERT_TRUE(reading.has_value()) << reading.error().message;
    EXPECT_GE(reading->round_trip.count(), 0);
    EXPECT_NEAR(static_cast<double>(reading->offset.count()), static_cast<double>(injected.count()),
                static_cast<double>(reading->round_trip.count()) / 2 + 2)
        << "injected " << injected.count() << " ms";
  }
}

TEST_F(PostgresLeaseStoreTest, UnreachableServerIsAnIoError) {
  auto store = PostgresLeaseStore::open(
      {.url = "host=/nonexistent/landlord-test dbname=landlord user=landlord",
       .timeout = std::chrono::seconds{2}});
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().kind, StoreError::Kind::Io);
  EXPECT_NE(store.error().message.find("connecting"), std::string::npos) << store.error().message;
}

// Each server learns every row another server changed, exactly once, from a cursor.
TEST_F(PostgresLeaseStoreTest, ChangeFeedReturnsOtherServersWritesOnce) {
  auto writer = open();
  auto reader = open();
  ASSERT_TRUE(writer && reader);
  auto cursor = reader->now();
  ASSERT_TRUE(cursor.has_value()) << cursor.error().message;
  commit_ok(*writer, {bound_lease(1, 1), bound_lease(2, 1)});
  auto changes = reader->changes_since(*cursor);
  ASSERT_TRUE(changes.has_value()) << changes.error().message;
  ASSERT_EQ(changes->records.size(), 2u);
  EXPECT_TRUE(same_lease(bound_lease(1, 1), changes->records[0]) ||
              same_lease(bound_lease(1, 1), changes->records[1]));
  auto quiet = reader->changes_since(changes->next);
  ASSERT_TRUE(quiet.has_value()) << quiet.error().message;
  EXPECT_TRUE(quiet->records.empty());
  auto renewed = bound_lease(1, 1);
  renewed.granted_at += std::chrono::minutes{30};
  commit_ok(*writer, {renewed});
  auto next = reader->changes_since(quiet->next);
  ASSERT_TRUE(next.has_value());
  ASSERT_EQ(next->records.size(), 1u);
  EXPECT_TRUE(same_lease(renewed, next->records[0]));
}

// A transaction that began before a poll and commits after it is not lost (a sequence number
// assigned at write time would be: the poll would already have moved past it).
TEST_F(PostgresLeaseStoreTest, ChangeFeedSeesATransactionThatCommitsAfterThePoll) {
  auto writer = open();
  auto reader = open();
  ASSERT_TRUE(writer && reader);
  commit_ok(*writer, {bound_lease(1, 1)});  // creates the table's first row
  auto cursor = reader->now();
  ASSERT_TRUE(cursor.has_value());
  PGconn* slow = PQconnectdb(database_.url().c_str());
  ASSERT_EQ(PQstatus(slow), CONNECTION_OK);
  PQclear(PQexec(slow, "BEGIN"));
  PQclear(PQexec(slow, "UPDATE leases SET hostname = 'slow', changed_xid = pg_current_xact_id()"));
  commit_ok(*writer, {bound_lease(2, 1)});  // a later transaction commits first
  auto first_poll = reader->changes_since(*cursor);
  ASSERT_TRUE(first_poll.has_value());
  ASSERT_EQ(first_poll->records.size(), 1u);
  EXPECT_EQ(first_poll->records[0].address, bound_lease(2).address);
  PQclear(PQexec(slow, "COMMIT"));
  PQfinish(slow);
  auto second_poll = reader->changes_since(first_poll->next);
  ASSERT_TRUE(second_poll.has_value());
  ASSERT_EQ(second_poll->records.size(), 1u);
  EXPECT_EQ(second_poll->records[0].hostname, "slow");
}

// A poll over a new connection (the database restarted, or the URL's next host was promoted
// after a failover) cannot trust the old cursor: a promoted replica may hand out transaction ids
// the old primary already had, and rows they write would look already seen. Such a poll returns
// the whole table. The cursor here is one from a primary whose ids ran far ahead of this one's.
TEST_F(PostgresLeaseStoreTest, ChangeFeedReloadsTheWholeTableAfterAReconnect) {
  auto writer = open();
  auto reader = open();
  ASSERT_TRUE(writer && reader);
  commit_ok(*writer, {bound_lease(1, 1), bound_lease(2, 1)});
  auto cursor = reader->now();
  ASSERT_TRUE(cursor.has_value()) << cursor.error().message;
  ChangeCursor ahead = *cursor;
  ahead.snapshot = "4000000000:4000000000:";
  commit_ok(*writer, {bound_lease(3, 1)});
  auto blind = reader->changes_since(ahead);  // the hazard: on its own connection it sees nothing
  ASSERT_TRUE(blind.has_value()) << blind.error().message;
  EXPECT_TRUE(blind->records.empty());
  EXPECT_FALSE(blind->reloaded);

  database_.end_connections();  // the next poll finds its connection closed and reconnects first
  auto reloaded = reader->changes_since(ahead);
  ASSERT_TRUE(reloaded.has_value()) << reloaded.error().message;
  EXPECT_TRUE(reloaded->reloaded);
  EXPECT_EQ(reloaded->records.size(), 3u);
  EXPECT_EQ(reader->reconnects(), 1u);

  // From the new cursor on, polling is incremental again.
  auto quiet = reader->changes_since(reloaded->next);
  ASSERT_TRUE(quiet.has_value()) << quiet.error().message;
  EXPECT_FALSE(quiet->reloaded);
  EXPECT_TRUE(quiet->records.empty());
}

// store.sync-notify: a commit of a store opened with `notify` wakes a listening store at once;
// a commit without it, or one of the listener's own server, does not; the wake fd ends a wait.
TEST_F(PostgresLeaseStoreTest, ANotifyingCommitWakesAListenerAndNothingElseDoes) {
  const Ipv4 other{198, 18, 0, 1}, self{198, 18, 0, 2};
  auto writer = PostgresLeaseStore::open({.url = database_.url(), .writer = other, .notify = true});
  auto silent = PostgresLeaseStore::open({.url = database_.url(), .writer = other});
  auto own = PostgresLeaseStore::open({.url = database_.url(), .writer = self, .notify = true});
  auto listener = PostgresLeaseStore::open({.url = database_.url(), .writer = self});
  ASSERT_TRUE(writer && silent && own && listener);
  ASSERT_TRUE((*listener)->listen().has_value());
  const int wake = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(wake, 0);
  const auto await = [&](std::chrono::milliseconds timeout) {
    auto woken = (*listener)->await_notification(timeout, wake);
    EXPECT_TRUE(woken.has_value()) << (woken ? "" : woken.error().message);
    return woken && *woken;
  };
  EXPECT_FALSE(await(std::chrono::milliseconds{50}));
  commit_ok(**silent, {bound_lease(1, 1)});
  EXPECT_FALSE(await(std::chrono::milliseconds{300})) << "a commit without NOTIFY woke the listener";
  commit_ok(**own, {bound_lease(2, 1)});
  EXPECT_FALSE(await(std::chrono::milliseconds{300})) << "its own server's commit woke the listener";
  commit_ok(**writer, {bound_lease(3, 1), bound_lease(4, 1)});
  const auto sent = std::chrono::steady_clock::now();
  EXPECT_TRUE(await(std::chrono::seconds{10}));
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds{2});
  EXPECT_FALSE(await(std::chrono::milliseconds{100})) << "one commit, one wake-up";
  // stop()'s eventfd ends a wait at once.
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(wake, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  const auto waited = std::chrono::steady_clock::now();
  EXPECT_FALSE(await(std::chrono::seconds{10}));
  EXPECT_LT(std::chrono::steady_clock::now() - waited, std::chrono::seconds{2});
  ::close(wake);
}

// A LISTEN connection of the test's own that keeps every notification's arrival time
// (await_notification takes all pending ones at once, so it cannot count them).
class NotificationLog {
 public:
  explicit NotificationLog(const std::string& url) : connection_(PQconnectdb(url.c_str())) {
    EXPECT_EQ(PQstatus(connection_), CONNECTION_OK) << PQerrorMessage(connection_);
    PGresult* listened = PQexec(connection_, (std::string("LISTEN ") + kPostgresChangeChannel).c_str());
    EXPECT_EQ(PQresultStatus(listened), PGRES_COMMAND_OK);
    PQclear(listened);
  }
  ~NotificationLog() { PQfinish(connection_); }
  NotificationLog(const NotificationLog&) = delete;
  NotificationLog& operator=(const NotificationLog&) = delete;

  // Every notification that arrives until `until`, with when it was read.
  std::vector<std::chrono::steady_clock::time_point> collect(std::chrono::steady_clock::time_point until) {
    std::vector<std::chrono::steady_clock::time_point> arrivals;
    for (;;) {
      EXPECT_EQ(PQconsumeInput(connection_), 1) << PQerrorMessage(connection_);
      while (PGnotify* notification = PQnotifies(connection_)) {
        arrivals.push_back(std::chrono::steady_clock::now());
        PQfreemem(notification);
      }
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return arrivals;
      pollfd descriptor{PQsocket(connection_), POLLIN, 0};
      ::poll(&descriptor, 1, static_cast<int>(left.count()));
    }
  }

 private:
  PGconn* connection_;
};

// store.sync-notify, coalesced: ten commits well within one notify interval (1 s here) send
// two notifications, the first commit's own and a trailing one at the interval's end, after the
// last commit returned. Without the trailing one a listener would hear nothing after the first
// commit, and learn the other nine only from its fallback poll.
TEST_F(PostgresLeaseStoreTest, ABurstIsNotifiedAtItsFirstCommitAndAgainAfterItsLast) {
  const auto interval = std::chrono::milliseconds{1000};
  auto writer = notifying_writer(interval);
  ASSERT_NE(writer, nullptr);
  NotificationLog log{database_.url()};
  const auto began = std::chrono::steady_clock::now();
  for (std::uint32_t index = 1; index <= 10; ++index) commit_ok(*writer, {bound_lease(index, 1)});
  const auto ended = std::chrono::steady_clock::now();
  ASSERT_LT(ended - began, interval / 2) << "the burst is no burst on this machine now";
  const auto arrivals = log.collect(began + interval + std::chrono::seconds{2});
  ASSERT_EQ(arrivals.size(), 2u) << "ten commits within the interval: their first's NOTIFY and the trailing one";
  EXPECT_LT(arrivals[0], began + interval / 2);
  EXPECT_GE(arrivals[1], began + interval);  // not before the interval since the first is over
  EXPECT_GT(arrivals[1], ended);
  EXPECT_EQ(writer->notifications().trailing, 1u);
  // A commit after a quiet interval carries its NOTIFY at once again, and owes nothing.
  const auto committed = std::chrono::steady_clock::now();
  commit_ok(*writer, {bound_lease(11, 1)});
  const auto next = log.collect(std::chrono::steady_clock::now() + interval + std::chrono::milliseconds{500});
  ASSERT_EQ(next.size(), 1u);
  EXPECT_LT(next[0] - committed, interval / 2);
  EXPECT_EQ(writer->notifications().trailing, 1u);
}

// A commit carrying a NOTIFY pays the debt of the commits before it, so no trailing NOTIFY goes
// while it is on its way: here it waits for a table lock past the moment the debt fell due, and
// the listener hears one notification for both, after it commits (with the trailing one sent
// meanwhile: three).
TEST_F(PostgresLeaseStoreTest, ACommitCarryingTheNotifyPaysForTheOnesBeforeIt) {
  using namespace std::chrono_literals;
  const auto interval = std::chrono::milliseconds{400};
  auto writer = notifying_writer(interval);
  ASSERT_NE(writer, nullptr);
  NotificationLog log{database_.url()};
  const auto began = std::chrono::steady_clock::now();
  commit_ok(*writer, {bound_lease(1, 1)});  // carries one
  std::this_thread::sleep_until(began + interval / 2);
  commit_ok(*writer, {bound_lease(2, 1)});  // owes one, due an interval after it
  const auto owed = std::chrono::steady_clock::now();
  ASSERT_LT(owed - began, interval) << "the second commit came after the interval";
  std::this_thread::sleep_until(began + interval + 50ms);
  PGconn* locker = PQconnectdb(database_.url().c_str());
  ASSERT_EQ(PQstatus(locker), CONNECTION_OK);
  PQclear(PQexec(locker, "BEGIN"));
  PQclear(PQexec(locker, "LOCK TABLE leases IN ACCESS EXCLUSIVE MODE"));
  std::thread committer([&] { commit_ok(*writer, {bound_lease(3, 1)}); });  // carries one
  std::this_thread::sleep_until(owed + interval + 400ms);
  const auto released = std::chrono::steady_clock::now();
  PQclear(PQexec(locker, "ROLLBACK"));
  PQfinish(locker);
  committer.join();
  const auto arrivals = log.collect(std::chrono::steady_clock::now() + interval + 500ms);
  ASSERT_EQ(arrivals.size(), 2u) << "the first commit's and the third's; no trailing one";
  EXPECT_GT(arrivals[1], released);
  EXPECT_EQ(writer->notifications().carried, 2u);
  EXPECT_EQ(writer->notifications().trailing, 0u);
}

// A burst of 100 back-to-back commits notifies at most once per interval (50 ms here), plus the
// trailing one: far fewer notifications, each a transaction of every listener's backend.
TEST_F(PostgresLeaseStoreTest, ABurstOfCommitsNotifiesAtMostOncePerInterval) {
  const auto interval = std::chrono::milliseconds{50};
  constexpr std::uint32_t kCommits = 100;
  auto writer = notifying_writer(interval);
  ASSERT_NE(writer, nullptr);
  NotificationLog log{database_.url()};
  const auto began = std::chrono::steady_clock::now();
  for (std::uint32_t index = 1; index <= kCommits; ++index) commit_ok(*writer, {bound_lease(index, 1)});
  const auto ended = std::chrono::steady_clock::now();
  const auto arrivals = log.collect(ended + 4 * interval + std::chrono::milliseconds{500});
  const auto intervals = static_cast<std::size_t>((ended - began) / interval);
  const auto sent = writer->notifications();
  std::printf("%u commits in %.0f ms: %zu notifications (%llu carried, %llu trailing)\n", kCommits,
              std::chrono::duration<double, std::milli>(ended - began).count(), arrivals.size(),
              static_cast<unsigned long long>(sent.carried), static_cast<unsigned long long>(sent.trailing));
  EXPECT_EQ(arrivals.size(), sent.carried + sent.trailing);
  EXPECT_GE(arrivals.size(), 1u);
  EXPECT_LE(arrivals.size(), intervals + 2);
  EXPECT_LT(arrivals.size(), kCommits / 4);
}

// The listener's connection dies (the database restarted): the wait says so at once, the next
// poll reconnects and reloads, and the new connection listens again.
TEST_F(PostgresLeaseStoreTest, AListenerListensAgainAfterAReconnect) {
  auto writer = PostgresLeaseStore::open({.url = database_.url(), .notify = true});
  auto listener = open();
  ASSERT_TRUE(writer && listener);
  ASSERT_TRUE(listener->listen().has_value());
  auto cursor = listener->now();
  ASSERT_TRUE(cursor.has_value());
  const int wake = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(wake, 0);
  database_.end_connections();
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_FALSE(listener->await_notification(std::chrono::seconds{10}, wake).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - killed, std::chrono::seconds{5});
  // The writer's connection was ended too: its next commit reconnects first and is written,
  // while nobody listens: this notification is lost.
  commit_ok(**writer, {bound_lease(1, 1)});
  EXPECT_EQ((*writer)->reconnects(), 1u);
  auto reloaded = listener->changes_since(*cursor);
  ASSERT_TRUE(reloaded.has_value()) << reloaded.error().message;
  EXPECT_TRUE(reloaded->reloaded);
  EXPECT_EQ(reloaded->records.size(), 1u);  // the reload finds what the lost one announced
  commit_ok(**writer, {bound_lease(2, 1)});
  auto woken = listener->await_notification(std::chrono::seconds{10}, wake);
  ASSERT_TRUE(woken.has_value()) << woken.error().message;
  EXPECT_TRUE(*woken);
  ::close(wake);
}

// The connection dies under a commit (the database restarted, a proxy dropped it, while the
// commit waited for a row lock): the commit fails, nothing of it is kept, and the next one
// reconnects.
TEST_F(PostgresLeaseStoreTest, ConnectionLostDuringACommitFailsItAndTheNextOneReconnects) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_ok(*store, {bound_lease(1, 1)});
  PGconn* locker = PQconnectdb(database_.url().c_str());
  ASSERT_EQ(PQstatus(locker), CONNECTION_OK);
  PQclear(PQexec(locker, "BEGIN"));
  PQclear(PQexec(locker, "LOCK TABLE leases IN ACCESS EXCLUSIVE MODE"));
  std::optional<Expected<std::vector<WriteResult>, StoreError>> failed;
  std::thread committer([&] { failed = store->commit(std::vector{bound_lease(2, 1)}); });
  // Its backend, once it waits for the lock, is ended.
  std::string pid;
  for (int i = 0; i < 200 && pid.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
    pid = database_.sql("SELECT pid FROM pg_stat_activity WHERE datname = '" + database_.name() +
                        "' AND wait_event_type = 'Lock'");
  }
  if (!pid.empty()) database_.sql("SELECT pg_terminate_backend(" + pid + ")");
  committer.join();
  PQclear(PQexec(locker, "ROLLBACK"));
  PQfinish(locker);
  ASSERT_FALSE(pid.empty()) << "the commit never waited for the lock";
  ASSERT_TRUE(failed.has_value());
  ASSERT_FALSE(failed->has_value());
  EXPECT_EQ(failed->error().kind, StoreError::Kind::Io) << failed->error().message;
  EXPECT_EQ(database_.sql("SELECT count(*) FROM leases"), "1");
  EXPECT_EQ(commit_ok(*store, {bound_lease(2, 1)}), std::vector{WriteResult::Written});
  EXPECT_EQ(store->reconnects(), 1u);
  EXPECT_EQ(load_all(*store).size(), 2u);
}

// A database that stops answering (here: a table lock held by another session) fails the commit
// at the configured timeout (store.timeout, through open_store) instead of hanging the commit
// worker for the default 5 s; nothing of it is kept.
TEST_F(PostgresLeaseStoreTest, StalledDatabaseTimesTheCommitOutAtTheConfiguredTimeout) {
  config::StoreSection section;
  section.type = config::StoreSection::Type::Postgresql;
  section.url = database_.url();
  section.timeout = std::chrono::milliseconds{400};
  // The bound is for the commit; opening (connect, schema check) within it can fail on a
  // loaded machine, which is not what this test is about: a few tries.
  std::unique_ptr<LeaseStore> store;
  for (int attempt = 0; attempt < 10 && store == nullptr; ++attempt) {
    auto opened = open_store(section);
    if (opened) store = std::move(*opened);
  }
  ASSERT_NE(store, nullptr);
  const auto commit_one = [&](std::uint32_t host) { return store->commit(std::vector{bound_lease(host, 1)}); };
  ASSERT_TRUE(commit_one(1).has_value());
  PGconn* locker = PQconnectdb(database_.url().c_str());
  ASSERT_EQ(PQstatus(locker), CONNECTION_OK);
  PQclear(PQexec(locker, "BEGIN"));
  PQclear(PQexec(locker, "LOCK TABLE leases IN ACCESS EXCLUSIVE MODE"));
  const auto started = std::chrono::steady_clock::now();
  const auto failed = commit_one(2);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().message.find("timed out"), std::string::npos) << failed.error().message;
  EXPECT_GE(took, std::chrono::milliseconds{390});
  EXPECT_LT(took, std::chrono::milliseconds{2500});  // the 400 ms, not the default 5 s
  PQclear(PQexec(locker, "ROLLBACK"));
  PQfinish(locker);
  const auto written = commit_one(2);
  ASSERT_TRUE(written.has_value()) << written.error().message;
  EXPECT_EQ(*written, std::vector{WriteResult::Written});
  EXPECT_EQ(load_all(*store).size(), 2u);
}

// store.timeout reaches both connections a server opens: the store's and its change feed's.
TEST(PostgresOptionsTest, TakeTheSectionsTimeoutAndNotify) {
  config::StoreSection section;
  section.type = config::StoreSection::Type::Postgresql;
  section.url = "host=/nowhere dbname=landlord";
  EXPECT_EQ(postgres_options(section, std::nullopt).timeout, std::chrono::seconds{5});
  section.timeout = std::chrono::milliseconds{1500};
  section.sync_notify = true;
  const PostgresOptions options = postgres_options(section, Ipv4(198, 18, 0, 2));
  EXPECT_EQ(options.url, section.url);
  EXPECT_EQ(options.timeout, std::chrono::milliseconds{1500});
  EXPECT_EQ(options.writer, Ipv4(198, 18, 0, 2));
  EXPECT_TRUE(options.notify);
}

// Tests that act on the whole database server (restart it, change a server-wide setting) run
// a cluster of their own, started and removed by tests/support/postgres_cluster.sh.
class PostgresOwnClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* script = std::getenv("LANDLORD_TEST_POSTGRES_CLUSTER");
    if (script == nullptr || *script == '\0') {
      GTEST_FAIL() << "LANDLORD_TEST_POSTGRES_CLUSTER is not set: run through ctest";
    }
    script_ = script;
    dir_ = "/tmp/llpg-" + std::to_string(::getpid());
    ASSERT_EQ(cluster("start"), 0);
    started_ = true;
  }
  void TearDown() override {
    if (!started_) return;
    EXPECT_EQ(cluster("stop"), 0);
  }
  // postgres_cluster.sh ACTION on this test's cluster; its exit status.
  int cluster(const std::string& action) const {
    return std::system((script_ + " " + action + " " + dir_ + " >/dev/null 2>&1").c_str());
  }
  std::string url() const { return "host=" + dir_ + " user=landlord dbname=landlord"; }
  // A store with commit timeout `timeout`; opening within it can fail on a loaded machine,
  // which is not what these tests are about: a few tries.
  std::unique_ptr<PostgresLeaseStore> open(std::chrono::milliseconds timeout) const {
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto opened = PostgresLeaseStore::open({.url = url(), .timeout = timeout});
      if (opened) return std::move(*opened);
    }
    ADD_FAILURE() << "could not open the store";
    return nullptr;
  }
  // One statement on a connection of its own; the first value of the first row, "" if none.
  std::string sql(const std::string& statement) const {
    PGconn* connection = PQconnectdb(url().c_str());
    std::string value;
    if (PQstatus(connection) != CONNECTION_OK) {
      ADD_FAILURE() << PQerrorMessage(connection);
    } else {
      PGresult* result = PQexec(connection, statement.c_str());
      if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0) {
        value = PQgetvalue(result, 0, 0);
      } else if (PQresultStatus(result) != PGRES_COMMAND_OK && PQresultStatus(result) != PGRES_TUPLES_OK) {
        ADD_FAILURE() << statement << ": " << PQresultErrorMessage(result);
      }
      PQclear(result);
    }
    PQfinish(connection);
    return value;
  }

  std::string script_, dir_;
  bool started_ = false;
};

// The database server restarts (a crash, a failover to it) while the store is idle: the store
// finds its connection closed before the next commit and connects again first, so that commit
// is written on its first try instead of failing on the dead connection and waiting for a retry.
class PostgresRestartTest : public PostgresOwnClusterTest {};

TEST_F(PostgresRestartTest, TheFirstCommitAfterARestartIsWrittenAtOnce) {
  auto store = open(std::chrono::seconds{5});
  ASSERT_NE(store, nullptr);
  auto written = store->commit(std::vector{bound_lease(1, 1)});
  ASSERT_TRUE(written.has_value()) << written.error().message;
  ASSERT_EQ(cluster("restart"), 0);
  written = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_TRUE(written.has_value()) << "the first commit after the restart failed: "
                                   << written.error().message;
  EXPECT_EQ(*written, std::vector{WriteResult::Written});
  EXPECT_EQ(store->reconnects(), 1u);
  EXPECT_EQ(sql("SELECT count(*) FROM leases"), "2");
}

// A primary whose synchronous standby is gone: synchronous_standby_names names a standby that
// is not there, so every COMMIT waits for it (in a cluster of this test's own: the setting is the
// whole server's). A commit times out and is not acknowledged. One whose wait is cancelled
// (pg_cancel_backend: an operator, a tool ending long queries) is answered "COMMIT" by PostgreSQL
// with only a WARNING: committed on the primary, maybe on no standby. It is not acknowledged
// either; once the standby setting is met again, its retry is written.
class PostgresSynchronousStandbyTest : public PostgresOwnClusterTest {
 protected:
  void require_standby(const std::string& names) {
    sql("ALTER SYSTEM SET synchronous_standby_names = '" + names + "'");
    sql("SELECT pg_reload_conf()");
    for (int i = 0; i < 100 && sql("SHOW synchronous_standby_names") != names; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    ASSERT_EQ(sql("SHOW synchronous_standby_names"), names);
  }
};

TEST_F(PostgresSynchronousStandbyTest, ACommitNotConfirmedByTheStandbyIsNotAcknowledged) {
  auto store = open(std::chrono::milliseconds{1500});
  ASSERT_NE(store, nullptr);
  auto written = store->commit(std::vector{bound_lease(1, 1)});
  ASSERT_TRUE(written.has_value()) << written.error().message;
  require_standby("absent_standby");

  // The standby never confirms: the commit times out.
  const auto started = std::chrono::steady_clock::now();
  const auto timed_out = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(timed_out.has_value());
  EXPECT_NE(timed_out.error().message.find("timed out"), std::string::npos) << timed_out.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds{4});

  // The wait is cancelled: PostgreSQL answers COMMIT, with a warning; landlord does not take it.
  const std::string waiting_before =
      sql("SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
  std::optional<Expected<std::vector<WriteResult>, StoreError>> cancelled;
  std::thread committer([&] { cancelled = store->commit(std::vector{bound_lease(3, 1)}); });
  std::string pid;
  for (int i = 0; i < 100 && pid.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
    pid = sql("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND pid::text <> ALL "
              "(string_to_array('" + waiting_before + "', ','))");
  }
  if (!pid.empty()) sql("SELECT pg_cancel_backend(" + pid + ")");
  committer.join();
  ASSERT_FALSE(pid.empty()) << "the commit never waited for the standby";
  ASSERT_TRUE(cancelled.has_value());
  ASSERT_FALSE(cancelled->has_value()) << "a commit cancelled in its wait for the standby was acknowledged";
  EXPECT_EQ(cancelled->error().kind, StoreError::Kind::Io);
  EXPECT_NE(cancelled->error().message.find("answered COMMIT with a warning"), std::string::npos)
      << cancelled->error().message;
  // It is committed on this server all the same: exactly what must not be acknowledged.
  EXPECT_EQ(sql("SELECT count(*) FROM leases WHERE address = '198.18.0.3'"), "1");

  // The standby requirement is met again (here: dropped): the retry is written.
  require_standby("");
  written = store->commit(std::vector{bound_lease(3, 1)});
  ASSERT_TRUE(written.has_value()) << written.error().message;
  EXPECT_EQ(*written, std::vector{WriteResult::Written});
}

// Who is up: each server's presence lock lives as long as its session. A server that goes (its
// connection closed, as a killed process's is) drops out of present() at once; one that was cut
// off takes its lock again when it reconnects; a second session with the same id is refused.
TEST_F(PostgresLeaseStoreTest, PresenceLastsAsLongAsTheSessionAndComesBackWithIt) {
  auto first = open();
  auto second = open();
  ASSERT_TRUE(first && second);
  const std::uint32_t a = Ipv4{198, 18, 0, 1}.to_uint(), b = Ipv4{255, 18, 0, 2}.to_uint();
  auto announced = first->announce(a);
  ASSERT_TRUE(announced.has_value()) << announced.error().message;
  EXPECT_TRUE(*announced);
  auto second_announced = second->announce(b);  // above 2^31: a negative int4 in the lock
  ASSERT_TRUE(second_announced.has_value() && *second_announced);
  const auto present = [&](PostgresLeaseStore& store) {
    auto ids = store.present();
    EXPECT_TRUE(ids.has_value()) << (ids ? "" : ids.error().message);
    std::vector<std::uint32_t> sorted = ids ? *ids : std::vector<std::uint32_t>{};
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  };
  EXPECT_EQ(present(*first), (std::vector<std::uint32_t>{a, b}));

  auto impostor = open();
  ASSERT_TRUE(impostor);
  auto refused = impostor->announce(a);
  ASSERT_TRUE(refused.has_value()) << refused.error().message;
  EXPECT_FALSE(*refused);
  EXPECT_FALSE(impostor->presence_held());
  impostor.reset();

  // Its session ends: gone as soon as the server has ended the backend (PQfinish only sends
  // the goodbye, so the backend may still hold the lock for a moment; bounded at 5 s).
  second.reset();
  auto after_close = present(*first);
  for (int poll = 0; poll < 250 && after_close != std::vector<std::uint32_t>{a}; ++poll) {
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    after_close = present(*first);
  }
  EXPECT_EQ(after_close, std::vector<std::uint32_t>{a});

  database_.end_connections();  // every session cut: the next call reconnects and announces
  EXPECT_EQ(present(*first), std::vector<std::uint32_t>{a});
  EXPECT_TRUE(first->presence_held());
  EXPECT_EQ(first->reconnects(), 1u);
}

}  // namespace
}  // namespace landlord::store
