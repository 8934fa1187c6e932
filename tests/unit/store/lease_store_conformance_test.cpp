// One suite every LeaseStore backend passes (after Kea's generic_lease_mgr_unittest): what the
// daemon relies on is written once and checked against each backend.
#include <sqlite3.h>

#include <array>
#include <functional>
#include <map>
#include <memory>

#include "landlord/store/memory_lease_store.hpp"
#include "landlord/store/postgres_lease_store.hpp"
#include "landlord/store/sqlite_lease_store.hpp"
#include "postgres_test_support.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using lease::LeaseState;
using testing::bound_lease;
using testing::load_all;
using testing::same_lease;
using testing::ScratchDirectory;

struct Backend {
  std::string name;
  bool persistent = false;
  // Opens the backend's store; for a persistent one, opening again sees the same records.
  std::function<std::unique_ptr<LeaseStore>(const std::filesystem::path& directory)> open;
  // Makes the next write of `address` fail inside the transaction, after earlier records of the
  // same batch were applied; `clear` undoes it.
  std::function<void(LeaseStore&, const std::filesystem::path&, Ipv4 address)> inject_fault;
  std::function<void(const std::filesystem::path&)> clear_fault;
  // Removes what open() made outside `directory` (a database); after the store is closed.
  std::function<void(const std::filesystem::path&)> release = [](const std::filesystem::path&) {};
};

// Names the backend in test output instead of dumping the struct's bytes.
void PrintTo(const Backend& backend, std::ostream* out) { *out << backend.name; }

void run_sql(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((file).c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
      << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

Backend memory_backend() {
  return Backend{
      .name = "memory",
      .persistent = false,
      .open = [](const std::filesystem::path&) { return std::make_unique<MemoryLeaseStore>(); },
      .inject_fault =
          [](LeaseStore& store, const std::filesystem::path&, Ipv4 address) {
            dynamic_cast<MemoryLeaseStore&>(store).fail_next_commit_at(
                address, StoreError{StoreError::Kind::Io, "injected fault"});
          },
      .clear_fault = [](const std::filesystem::path&) {},
  };
}

Backend sqlite_backend() {
  return Backend{
      .name = "sqlite",
      .persistent = true,
      .open = [](const std::filesystem::path& directory) -> std::unique_ptr<LeaseStore> {
        auto store = SqliteLeaseStore::open({.path = directory / "leases.db"});
        EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
        return store ? std::move(*store) : nullptr;
      },
      // A trigger from another connection: SQLite itself aborts the statement mid-batch.
      .inject_fault =
          [](LeaseStore&, const std::filesystem::path& directory, Ipv4 address) {
            run_sql(directory / "leases.db",
                    "CREATE TRIGGER injected_fault BEFORE INSERT ON leases WHEN NEW.address = '" +
                        address.to_string() + "' BEGIN SELECT RAISE(ABORT, 'injected fault'); END");
          },
      .clear_fault =
          [](const std::filesystem::path& directory) {
            run_sql(directory / "leases.db", "DROP TRIGGER injected_fault");
          },
  };
}

// One database per test directory, made on first open, dropped by release().
std::map<std::filesystem::path, std::unique_ptr<testing::ScratchDatabase>>& postgres_databases() {
  static std::map<std::filesystem::path, std::unique_ptr<testing::ScratchDatabase>> databases;
  return databases;
}

testing::ScratchDatabase& postgres_database(const std::filesystem::path& directory) {
  auto& database = postgres_databases()[directory];
  if (database == nullptr) database = std::make_unique<testing::ScratchDatabase>();
  return *database;
}

Backend postgres_backend() {
  return Backend{
      .name = "postgresql",
      .persistent = true,
      .open = [](const std::filesystem::path& directory) -> std::unique_ptr<LeaseStore> {
        auto store = PostgresLeaseStore::open({.url = postgres_database(directory).url()});
        EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
        return store ? std::move(*store) : nullptr;
      },
      // A trigger made by another connection: PostgreSQL aborts the transaction mid-batch.
      .inject_fault =
          [](LeaseStore&, const std::filesystem::path& directory, Ipv4 address) {
            postgres_database(directory).sql(
                "CREATE FUNCTION injected_fault() RETURNS trigger LANGUAGE plpgsql AS"
                " $$BEGIN RAISE EXCEPTION 'injected fault'; END$$;"
                " CREATE TRIGGER injected_fault BEFORE INSERT ON leases FOR EACH ROW"
                " WHEN (NEW.address = '" + address.to_string() +
                "') EXECUTE FUNCTION injected_fault()");
          },
      .clear_fault =
          [](const std::filesystem::path& directory) {
            postgres_database(directory).sql("DROP TRIGGER injected_fault ON leases");
          },
      .release = [](const std::filesystem::path& directory) {
        postgres_databases().erase(directory);
      },
  };
}

// The PostgreSQL backend only where the ctest fixture gives it a cluster (see
// postgres_test_support.hpp); its ctest entry selects it with a filter.
std::vector<Backend> all_backends() {
  std::vector<Backend> backends{memory_backend(), sqlite_backend()};
  if (testing::postgres_server()) backends.push_back(postgres_backend());
  return backends;
}
std::vector<Backend> persistent_backends() {
  std::vector<Backend> backends{sqlite_backend()};
  if (testing::postgres_server()) backends.push_back(postgres_backend());
  return backends;
}

class LeaseStoreConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    store_ = GetParam().open(directory_.path());
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override {
    store_.reset();
    GetParam().release(directory_.path());
  }
  std::vector<WriteResult> commit_ok(std::vector<lease::Lease> batch) {
    auto results = store_->commit(batch);
    EXPECT_TRUE(results.has_value()) << (results ? "" : results.error().message);
    return results ? *results : std::vector<WriteResult>{};
  }
  lease::Lease only_record() {
    auto records = load_all(*store_);
    EXPECT_EQ(records.size(), 1u);
    return records.empty() ? lease::Lease{} : records.front();
  }

  ScratchDirectory directory_;
  std::unique_ptr<LeaseStore> store_;
};

TEST_P(LeaseStoreConformance, FreshStoreLoadsNothing) { EXPECT_TRUE(load_all(*store_).empty()); }

TEST_P(LeaseStoreConformance, EmptyBatchCommitsNothing) {
  EXPECT_TRUE(commit_ok({}).empty());
  EXPECT_TRUE(load_all(*store_).empty());
}

TEST_P(LeaseStoreConformance, RoundTripsEveryField) {
  std::vector<lease::Lease> records;
  // Client id present and absent, hostname present and absent, classes present and absent.
  for (std::uint32_t index = 0; index < 6; ++index)
    records.push_back(bound_lease(index, index + 1));
  // Every persisted state and extension, odd times, extremes of the integer fields.
  auto released = bound_lease(10, 7);
  released.state = LeaseState::Released;
  released.last_extension = lease::Extension::Renewing;
  auto expired = bound_lease(11, 8);
  expired.state = LeaseState::Expired;
  expired.last_extension = lease::Extension::Rebinding;
  expired.granted_at = time_from_unix_ms(1);
  expired.lease_time = Duration{999};
  auto declined = bound_lease(12, 9);
  declined.state = LeaseState::Declined;
  declined.hardware = HardwareAddress{};
  declined.client_id = ClientId{};
  declined.client = ClientKey{};
  declined.hostname.clear();
  declined.lease_time = std::chrono::minutes{10};
  declined.renew_time = Duration{0};
  declined.rebind_time = Duration{0};
  auto extreme = bound_lease(13, std::uint64_t{1} << 62);
  extreme.subnet_id = 0xffffffffu;
  const std::uint8_t infiniband[16] = {0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
                                       0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00};
  extreme.hardware = HardwareAddress{32, infiniband};
  std::vector<std::uint8_t> long_id(255);
  for (std::size_t index = 0; index < long_id.size(); ++index) {
    long_id[index] = static_cast<std::uint8_t>(index);
  }
  extreme.client_id = ClientId{long_id};
  extreme.client = ClientKey::from(extreme.client_id, extreme.hardware);
  extreme.hostname = std::string(255, 'h');
  for (int index = 0; index < 64; ++index) {  // the most classes a lease can name, long names
    extreme.classes += (index == 0 ? "" : ",") + std::string(62, 'c') + std::to_string(10 + index);
  }
  extreme.fqdn = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                 std::string(61, 'd');  // 253 bytes, the longest name
  extreme.dns_sides = {true, true};
  extreme.dns_state = lease::DnsState::Conflict;
  extreme.relay_agent_info.resize(255);
  for (std::size_t index = 0; index < extreme.relay_agent_info.size(); ++index) {
    extreme.relay_agent_info[index] = static_cast<char>(index);  // NUL bytes included
  }
  extreme.granted_at = time_from_unix_ms(4'102'444'800'999);  // 2100-01-01, ms precision
  extreme.lease_time = std::chrono::hours{24 * 365 * 10};
  // A key that is not derived from the lease's own fields still round-trips exactly.
  auto other_key = bound_lease(14, 3);
  other_key.client = ClientKey::from(ClientId{}, other_key.hardware);
  // Option 61 joined from several instances (RFC 3396) can be longer than one option's 255.
  auto joined = bound_lease(15, 4);
  joined.client_id = ClientId{std::vector<std::uint8_t>(400, 0xab)};
  joined.client = ClientKey::from(joined.client_id, joined.hardware);
  records.insert(records.end(), {released, expired, declined, extreme, other_key, joined});
  // The name in DNS: every side and DNS state, with and without option 82 (#33, #35).
  const std::array<lease::DnsState, 5> dns_states{lease::DnsState::None, lease::DnsState::Pending,
                                                  lease::DnsState::Done, lease::DnsState::Conflict,
                                                  lease::DnsState::Failed};
  for (std::uint32_t index = 0; index < 20; ++index) {
    auto named = bound_lease(20 + index, 5);
    named.fqdn = index % 5 == 0 ? "" : "host-" + std::to_string(index) + ".lab.example";
    named.dns_sides = {(index & 1) != 0, (index & 2) != 0};
    named.dns_state = dns_states[index % dns_states.size()];
    if (index % 3 == 0) named.relay_agent_info = std::string("\x01\x03eth\x02\x02\x00\x07", 9);
    if (index >= 15) named.state = index == 15 ? LeaseState::Released : LeaseState::Expired;
    records.push_back(std::move(named));
  }

  const auto results = commit_ok(records);
  EXPECT_EQ(results, std::vector<WriteResult>(records.size(), WriteResult::Written));
  const auto loaded = load_all(*store_);
  ASSERT_EQ(loaded.size(), records.size());
  for (const auto& record : records) {
    const auto match = std::find_if(loaded.begin(), loaded.end(), [&](const lease::Lease& other) {
      return other.address == record.address;
    });
    ASSERT_NE(match, loaded.end()) << record.address.to_string();
    EXPECT_TRUE(same_lease(record, *match));
    EXPECT_EQ(unix_ms(match->expires_at()), unix_ms(record.expires_at()));
  }
}

TEST_P(LeaseStoreConformance, StateTransitionsReplaceTheAddressRecord) {
  auto record = bound_lease(1, 1);
  commit_ok({record});
  // Renewal keeps the token; release and expiry keep it; a new holder gets a new one.
  record.granted_at += std::chrono::minutes{30};
  record.last_extension = lease::Extension::Renewing;
  commit_ok({record});
  EXPECT_TRUE(same_lease(record, only_record()));
  record.state = LeaseState::Released;
  commit_ok({record});
  EXPECT_TRUE(same_lease(record, only_record()));
  auto next_holder = bound_lease(2, 2);
  next_holder.address = record.address;
  commit_ok({next_holder});
  EXPECT_TRUE(same_lease(next_holder, only_record()));
  next_holder.state = LeaseState::Expired;
  commit_ok({next_holder});
  EXPECT_TRUE(same_lease(next_holder, only_record()));
  auto declined = next_holder;
  declined.state = LeaseState::Declined;
  declined.fencing_token = 3;
  commit_ok({declined});
  EXPECT_TRUE(same_lease(declined, only_record()));
}

TEST_P(LeaseStoreConformance, StaleTokenIsRefusedAndLeavesTheRowUnchanged) {
  const auto current = bound_lease(1, 5);
  commit_ok({current});
  auto stale = bound_lease(2, 4);  // another client, older grant of the same address
  stale.address = current.address;
  stale.state = LeaseState::Released;
  EXPECT_EQ(commit_ok({stale}), std::vector{WriteResult::StaleToken});
  EXPECT_TRUE(same_lease(current, only_record()));
}

TEST_P(LeaseStoreConformance, NewerTokenIsWritten) {
  auto ended = bound_lease(1, 5);
  ended.state = LeaseState::Released;
  commit_ok({ended});
  auto newer = bound_lease(2, 6);
  newer.address = bound_lease(1).address;
  EXPECT_EQ(commit_ok({newer}), std::vector{WriteResult::Written});
  EXPECT_TRUE(same_lease(newer, only_record()));
}

TEST_P(LeaseStoreConformance, EqualTokenIsWritten) {
  auto record = bound_lease(1, 5);
  commit_ok({record});
  record.granted_at += std::chrono::minutes{40};  // an extension keeps the token
  record.last_extension = lease::Extension::Rebinding;
  EXPECT_EQ(commit_ok({record}), std::vector{WriteResult::Written});
  EXPECT_TRUE(same_lease(record, only_record()));
}

TEST_P(LeaseStoreConformance, EqualTokenFromAnotherHolderIsStale) {
  // Two writers that each believe they make the first grant of an address carry equal tokens;
  // the second one must not replace the first holder.
  const auto first = bound_lease(1, 5);
  commit_ok({first});
  auto competing = bound_lease(2, 5);
  competing.address = first.address;
  EXPECT_EQ(commit_ok({competing}), std::vector{WriteResult::StaleToken});
  EXPECT_TRUE(same_lease(first, only_record()));
}

TEST_P(LeaseStoreConformance, GrantOverAnotherClientsRunningLeaseIsRefused) {
  // A server whose view is stale (it missed the grant) takes a higher token for its own grant;
  // the store still refuses it while the other client's lease runs.
  const auto holder = bound_lease(1, 5);
  commit_ok({holder});
  auto intruder = bound_lease(2, 6);
  intruder.address = holder.address;
  intruder.granted_at = holder.granted_at + std::chrono::minutes{30};
  EXPECT_EQ(commit_ok({intruder}), std::vector{WriteResult::StaleToken});
  auto declined = intruder;  // a stale server's decline over the lease is refused alike
  declined.state = LeaseState::Declined;
  EXPECT_EQ(commit_ok({declined}), std::vector{WriteResult::StaleToken});
  EXPECT_TRUE(same_lease(holder, only_record()));
  intruder.granted_at = holder.expires_at();  // the lease has run out: the address is free
  EXPECT_EQ(commit_ok({intruder}), std::vector{WriteResult::Written});
  EXPECT_TRUE(same_lease(intruder, only_record()));
}

TEST_P(LeaseStoreConformance, OlderWriteOfTheSameGrantIsRefused) {
  // Another server extended the lease; a paused server's expiry of the original period (same
  // client, same token, older start) must not end it.
  auto original = bound_lease(1, 5);
  commit_ok({original});
  auto extended = original;
  extended.granted_at += std::chrono::minutes{52};
  extended.last_extension = lease::Extension::Rebinding;
  EXPECT_EQ(commit_ok({extended}), std::vector{WriteResult::Written});
  auto stale_expiry = original;
  stale_expiry.state = LeaseState::Expired;
  EXPECT_EQ(commit_ok({stale_expiry}), std::vector{WriteResult::StaleToken});
  EXPECT_TRUE(same_lease(extended, only_record()));
  auto expiry = extended;  // the expiry of the current period is the holder's own
  expiry.state = LeaseState::Expired;
  EXPECT_EQ(commit_ok({expiry}), std::vector{WriteResult::Written});
}

TEST_P(LeaseStoreConformance, TakeoverTokenFencesTheOldServersLaterWrites) {
  // Server A granted the lease (token 5) and was paused; the client rebound at T2 to server B,
  // which wrote the takeover as a new grant epoch (token 6, Engine: a rebind takes a new token).
  auto granted = bound_lease(1, 5);
  commit_ok({granted});
  auto taken_over = granted;
  taken_over.granted_at += std::chrono::minutes{53};
  taken_over.last_extension = lease::Extension::Rebinding;
  taken_over.fencing_token = 6;
  EXPECT_EQ(commit_ok({taken_over}), std::vector{WriteResult::Written});
  // A wakes: a RENEW it had queued, answered from its old view, starts later than the takeover,
  // but carries the old epoch's token: refused, so A never ACKs it. (With the same token the
  // store would take it: same client, not older.)
  auto late_renewal = granted;
  late_renewal.granted_at = taken_over.granted_at + std::chrono::seconds{20};
  late_renewal.last_extension = lease::Extension::Renewing;
  auto late_expiry = granted;
  late_expiry.state = LeaseState::Expired;
  EXPECT_EQ(commit_ok({late_renewal, late_expiry}),
            (std::vector{WriteResult::StaleToken, WriteResult::StaleToken}));
  EXPECT_TRUE(same_lease(taken_over, only_record()));
  // B's own renewal in the new epoch is written.
  auto renewed = taken_over;
  renewed.granted_at += std::chrono::minutes{30};
  renewed.last_extension = lease::Extension::Renewing;
  EXPECT_EQ(commit_ok({renewed}), std::vector{WriteResult::Written});
  // Had the takeover kept the old token, the same late renewal would have been written: the
  // token is what fences it.
  auto kept = bound_lease(3, 5);
  commit_ok({kept});
  auto kept_takeover = kept;
  kept_takeover.granted_at += std::chrono::minutes{53};
  commit_ok({kept_takeover});
  auto kept_late = kept;
  kept_late.granted_at = kept_takeover.granted_at + std::chrono::seconds{20};
  EXPECT_EQ(commit_ok({kept_late}), std::vector{WriteResult::Written});
}

TEST_P(LeaseStoreConformance, BatchReportsEachRecordInOrder) {
  commit_ok({bound_lease(2, 9)});
  auto stale = bound_lease(2, 3);
  stale.hostname = "stale";
  const auto results = commit_ok({bound_lease(1, 1), stale, bound_lease(3, 1)});
  EXPECT_EQ(results,
            (std::vector{WriteResult::Written, WriteResult::StaleToken, WriteResult::Written}));
  EXPECT_EQ(load_all(*store_).size(), 3u);
}

TEST_P(LeaseStoreConformance, LaterRecordForAnAddressIsComparedWithTheEarlierOne) {
  EXPECT_EQ(commit_ok({bound_lease(1, 3), bound_lease(1, 2)}),
            (std::vector{WriteResult::Written, WriteResult::StaleToken}));
  EXPECT_EQ(only_record().fencing_token, 3u);
  EXPECT_EQ(commit_ok({bound_lease(1, 4), bound_lease(1, 5)}),
            (std::vector{WriteResult::Written, WriteResult::Written}));
  EXPECT_EQ(only_record().fencing_token, 5u);
}

TEST_P(LeaseStoreConformance, FailedBatchLeavesNothingAndStoreStaysUsable) {
  const auto before = bound_lease(1, 1);
  commit_ok({before});
  auto update = bound_lease(1, 2);
  update.hostname = "changed";
  const std::vector batch{update, bound_lease(2, 1), bound_lease(3, 1)};
  GetParam().inject_fault(*store_, directory_.path(), bound_lease(3).address);

  const auto failed = store_->commit(batch);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().message.find("injected fault"), std::string::npos)
      << failed.error().message;
  EXPECT_TRUE(same_lease(before, only_record()));

  GetParam().clear_fault(directory_.path());
  EXPECT_EQ(commit_ok(batch), std::vector<WriteResult>(3, WriteResult::Written));
  EXPECT_EQ(load_all(*store_).size(), 3u);
}

TEST_P(LeaseStoreConformance, LoadsManyRecords) {
  constexpr std::uint32_t kCount = 20'000;
  std::vector<lease::Lease> batch;
  for (std::uint32_t index = 0; index < kCount; ++index) {
    batch.push_back(bound_lease(index, index));
    if (batch.size() == 2'500) {
      commit_ok(std::move(batch));
      batch.clear();
    }
  }
  std::vector<bool> seen(kCount, false);
  std::size_t mismatches = 0;
  auto loaded = store_->load([&](lease::Lease&& record) {
    const auto index = record.address.to_uint() - bound_lease(0).address.to_uint();
    ASSERT_LT(index, kCount);
    EXPECT_FALSE(seen[index]) << "loaded twice: " << record.address.to_string();
    seen[index] = true;
    if (!same_lease(bound_lease(index, index), record)) ++mismatches;
  });
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), kCount);
  EXPECT_EQ(mismatches, 0u);
}

// What only a persistent backend promises: instantiated with those alone, so no run of the
// suite reports a skip that means nothing.
class PersistentLeaseStoreConformance : public LeaseStoreConformance {};

TEST_P(PersistentLeaseStoreConformance, ReopenedStoreHasTheRecords) {
  ASSERT_TRUE(GetParam().persistent) << GetParam().name;
  const std::vector records{bound_lease(1, 4), bound_lease(2, 5)};
  commit_ok(records);
  store_.reset();
  store_ = GetParam().open(directory_.path());
  ASSERT_NE(store_, nullptr);
  const auto loaded = load_all(*store_);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_TRUE(same_lease(records[0], loaded[0]));
  EXPECT_TRUE(same_lease(records[1], loaded[1]));
  // Fencing survives the restart too.
  EXPECT_EQ(commit_ok({bound_lease(1, 3)}), std::vector{WriteResult::StaleToken});
}

TEST_P(LeaseStoreConformance, OfferedRecordStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto offer = bound_lease(1, 1);
  offer.state = LeaseState::Offered;
  EXPECT_DEATH((void)store_->commit(std::vector{offer}), "Offered");
}

INSTANTIATE_TEST_SUITE_P(Backends, LeaseStoreConformance, ::testing::ValuesIn(all_backends()),
                         [](const auto& backend) { return backend.param.name; });
INSTANTIATE_TEST_SUITE_P(Backends, PersistentLeaseStoreConformance,
                         ::testing::ValuesIn(persistent_backends()),
                         [](const auto& backend) { return backend.param.name; });

}  // namespace
}  // namespace landlord::store
