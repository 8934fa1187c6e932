// The SQLite store's files taken away under a running daemon (issue #31): a database file deleted
// while open cannot be put back by any name, so the store's error says what does work (copy
// it out of /proc/PID/fd, then restart), and following that advice keeps every committed lease;
// an immutable -shm (SQLite's WAL index, written through a shared mapping) fails commits as
// read-only instead of killing the process with SIGBUS.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <filesystem>
#include <string>

#include "landlord/store/sqlite_lease_store.hpp"
#include "sqlite_shm_guard.hpp"
#include "store_test_support.hpp"

namespace landlord::store {
namespace {

using testing::bound_lease;
using testing::ImmutableFile;
using testing::load_all;
using testing::same_lease;
using testing::ScratchDirectory;

namespace fs = std::filesystem;

struct Deletion {
  const char* name;
  std::vector<const char*> suffixes;  // the files removed: "" is the database file itself
};

class DeletedStoreTest : public ::testing::TestWithParam<Deletion> {
 protected:
  fs::path file() const { return directory_.path() / "leases.db"; }
  ScratchDirectory directory_;
};

TEST_P(DeletedStoreTest, TheErrorSaysHowToCopyItBackAndThatKeepsEveryLease) {
  auto opened = SqliteLeaseStore::open({.path = file()});
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  auto store = std::move(*opened);
  const auto first = bound_lease(1, 1), second = bound_lease(2, 1);
  ASSERT_TRUE(store->commit(std::vector{first}).has_value());
  ASSERT_TRUE(store->commit(std::vector{second}).has_value());
  ASSERT_TRUE(fs::exists(file().string() + "-wal"));  // the leases are in the WAL, not yet the file

  for (const char* suffix : GetParam().suffixes) fs::remove(file().string() + suffix);
  const auto refused = store->commit(std::vector{bound_lease(3, 1)});
  ASSERT_FALSE(refused.has_value()) << "a commit into a deleted file";
  const std::string& message = refused.error().message;
  EXPECT_NE(message.find("deleted while open"), std::string::npos) << message;
  EXPECT_EQ(message.find("put it back"), std::string::npos) << "advice that cannot work: " << message;
  EXPECT_FALSE(fs::exists(file())) << "a store was created in its place";

  // Follow the advice as an operator would: every `cp /proc/PID/fd/N PATH` it names, while the
  // store is open; then the restart (this store closed, a new one opened at the path).
  int copies = 0;
  const std::string pid = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (std::size_t at = message.find("`cp "); at != std::string::npos; at = message.find("`cp ", at + 1)) {
    const std::size_t end = message.find('`', at + 1);
    ASSERT_NE(end, std::string::npos) << message;
    const std::string command = message.substr(at + 1, end - at - 1);  // cp /proc/PID/fd/N PATH
    EXPECT_EQ(command.rfind("cp " + pid, 0), 0u) << command;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    ++copies;
  }
  ASSERT_GE(copies, 1) << "no copy command in: " << message;
  store.reset();
  auto restarted = SqliteLeaseStore::open({.path = file()});
  ASSERT_TRUE(restarted.has_value()) << restarted.error().message;
  const auto records = load_all(**restarted);
  ASSERT_EQ(records.size(), 2u) << "leases lost after following: " << message;
  for (const auto& record : records) {
    EXPECT_TRUE(same_lease(record.address == first.address ? first : second, record));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, DeletedStoreTest,
    ::testing::Values(Deletion{"everything", {"", "-wal", "-shm"}}, Deletion{"the_database_only", {""}}),
    [](const auto& instance) { return std::string{instance.param.name}; });

// Moved away is not deleted: the file still has a name, and moving it back resumes service.
TEST(MovedStoreTest, TheErrorSaysMoveItBack) {
  ScratchDirectory directory;
  const fs::path file = directory.path() / "leases.db";
  auto opened = SqliteLeaseStore::open({.path = file});
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  ASSERT_TRUE((*opened)->commit(std::vector{bound_lease(1, 1)}).has_value());
  fs::rename(file, directory.path() / "elsewhere.db");
  const auto refused = (*opened)->commit(std::vector{bound_lease(2, 1)});
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("move it back to " + file.string()), std::string::npos)
      << refused.error().message;
  fs::rename(directory.path() / "elsewhere.db", file);
  const auto resumed = (*opened)->commit(std::vector{bound_lease(2, 1)});
  EXPECT_TRUE(resumed.has_value()) << resumed.error().message;
}

// Before: SIGBUS on the commit after `chattr +i leases.db-shm`, the test binary killed.
TEST(ShmTest, AnImmutableShmFailsCommitsAsReadOnlyAndLosesNothing) {
  ScratchDirectory directory;
  const fs::path file = directory.path() / "leases.db";
  auto opened = SqliteLeaseStore::open({.path = file});
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  auto& store = **opened;
  ASSERT_TRUE(store.commit(std::vector{bound_lease(1, 1)}).has_value());
  const std::string shm = file.string() + "-shm";
  ASSERT_TRUE(fs::exists(shm));
  std::optional<ImmutableFile> immutable(std::in_place, shm);
  if (!immutable->set()) GTEST_SKIP() << immutable->reason();

  for (int attempt = 0; attempt < 3; ++attempt) {  // the commit, then the retries that reopen
    const auto refused = store.commit(std::vector{bound_lease(2, 1)});
    ASSERT_FALSE(refused.has_value()) << "a commit through an immutable -shm";
    EXPECT_EQ(refused.error().kind, StoreError::Kind::ReadOnly) << refused.error().message;
    EXPECT_NE(refused.error().message.find(shm + ", SQLite's shared index of the WAL, is immutable"),
              std::string::npos)
        << refused.error().message;
    EXPECT_FALSE(store.attached()) << "the store's files are still open";
  }
  immutable.reset();
  const auto resumed = store.commit(std::vector{bound_lease(2, 1)});
  ASSERT_TRUE(resumed.has_value()) << resumed.error().message;
  EXPECT_EQ(load_all(store).size(), 2u);
  // A start meets it too, before SQLite maps it (the last close removed the -shm: one left by a
  // process that died, made immutable).
  opened->reset();
  { std::ofstream{shm} << std::string(32768, '\0'); }
  immutable.emplace(shm);
  ASSERT_TRUE(immutable->set()) << immutable->reason();
  const auto start = SqliteLeaseStore::open({.path = file});
  ASSERT_FALSE(start.has_value());
  EXPECT_EQ(start.error().kind, StoreError::Kind::ReadOnly) << start.error().message;
}

// The race the check before each commit leaves (the flag set between the check and SQLite's
// write): the guard takes the fault in a mapping of a *-shm file, the write lands in a private
// copy, the file keeps what it had, and the fault is counted for the store to refuse the commit.
TEST(ShmTest, TheGuardRescuesAWriteToAnImmutableMappedShm) {
  ScratchDirectory directory;
  const fs::path shm = directory.path() / "guarded.db-shm";
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  {
    std::ofstream{shm} << std::string(page * 2, 'a');
  }
  const int descriptor = ::open(shm.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(descriptor, 0);
  void* region = ::mmap(nullptr, page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0);
  ::close(descriptor);
  ASSERT_NE(region, MAP_FAILED);
  auto* mapped = static_cast<volatile char*>(region);
  mapped[0] = 'b';
  ASSERT_EQ(::msync(region, page * 2, MS_SYNC), 0);
  ImmutableFile immutable(shm);
  if (!immutable.set()) GTEST_SKIP() << immutable.reason();
  detail::install_shm_guard();
  const std::uint64_t before = detail::shm_faults();
  mapped[1] = 'c';         // SIGBUS without the guard
  mapped[page + 1] = 'd';  // the next page: its own fault
  EXPECT_EQ(detail::shm_faults(), before + 2);
  EXPECT_EQ(mapped[0], 'b');  // the copy kept the page's content
  EXPECT_EQ(mapped[1], 'c');
  ::munmap(region, page * 2);
  std::ifstream file{shm};
  const std::string content{std::istreambuf_iterator<char>{file}, {}};
  EXPECT_EQ(content.substr(0, 2), "ba") << "the refused write reached the file";
  EXPECT_EQ(content[page + 1], 'a');
  EXPECT_EQ(detail::shm_refusal(shm.string()), std::optional<std::string>{"immutable"});
}

// Any other SIGBUS still ends the process, as it did before the guard.
TEST(ShmDeathTest, ASigbusElsewhereStillKills) {
  ScratchDirectory directory;
  const fs::path other = directory.path() / "not-an-index";
  EXPECT_DEATH(
      {
        detail::install_shm_guard();
        { std::ofstream{other} << std::string(8192, 'a'); }
        const int descriptor = ::open(other.c_str(), O_RDWR | O_CLOEXEC);
        auto* mapped = static_cast<volatile char*>(
            ::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0));
        (void)::ftruncate(descriptor, 0);  // the pages now lie past the end: SIGBUS
        mapped[4096] = 'x';
      },
      "");
}

}  // namespace
}  // namespace landlord::store
