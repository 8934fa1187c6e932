// What only the SQLite backend promises: durability settings, a schema operators can query,
// fencing across connections, and clear errors for files and faults it cannot work with.
#include "landlord/store/sqlite_lease_store.hpp"

#include <sqlite3.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "landlord/store/open_store.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using testing::bound_lease;
using testing::ImmutableFile;
using testing::load_all;
using testing::same_lease;
using testing::ScratchDirectory;

// A second connection to the file, as an operator's sqlite3 shell or another process has.
class RawConnection {
 public:
  explicit RawConnection(const std::filesystem::path& file) {
    EXPECT_EQ(sqlite3_open(file.c_str(), &db_), SQLITE_OK);
  }
  ~RawConnection() { sqlite3_close(db_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  int execute(const std::string& sql) {
    char* message = nullptr;
    const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(code, SQLITE_OK) << sql << ": " << (message ? message : "");
    sqlite3_free(message);
    return code;
  }
  // The rows of `sql`, each row's columns joined with '|', NULL as "NULL".
  std::vector<std::string> rows(const std::string& sql) {
    std::vector<std::string> result;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
    while (sqlite3_step(statement) == SQLITE_ROW) {
      std::string row;
      for (int column = 0; column < sqlite3_column_count(statement); ++column) {
        if (column > 0) row += '|';
        const auto* text = sqlite3_column_text(statement, column);
        row += text ? reinterpret_cast<const char*>(text) : "NULL";
      }
      result.push_back(row);
    }
    sqlite3_finalize(statement);
    return result;
  }
  std::vector<std::string> column_names(const std::string& table) {
    std::vector<std::string> names;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, ("SELECT * FROM " + table).c_str(), -1, &statement, nullptr),
              SQLITE_OK);
    for (int column = 0; column < sqlite3_column_count(statement); ++column) {
      names.emplace_back(sqlite3_column_name(statement, column));
    }
    sqlite3_finalize(statement);
    return names;
  }

 private:
  sqlite3* db_ = nullptr;
};

class SqliteLeaseStoreTest : public ::testing::Test {
 protected:
  std::filesystem::path file() const { return directory_.path() / "leases.db"; }
  std::unique_ptr<SqliteLeaseStore> open_ok(SqliteOptions options = {}) {
    if (options.path.empty()) options.path = file();
    auto store = SqliteLeaseStore::open(options);
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
    return store ? std::move(*store) : nullptr;
  }
  StoreError open_error(SqliteOptions options = {}) {
    if (options.path.empty()) options.path = file();
    auto store = SqliteLeaseStore::open(options);
    EXPECT_FALSE(store.has_value()) << "opened " << options.path;
    return store ? StoreError{} : store.error();
  }

  ScratchDirectory directory_;
};

bool mentions(const StoreError& error, const std::string& text) {
  return error.message.find(text) != std::string::npos;
}

TEST_F(SqliteLeaseStoreTest, RunsWithWalAndSynchronousFull) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  const auto settings = store->durability();
  ASSERT_TRUE(settings.has_value()) << settings.error().message;
  EXPECT_EQ(settings->journal_mode, "wal");
  EXPECT_EQ(settings->synchronous, 2);  // FULL
  // WAL is a property of the file: another connection sees it too.
  RawConnection other(file());
  EXPECT_EQ(other.rows("PRAGMA journal_mode"), std::vector<std::string>{"wal"});
}

TEST_F(SqliteLeaseStoreTest, CheckpointsRunBesideTheWriterAndTheWalStartsOver) {
  auto store = open_ok();
  ASSERT_TRUE(store);
  // Scattered addresses touch many pages per commit: 400 commits of 32 leases write well over
  // ten times the checkpoint threshold into the WAL.
  std::uint32_t next = 0;
  std::vector<lease::Lease> written;
  for (int commit = 0; commit < 400; ++commit) {
    std::vector<lease::Lease> batch;
    for (int leases = 0; leases < 32; ++leases) {
      next = next * 1'103'515'245u + 12'345u;  // a fixed pseudo-random walk over 198.18.0.0/15
      batch.push_back(bound_lease((next >> 8) & 0x1ffffu));
    }
    ASSERT_TRUE(store->commit(batch));
    written.insert(written.end(), batch.begin(), batch.end());
  }
  const CheckpointCounts counts = store->checkpoints();
  EXPECT_GT(counts.background, 0u) << "the checkpoint thread never ran";
  EXPECT_GT(counts.writer, 0u) << "the writer never finished one: the WAL would never restart";
  // A WAL that never started over would hold every page written: far above the threshold.
  const auto wal_pages = std::filesystem::file_size(file().string() + "-wal") / 4096;
  constexpr std::uintmax_t kCheckpointStartFrames = 1000;  // ours, as SQLite's default
  EXPECT_LT(wal_pages, 4 * kCheckpointStartFrames) << "WAL pages";
  // Everything committed reads back, from a second connection too.
  store.reset();
  auto reopened = open_ok();
  ASSERT_TRUE(reopened);
  const auto loaded = load_all(*reopened);
  std::map<Ipv4, lease::Lease> last;
  for (const auto& lease : written) last[lease.address] = lease;
  ASSERT_EQ(loaded.size(), last.size());
  for (const auto& lease : loaded) EXPECT_TRUE(same_lease(lease, last.at(lease.address)));
}

TEST_F(SqliteLeaseStoreTest, OperatorsReadTheLeasesTable) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  auto with_id = bound_lease(2, 7);   // even index: has a client id; hostname "host-2"
  auto released = bound_lease(3, 8);  // no client id, no hostname
  released.state = lease::LeaseState::Released;
  ASSERT_TRUE(store->commit(std::vector{with_id, released}).has_value());

  RawConnection operator_shell(file());
  const auto columns = operator_shell.column_names("leases");
  const std::vector<std::string> first_columns(columns.begin(), columns.begin() + 7);
  EXPECT_EQ(first_columns, (std::vector<std::string>{"address", "state", "hwaddr", "client_id",
                                                     "hostname", "expires_at", "fencing_token"}));
  EXPECT_EQ(operator_shell.rows("SELECT address, state, hwaddr, client_id, hostname, expires_at,"
                                " fencing_token FROM leases ORDER BY address"),
            (std::vector<std::string>{
                "198.18.0.2|bound|02:00:00:00:00:02|01:aa:bb:02|host-2|" +
                    std::to_string(unix_seconds(with_id.expires_at())) + "|7",
                "198.18.0.3|released|02:00:00:00:00:03|NULL|NULL|" +
                    std::to_string(unix_seconds(released.expires_at())) + "|8",
            }));
  EXPECT_EQ(operator_shell.rows("PRAGMA user_version"),
            std::vector{std::to_string(SqliteLeaseStore::kSchemaVersion)});
}

TEST_F(SqliteLeaseStoreTest, FencingHoldsAcrossConnections) {
  auto first = open_ok();
  auto second = open_ok();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const auto newer = bound_lease(1, 10);
  ASSERT_TRUE(first->commit(std::vector{newer}).has_value());
  auto stale = bound_lease(2, 9);
  stale.address = newer.address;
  const auto refused = second->commit(std::vector{stale});
  ASSERT_TRUE(refused.has_value()) << refused.error().message;
  EXPECT_EQ(*refused, std::vector{WriteResult::StaleToken});
  const auto records = load_all(*first);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(same_lease(newer, records[0]));
}

// The fencing condition is in the SQL, so it holds for another process too (say, a second
// daemon started by mistake on the same file).
TEST_F(SqliteLeaseStoreTest, FencingHoldsAcrossProcesses) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  const auto current = bound_lease(1, 10);
  ASSERT_TRUE(store->commit(std::vector{current}).has_value());

  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    // Exit codes: 0 stale refused and newer written, 1 unexpected results, 2 store error.
    auto other = SqliteLeaseStore::open({.path = file()});
    if (!other) ::_exit(2);
    auto stale = bound_lease(2, 9);
    stale.address = current.address;
    auto newer = bound_lease(3, 11);
    newer.address = bound_lease(4).address;
    const auto results = (*other)->commit(std::vector{stale, newer});
    if (!results) ::_exit(2);
    ::_exit(*results == std::vector{WriteResult::StaleToken, WriteResult::Written} ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const auto records = load_all(*store);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(same_lease(current, records[0]));
}

TEST_F(SqliteLeaseStoreTest, GarbageFileIsCorrupt) {
  {
    std::ofstream garbage(file(), std::ios::binary);
    for (int index = 0; index < 4096; ++index) garbage.put(static_cast<char>(index * 7 % 251));
  }
  const auto error = open_error();
  EXPECT_EQ(error.kind, StoreError::Kind::Corrupt) << error.message;
  EXPECT_TRUE(mentions(error, file().string())) << error.message;
}

TEST_F(SqliteLeaseStoreTest, DamagedPagesAreCorrupt) {
  {
    auto store = open_ok();
    std::vector<lease::Lease> batch;
    for (std::uint32_t index = 0; index < 2000; ++index) batch.push_back(bound_lease(index));
    ASSERT_TRUE(store->commit(batch).has_value());
  }  // closing checkpoints the WAL into the main file
  {
    // Keep the header page, overwrite the table's pages.
    std::fstream damaged(file(), std::ios::binary | std::ios::in | std::ios::out);
    damaged.seekp(4096);
    for (int index = 0; index < 64 * 1024; ++index) damaged.put(static_cast<char>(0xa5));
  }
  auto opened = SqliteLeaseStore::open({.path = file()});
  StoreError error;
  if (!opened) {
    error = opened.error();
  } else {
    auto loaded = (*opened)->load([](lease::Lease&&) {});
    ASSERT_FALSE(loaded.has_value());
    error = loaded.error();
  }
  EXPECT_EQ(error.kind, StoreError::Kind::Corrupt) << error.message;
  EXPECT_TRUE(mentions(error, file().string())) << error.message;
}

TEST_F(SqliteLeaseStoreTest, ForeignDatabaseIsRefusedAndLeftAlone) {
  {
    RawConnection other(file());
    other.execute("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('alice')");
  }
  const auto error = open_error();
  EXPECT_EQ(error.kind, StoreError::Kind::Foreign) << error.message;
  EXPECT_TRUE(mentions(error, file().string())) << error.message;
  EXPECT_TRUE(mentions(error, "users")) << error.message;
  RawConnection other(file());
  EXPECT_EQ(other.rows("PRAGMA journal_mode"), std::vector<std::string>{"delete"});
  EXPECT_EQ(other.rows("SELECT name FROM sqlite_schema"), std::vector<std::string>{"users"});
}

TEST_F(SqliteLeaseStoreTest, NewerSchemaVersionIsForeign) {
  open_ok().reset();
  RawConnection(file()).execute("PRAGMA user_version = 99");
  const auto error = open_error();
  EXPECT_EQ(error.kind, StoreError::Kind::Foreign) << error.message;
  EXPECT_TRUE(mentions(error, "99")) << error.message;
}

// A file written by a landlord of schema version 1 (before client classes were kept): opening
// it for writing adds the column and bumps the version; its leases load as they were.
TEST_F(SqliteLeaseStoreTest, SchemaVersionOneIsMigrated) {
  RawConnection(file()).execute(
      "CREATE TABLE leases (address TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL, hwaddr TEXT NOT NULL,"
      " client_id TEXT, hostname TEXT,"
      " expires_at INTEGER GENERATED ALWAYS AS ((granted_at_ms + lease_time_ms) / 1000) VIRTUAL,"
      " fencing_token INTEGER NOT NULL, subnet_id INTEGER NOT NULL, hwtype INTEGER NOT NULL,"
      " granted_at_ms INTEGER NOT NULL, lease_time_ms INTEGER NOT NULL, renew_time_ms INTEGER NOT NULL,"
      " rebind_time_ms INTEGER NOT NULL, last_extension TEXT NOT NULL, client_key TEXT NOT NULL) WITHOUT ROWID;"
      " INSERT INTO leases (address, state, hwaddr, client_id, hostname, fencing_token, subnet_id, hwtype,"
      " granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms, last_extension, client_key)"
      " VALUES ('198.18.0.2', 'bound', '02:00:00:00:00:02', '01:aa:bb:02', 'host-2', 7, 3, 1,"
      " 1790000000125, 3600000, 1800000, 3150000, 'none', 'id:01:aa:bb:02');"
      " PRAGMA application_id = " + std::to_string(SqliteLeaseStore::kApplicationId) +
      "; PRAGMA user_version = 1");
  const auto refused = SqliteLeaseStore::open({.path = file().string(), .read_only = true});
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(mentions(refused.error(), "schema version 1")) << refused.error().message;

  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  auto expected = bound_lease(2, 7);
  expected.classes.clear();
  const auto loaded = load_all(*store);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_TRUE(same_lease(expected, loaded[0]));
  expected.classes = "ipxe,lab";
  ASSERT_TRUE(store->commit(std::vector{expected}).has_value());
  EXPECT_TRUE(same_lease(expected, load_all(*store).at(0)));
  RawConnection operator_shell(file());
  EXPECT_EQ(operator_shell.rows("PRAGMA user_version"),
            std::vector{std::to_string(SqliteLeaseStore::kSchemaVersion)});
  EXPECT_EQ(operator_shell.rows("SELECT classes FROM leases"), std::vector<std::string>{"ipxe,lab"});
}

TEST_F(SqliteLeaseStoreTest, OurMarkWithoutOurTableIsCorrupt) {
  RawConnection(file()).execute("CREATE TABLE other (x); PRAGMA application_id = " +
                                std::to_string(SqliteLeaseStore::kApplicationId) +
                                "; PRAGMA user_version = 1");
  const auto error = open_error();
  EXPECT_EQ(error.kind, StoreError::Kind::Corrupt) << error.message;
  EXPECT_TRUE(mentions(error, file().string())) << error.message;
}

TEST_F(SqliteLeaseStoreTest, SchemaRefusesStatesAndTokensItDoesNotKnow) {
  auto store = open_ok();
  ASSERT_TRUE(store->commit(std::vector{bound_lease(1)}).has_value());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
  for (const char* sql : {"UPDATE leases SET state = 'offered'",
                          "UPDATE leases SET last_extension = 'sideways'",
                          "UPDATE leases SET fencing_token = -1"}) {
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_CONSTRAINT) << sql;
  }
  sqlite3_close(db);
  EXPECT_TRUE(same_lease(bound_lease(1), load_all(*store).at(0)));
}

TEST_F(SqliteLeaseStoreTest, BadValueInARowIsCorruptAndNamesTheAddress) {
  auto store = open_ok();
  ASSERT_TRUE(store->commit(std::vector{bound_lease(1), bound_lease(2)}).has_value());
  RawConnection(file()).execute("UPDATE leases SET hwaddr = 'zz:top' WHERE address = '198.18.0.2'");
  const auto loaded = store->load([](lease::Lease&&) {});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().kind, StoreError::Kind::Corrupt);
  EXPECT_TRUE(mentions(loaded.error(), "198.18.0.2")) << loaded.error().message;
  EXPECT_TRUE(mentions(loaded.error(), "hwaddr")) << loaded.error().message;
}

TEST_F(SqliteLeaseStoreTest, ReadOnlyOpenLoadsButRefusesWrites) {
  open_ok()->commit(std::vector{bound_lease(1, 3)}).value();
  auto reader = open_ok({.path = file(), .read_only = true});
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(load_all(*reader).size(), 1u);
  const auto refused = reader->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().kind, StoreError::Kind::ReadOnly) << refused.error().message;
  EXPECT_TRUE(mentions(refused.error(), file().string())) << refused.error().message;
  EXPECT_EQ(load_all(*reader).size(), 1u);
}

TEST_F(SqliteLeaseStoreTest, MissingFileOpenedReadOnlyIsAnError) {
  const auto error = open_error({.path = file(), .read_only = true});
  EXPECT_EQ(error.kind, StoreError::Kind::Io) << error.message;
  EXPECT_TRUE(mentions(error, file().string())) << error.message;
}

TEST_F(SqliteLeaseStoreTest, LockedDatabaseFailsTheBatchAndRecovers) {
  auto store = open_ok({.path = file(), .busy_timeout = std::chrono::milliseconds{50}});
  ASSERT_NE(store, nullptr);
  const std::vector batch{bound_lease(1), bound_lease(2)};
  {
    RawConnection other(file());
    other.execute(
        "BEGIN EXCLUSIVE; INSERT INTO leases (address, state, hwaddr, fencing_token,"
        " subnet_id, hwtype, granted_at_ms, lease_time_ms, renew_time_ms,"
        " rebind_time_ms, last_extension, client_key) VALUES ('198.18.9.9', 'bound',"
        " '', 1, 1, 1, 0, 0, 0, 0, 'none', '')");
    const auto locked = store->commit(batch);
    ASSERT_FALSE(locked.has_value());
    EXPECT_EQ(locked.error().kind, StoreError::Kind::Locked) << locked.error().message;
    EXPECT_TRUE(mentions(locked.error(), file().string())) << locked.error().message;
    other.execute("ROLLBACK");
  }
  EXPECT_TRUE(load_all(*store).empty());
  const auto retried = store->commit(batch);
  ASSERT_TRUE(retried.has_value()) << retried.error().message;
  EXPECT_EQ(load_all(*store).size(), 2u);
}

TEST_F(SqliteLeaseStoreTest, OpenStoreChoosesTheBackend) {
  auto sqlite = open_store({.type = config::StoreSection::Type::Sqlite, .path = file(), .url = {}});
  ASSERT_TRUE(sqlite.has_value()) << sqlite.error().message;
  EXPECT_NE(dynamic_cast<SqliteLeaseStore*>(sqlite->get()), nullptr);
  auto memory = open_store({.type = config::StoreSection::Type::Memory, .path = file(), .url = {}});
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(dynamic_cast<SqliteLeaseStore*>(memory->get()), nullptr);
  ASSERT_TRUE((*memory)->commit(std::vector{bound_lease(1)}).has_value());
  EXPECT_EQ(load_all(**memory).size(), 1u);
  EXPECT_TRUE(load_all(**sqlite).empty());
}

// A small tmpfs of our own: the only honest way to see a real ENOSPC or EROFS, and root can
// write through chmod. Mounting needs root (CAP_SYS_ADMIN); elsewhere these tests skip.
class SmallFilesystem {
 public:
  SmallFilesystem(const std::filesystem::path& where, const char* options) : where_(where) {
    std::filesystem::create_directory(where_);
    if (::mount("landlord-test", where_.c_str(), "tmpfs", 0, options) == 0) {
      mounted_ = true;
    } else {
      reason_ = std::string("cannot mount a tmpfs (needs root): ") + std::strerror(errno);
    }
  }
  ~SmallFilesystem() {
    if (mounted_) ::umount2(where_.c_str(), MNT_DETACH);
  }
  SmallFilesystem(const SmallFilesystem&) = delete;
  SmallFilesystem& operator=(const SmallFilesystem&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& reason() const { return reason_; }
  bool remount(const char* options) {
    return ::mount("landlord-test", where_.c_str(), "tmpfs", MS_REMOUNT, options) == 0;
  }

 private:
  std::filesystem::path where_;
  bool mounted_ = false;
  std::string reason_;
};

// Fills the filesystem holding `file` until the kernel says ENOSPC.
void fill_up(const std::filesystem::path& file) {
  std::FILE* filler = std::fopen(file.c_str(), "wb");
  ASSERT_NE(filler, nullptr);
  std::vector<char> block(4096, 'x');
  for (int written = 0; written < 1 << 20; ++written) {  // bounded: at most 4 GiB
    if (std::fwrite(block.data(), 1, block.size(), filler) != block.size()) break;
    if (std::fflush(filler) != 0) break;
  }
  std::fclose(filler);
}

TEST_F(SqliteLeaseStoreTest, DiskFullFailsTheBatchAndRecovers) {
  SmallFilesystem tmpfs(directory_.path() / "small", "size=2m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.reason();
  const auto path = directory_.path() / "small" / "leases.db";
  auto store = open_ok({.path = path});
  ASSERT_NE(store, nullptr);
  const auto before = bound_lease(100'000, 1);
  ASSERT_TRUE(store->commit(std::vector{before}).has_value());

  fill_up(directory_.path() / "small" / "filler");
  std::vector<lease::Lease> batch;
  for (std::uint32_t index = 0; index < 3000; ++index) batch.push_back(bound_lease(index));
  const auto full = store->commit(batch);
  ASSERT_FALSE(full.has_value());
  EXPECT_EQ(full.error().kind, StoreError::Kind::Full) << full.error().message;
  EXPECT_TRUE(mentions(full.error(), path.string())) << full.error().message;
  auto records = load_all(*store);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(same_lease(before, records[0]));

  std::filesystem::remove(directory_.path() / "small" / "filler");
  const auto retried = store->commit(batch);
  ASSERT_TRUE(retried.has_value()) << retried.error().message;
  EXPECT_EQ(load_all(*store).size(), batch.size() + 1);
}

TEST_F(SqliteLeaseStoreTest, ReadOnlyDirectoryIsReadOnly) {
  const auto where = directory_.path() / "readonly";
  if (::geteuid() != 0) {
    // Without root, permissions are the read-only setup an operator would make.
    std::filesystem::create_directory(where);
    std::filesystem::permissions(
        where, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    const auto error = open_error({.path = where / "leases.db"});
    EXPECT_EQ(error.kind, StoreError::Kind::ReadOnly) << error.message;
    std::filesystem::permissions(where, std::filesystem::perms::owner_all);
    return;
  }
  SmallFilesystem tmpfs(where, "size=1m,ro");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.reason();
  const auto error = open_error({.path = where / "leases.db"});
  EXPECT_EQ(error.kind, StoreError::Kind::ReadOnly) << error.message;
  EXPECT_TRUE(mentions(error, (where / "leases.db").string())) << error.message;
}

TEST_F(SqliteLeaseStoreTest, FilesystemTurnedReadOnlyFailsCommits) {
  const auto where = directory_.path() / "turns-readonly";
  SmallFilesystem tmpfs(where, "size=2m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.reason();
  const auto path = where / "leases.db";
  open_ok({.path = path})->commit(std::vector{bound_lease(1, 1)}).value();
  ASSERT_TRUE(tmpfs.remount("ro")) << std::strerror(errno);
  auto opened = SqliteLeaseStore::open({.path = path});
  StoreError error;
  if (!opened) {
    error = opened.error();
  } else {
    auto refused = (*opened)->commit(std::vector{bound_lease(2, 1)});
    ASSERT_FALSE(refused.has_value());
    error = refused.error();
  }
  EXPECT_EQ(error.kind, StoreError::Kind::ReadOnly) << error.message;
  EXPECT_TRUE(mentions(error, path.string())) << error.message;
}

// SQLite reports the refused WAL write as SQLITE_IOERR_WRITE with no errno (it was lost before
// SQLite read it); the store must still call it read-only, not an I/O fault, and say why.
TEST_F(SqliteLeaseStoreTest, ImmutableDatabaseAndWalFailCommitsAsReadOnly) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  const auto before = bound_lease(1, 1);
  ASSERT_TRUE(store->commit(std::vector{before}).has_value());
  ImmutableFile database(file());
  if (!database.set()) GTEST_SKIP() << database.reason();
  ImmutableFile wal(file().string() + "-wal");
  ASSERT_TRUE(wal.set()) << wal.reason();

  const auto refused = store->commit(std::vector{bound_lease(2, 1)});
  if (refused.has_value()) {
    GTEST_SKIP() << "this file system lets open descriptors write immutable files";
  }
  EXPECT_EQ(refused.error().kind, StoreError::Kind::ReadOnly) << refused.error().message;
  EXPECT_TRUE(mentions(refused.error(), std::strerror(EPERM))) << refused.error().message;
  EXPECT_TRUE(mentions(refused.error(), file().string())) << refused.error().message;

  wal.lift();
  database.lift();
  const auto retried = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_TRUE(retried.has_value()) << retried.error().message;
  EXPECT_EQ(load_all(*store).size(), 2u);
}


// A directory bind-mounted on itself: its mount can be made read-only and back (MS_RDONLY on
// the bind mount), which Linux refuses (EBUSY) while a file under it is open for writing. On
// the scratch directory's own file system, which keeps `chattr +i` (tmpfs lets descriptors
// already open write immutable files).
class BindMount {
 public:
  explicit BindMount(const std::filesystem::path& where) : where_(where) {
    std::filesystem::create_directory(where_);
    if (::mount(where_.c_str(), where_.c_str(), nullptr, MS_BIND, nullptr) == 0) {
      mounted_ = true;
    } else {
      reason_ = std::string("cannot bind-mount (needs root): ") + std::strerror(errno);
    }
  }
  ~BindMount() {
    if (mounted_) ::umount2(where_.c_str(), MNT_DETACH);
  }
  BindMount(const BindMount&) = delete;
  BindMount& operator=(const BindMount&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& reason() const { return reason_; }
  bool read_only(bool on) {
    return ::mount(nullptr, where_.c_str(), nullptr,
                   MS_REMOUNT | MS_BIND | (on ? MS_RDONLY : 0), nullptr) == 0;
  }

 private:
  std::filesystem::path where_;
  bool mounted_ = false;
  std::string reason_;
};

// Issue #16: a file system that turns read-only under the daemon (ext4's emergency read-only
// state, files made immutable) can be checked and mounted again only once nobody writes to it.
// The store lets go of its files on the first read-only failure and opens the same store again
// at the next commit: here Linux refuses to make the mount read-only while the store holds its
// files, and accepts once it has let them go.
TEST_F(SqliteLeaseStoreTest, AReadOnlyFailureClosesTheFilesAndTheNextCommitReopensTheStore) {
  const auto where = directory_.path() / "released";
  BindMount mount(where);
  if (!mount.mounted()) GTEST_SKIP() << mount.reason();
  const auto path = where / "leases.db";
  auto store = open_ok({.path = path});
  ASSERT_NE(store, nullptr);
  const auto first = bound_lease(1, 1);
  ASSERT_TRUE(store->commit(std::vector{first}).has_value());
  ASSERT_FALSE(mount.read_only(true)) << "made read-only under a store writing to it";
  EXPECT_EQ(errno, EBUSY);

  std::optional<ImmutableFile> database(std::in_place, path);
  if (!database->set()) GTEST_SKIP() << database->reason();
  std::optional<ImmutableFile> wal(std::in_place, path.string() + "-wal");
  ASSERT_TRUE(wal->set()) << wal->reason();
  const auto second = bound_lease(2, 1);
  const auto refused = store->commit(std::vector{second});
  if (refused.has_value()) GTEST_SKIP() << "this file system lets open descriptors write immutable files";
  EXPECT_EQ(refused.error().kind, StoreError::Kind::ReadOnly) << refused.error().message;
  EXPECT_TRUE(mentions(refused.error(), "closed the store's files")) << refused.error().message;
  EXPECT_FALSE(store->attached());
  wal.reset();
  database.reset();

  // Nobody writes to the file system now: it can go read-only (as an operator's fsck needs).
  ASSERT_TRUE(mount.read_only(true)) << std::strerror(errno);
  const auto still = store->commit(std::vector{second});
  ASSERT_FALSE(still.has_value());
  EXPECT_NE(still.error().kind, StoreError::Kind::Full) << still.error().message;
  EXPECT_FALSE(store->attached()) << "a store that cannot write stays closed";
  EXPECT_EQ(store->health().reopened, 0u);

  int reported = 0;  // the reopening is reported as it is counted (on this, the committing thread)
  store->on_health_change([&] { ++reported; });
  ASSERT_TRUE(mount.read_only(false)) << std::strerror(errno);
  const auto resumed = store->commit(std::vector{second});
  ASSERT_TRUE(resumed.has_value()) << resumed.error().message;
  EXPECT_TRUE(store->attached());
  EXPECT_EQ(store->health().reopened, 1u);
  EXPECT_EQ(reported, 1);
  store->on_health_change({});
  const auto records = load_all(*store);
  ASSERT_EQ(records.size(), 2u);
  std::map<Ipv4, lease::Lease> by_address;
  for (const auto& record : records) by_address.emplace(record.address, record);
  EXPECT_TRUE(same_lease(first, by_address.at(first.address)));
  EXPECT_TRUE(same_lease(second, by_address.at(second.address)));
}

// What is found at the path again must be the store this process wrote: not an empty file, not
// another store, not an older copy, and nothing is created where there is no file.
TEST_F(SqliteLeaseStoreTest, AClosedStoreIsReopenedOnlyOnTheSameStore) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->commit(std::vector{bound_lease(1, 1)}).has_value());
  // An older copy: it has lease 1 but not lease 1's next period, written below.
  const auto copy = directory_.path() / "copy";
  std::filesystem::create_directory(copy);
  {
    RawConnection raw(file());
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  std::filesystem::copy_file(file(), copy / "leases.db");
  auto renewed = bound_lease(1, 1);
  renewed.granted_at += std::chrono::minutes{30};
  ASSERT_TRUE(store->commit(std::vector{renewed}).has_value());

  std::optional<ImmutableFile> database(std::in_place, file());
  if (!database->set()) GTEST_SKIP() << database->reason();
  std::optional<ImmutableFile> wal(std::in_place, file().string() + "-wal");
  ASSERT_TRUE(wal->set()) << wal->reason();
  const auto refused = store->commit(std::vector{bound_lease(2, 1)});
  if (refused.has_value()) GTEST_SKIP() << "this file system lets open descriptors write immutable files";
  ASSERT_FALSE(store->attached());
  wal.reset();
  database.reset();

  // The store moved away: nothing at the path, and nothing is created there.
  const auto away = directory_.path() / "away";
  std::filesystem::create_directory(away);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const auto name = file().string() + suffix;
    if (std::filesystem::exists(name)) {
      std::filesystem::rename(name, away / std::filesystem::path(name).filename());
    }
  }
  auto missing = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(missing.has_value());
  EXPECT_FALSE(std::filesystem::exists(file())) << "a store was created in its place";

  // An empty landlord store, then the older copy, in its place: refused, nothing written.
  open_ok({.path = directory_.path() / "leases.db"}).reset();
  auto other = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(other.has_value());
  EXPECT_EQ(other.error().kind, StoreError::Kind::Io) << other.error().message;
  EXPECT_TRUE(mentions(other.error(), "not the store this server was writing")) << other.error().message;
  EXPECT_TRUE(RawConnection(file()).rows("SELECT address FROM leases").empty());
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file().string() + suffix);
  std::filesystem::copy_file(copy / "leases.db", file());
  auto older = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(older.has_value());
  EXPECT_TRUE(mentions(older.error(), "198.18.0.1 token 1")) << older.error().message;
  EXPECT_EQ(RawConnection(file()).rows("SELECT address FROM leases").size(), 1u);
  EXPECT_FALSE(store->attached());

  // The store itself back: reopened, written, nothing lost.
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file().string() + suffix);
  for (const auto& entry : std::filesystem::directory_iterator(away)) {
    std::filesystem::rename(entry.path(), directory_.path() / entry.path().filename());
  }
  const auto resumed = store->commit(std::vector{bound_lease(2, 1)});
  ASSERT_TRUE(resumed.has_value()) << resumed.error().message;
  EXPECT_EQ(store->health().reopened, 1u);
  const auto records = load_all(*store);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& record : records) {
    if (record.address == renewed.address) {
      EXPECT_TRUE(same_lease(renewed, record));
    }
  }
}

// Issue #16: a checkpoint that fails while commits succeed (here the database file immutable,
// its WAL not) loses nothing, but the WAL grows until one works: each failure is counted by
// reason, with the store's message, and checkpoints resume once the file is writable again.
TEST_F(SqliteLeaseStoreTest, FailedCheckpointsAreCountedWhileCommitsGoOn) {
  auto store = open_ok();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->commit(std::vector{bound_lease(0, 1)}).has_value());
  std::optional<ImmutableFile> database(std::in_place, file());
  if (!database->set()) GTEST_SKIP() << database->reason();

  const auto failures = [&] {
    std::uint64_t total = 0;
    for (const std::uint64_t count : store->health().checkpoint_failures) total += count;
    return total;
  };
  // Each failure is reported as it is counted, by the thread that counted it: the checkpoint
  // thread's too, which fails after the commit that woke it has returned.
  std::atomic<std::uint64_t> reported{0}, reported_elsewhere{0};
  const std::thread::id committing = std::this_thread::get_id();
  store->on_health_change([&] {
    reported.fetch_add(1);
    if (std::this_thread::get_id() != committing) reported_elsewhere.fetch_add(1);
  });
  std::uint32_t next = 1;
  const auto commit_some = [&] {
    std::vector<lease::Lease> batch;
    for (int i = 0; i < 20; ++i) batch.push_back(bound_lease(next++, 1));
    const auto committed = store->commit(batch);
    EXPECT_TRUE(committed.has_value()) << (committed ? "" : committed.error().message);
    return committed.has_value();
  };
  // The checkpointer wakes at 1,000 WAL frames; bounded in commits and time.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (failures() == 0 && next < 40'000 && std::chrono::steady_clock::now() < deadline) {
    if (!commit_some()) break;
  }
  if (failures() == 0 && store->checkpoints().background > 0) {
    GTEST_SKIP() << "this file system lets open descriptors write immutable files";
  }
  ASSERT_GT(failures(), 0u) << "no checkpoint failure counted after " << next << " records";
  const auto counts = store->health().checkpoint_failures;
  EXPECT_GT(counts[static_cast<std::size_t>(StoreError::Kind::ReadOnly)], 0u)
      << store->last_checkpoint_error();
  EXPECT_TRUE(store->last_checkpoint_error().find(file().string()) != std::string::npos)
      << store->last_checkpoint_error();
  EXPECT_TRUE(store->last_checkpoint_error().find("checkpointing") != std::string::npos)
      << store->last_checkpoint_error();
  EXPECT_TRUE(store->attached()) << "commits kept working: the store stays open";
  // No commit now: the failures counted meanwhile are reported all the same (bounded wait for a
  // pass still running).
  const auto settled_by = std::chrono::steady_clock::now() + std::chrono::seconds{5};
  while (reported.load() != failures() && std::chrono::steady_clock::now() < settled_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  EXPECT_EQ(reported.load(), failures()) << "a counted checkpoint failure was not reported";
  EXPECT_GT(reported_elsewhere.load(), 0u) << "none reported by the checkpoint thread itself";
  store->on_health_change({});
  const std::uint64_t reported_before = reported.load();

  database.reset();
  const auto background = store->checkpoints().background;
  const auto writer = store->checkpoints().writer;
  const auto resumed_by = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (store->checkpoints().background == background && store->checkpoints().writer == writer &&
         std::chrono::steady_clock::now() < resumed_by) {
    if (!commit_some()) break;
  }
  EXPECT_TRUE(store->checkpoints().background > background || store->checkpoints().writer > writer)
      << "checkpoints did not resume";
  EXPECT_EQ(load_all(*store).size(), next);
  EXPECT_EQ(reported.load(), reported_before) << "reported after the listener was removed";
}

}  // namespace
}  // namespace landlord::store
