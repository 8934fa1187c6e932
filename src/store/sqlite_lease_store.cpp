#include "landlord/store/sqlite_lease_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

#include "record_text.hpp"
#include "sqlite_checkpointer.hpp"
#include "sqlite_schema.hpp"
#include "sqlite_shm_guard.hpp"
#include "sqlite_support.hpp"

namespace landlord::store {

using detail::Statement;

struct SqliteLeaseStore::Shared {
  detail::CheckpointFailures checkpoint_failures;
  std::atomic<std::uint64_t> reopened{0};
};

struct SqliteLeaseStore::Connection {
  sqlite3* db = nullptr;
  Statement begin, commit, rollback, upsert, select_all;
  int wal_frames = 0;  // after the last commit, from the WAL hook
  std::unique_ptr<detail::Checkpointer> checkpointer;  // none when read-only
  // The file opened: a commit checks the path still names it (see still_in_place()).
  dev_t device = 0;
  ino_t inode = 0;
  int opened = -1;  // O_PATH of that file: does any name still link to it?
  int shm = -1;     // its -shm, read only for its flags (sqlite_shm_guard.hpp)

  ~Connection() {
    checkpointer.reset();  // its thread and connection first
    // Statements first: a connection with live statements cannot close.
    begin.reset();
    commit.reset();
    rollback.reset();
    upsert.reset();
    select_all.reset();
    sqlite3_close_v2(db);
    if (opened >= 0) ::close(opened);
    if (shm >= 0) ::close(shm);
  }
};

namespace {

// Durability: WAL with synchronous=FULL fsyncs the log on every commit, so a returned commit()
// survives power loss; readers (operators, load) never block the writer.
Expected<void, StoreError> configure_writer(sqlite3* db, std::string_view path) {
  sqlite3_stmt* raw = nullptr;
  int code = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &raw, nullptr);
  Statement journal{raw};
  if (code == SQLITE_OK) code = sqlite3_step(journal.get());
  if (code != SQLITE_ROW) return unexpected(detail::sqlite_error(db, code, path, "enabling WAL"));
  const std::string_view mode =
      reinterpret_cast<const char*>(sqlite3_column_text(journal.get(), 0));
  if (mode != "wal") {
    return unexpected(StoreError{StoreError::Kind::Io, "lease store " + std::string(path) +
                                                           ": journal_mode stayed '" +
                                                           std::string(mode) + "', WAL refused"});
  }
  return detail::execute(db, "PRAGMA synchronous = FULL", path);
}

void bind_text(sqlite3_stmt* statement, int index, std::string_view text) {
  if (text.empty()) {
    sqlite3_bind_null(statement, index);
  } else {
    sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
}

std::string_view column_text(sqlite3_stmt* statement, int index) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, index));
  return text == nullptr
             ? std::string_view{}
             : std::string_view{text,
                                static_cast<std::size_t>(sqlite3_column_bytes(statement, index))};
}

// Rebuilds one record from a row of kSelectAllSql (the columns in detail::decode_record's order);
// the message says which column was bad.
Expected<lease::Lease, std::string> decode_row(sqlite3_stmt* row) {
  lease::Lease record;
  if (auto bad = detail::decode_record(
          record, [row](int column) { return column_text(row, column); },
          [row](int column) { return static_cast<std::int64_t>(sqlite3_column_int64(row, column)); })) {
    return unexpected(std::move(*bad));
  }
  return record;
}

// A store file removed or moved away while open keeps taking writes through the open
// descriptors, into a file the next start will not find: every ACK since would be lost. So a
// commit first checks that the path still names the file that was opened (one stat), and
// only when it does not, asks the opened file itself (`opened`, an O_PATH descriptor of it)
// whether a name still links to it: a file moved away can be moved back, a deleted one cannot
// (no call links a name to it again), and then the advice is to copy it out of this process.
std::optional<StoreError> moved_away(const std::string& path, dev_t device, ino_t inode, int opened,
                                     sqlite3* db) {
  struct stat now {};
  const bool present = ::stat(path.c_str(), &now) == 0;
  if (present && now.st_dev == device && now.st_ino == inode) return std::nullopt;
  const int missing = errno;
  struct stat held {};
  if (opened >= 0 && ::fstat(opened, &held) == 0 && held.st_nlink == 0) {
    // The last connection's close would checkpoint into the deleted file and then delete
    // PATH-wal by name: the live WAL, or the copy the advice below has the operator make.
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    return StoreError{StoreError::Kind::Io,
                      "lease store " + path + ": the database file was deleted while open" +
                          (present ? " and another file put in its place" : "") +
                          "; writes would be lost, so none is made. " +
                          detail::deleted_store_advice(path)};
  }
  if (!present) {
    return StoreError{StoreError::Kind::Io,
                      "lease store " + path + ": the database file is gone (" + std::strerror(missing) +
                          "): moved away, or its directory renamed? Writes would be lost; move it "
                          "back to " + path + " (with its -wal file) and service resumes"};
  }
  return StoreError{StoreError::Kind::Io,
                    "lease store " + path +
                        ": the path names another file than the one opened (replaced or "
                        "moved?). Writes would go to the old one; move the opened file back to " +
                        path + " and service resumes"};
}

// The -shm file refuses writes (`why`: immutable, append-only, or a write to its mapping was
// refused): no commit is made, since SQLite writes it through a shared mapping and the kernel
// answers that with SIGBUS. The leases committed so far are in the database file and its WAL.
StoreError shm_refused(const std::string& path, const std::string& why) {
  return StoreError{StoreError::Kind::ReadOnly,
                    "lease store " + path + ": " + path + "-shm, SQLite's shared index of the WAL, is " + why +
                        " (" + std::strerror(EPERM) + "): no commit is made until it can be written (`chattr -i " +
                        path + "-shm`); the leases committed so far are in " + path + " and its -wal"};
}

}  // namespace

SqliteLeaseStore::SqliteLeaseStore(SqliteOptions options, std::unique_ptr<Connection> connection,
                                   std::unique_ptr<Shared> shared)
    : options_(std::move(options)),
      path_(options_.path),
      shared_(std::move(shared)),
      connection_(std::move(connection)) {}

SqliteLeaseStore::~SqliteLeaseStore() = default;

Expected<std::unique_ptr<SqliteLeaseStore::Connection>, StoreError> SqliteLeaseStore::connect(
    const SqliteOptions& options, Shared& shared, const SqliteLeaseStore* reopening) {
  const std::string& path = options.path;
  detail::configure_library();
  auto connection = std::make_unique<Connection>();
  // Checked before SQLite maps the -shm at all: even a reader writes to it (its read mark).
  detail::install_shm_guard();
  if (auto refusal = detail::shm_refusal(path + "-shm")) return unexpected(shm_refused(path, *refusal));
  const int flags =
      (options.read_only ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE | (reopening ? 0 : SQLITE_OPEN_CREATE)) |
      SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  int code = sqlite3_open_v2(path.c_str(), &connection->db, flags, nullptr);
  if (code != SQLITE_OK)
    return unexpected(detail::sqlite_error(connection->db, code, path, "opening"));
  sqlite3_db_config(connection->db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  if (struct stat opened {}; ::stat(path.c_str(), &opened) == 0) {
    connection->device = opened.st_dev;
    connection->inode = opened.st_ino;
    connection->opened = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  }
  sqlite3_busy_timeout(connection->db, static_cast<int>(options.busy_timeout.count()));

  // Reopening looks only: a file that is not already a current landlord store is not ours.
  if (auto schema = detail::ensure_schema(connection->db, path, options.read_only || reopening);
      !schema) {
    return unexpected(schema.error());
  }
  if (reopening != nullptr) {
    if (auto same = reopening->same_store(*connection); !same) return unexpected(same.error());
  }
  if (!options.read_only) {
    if (auto configured = configure_writer(connection->db, path); !configured) {
      return unexpected(configured.error());
    }
    // Replaces SQLite's autocheckpoint (itself a WAL hook): checkpoints move off the commit path.
    sqlite3_wal_hook(
        connection->db,
        [](void* context, sqlite3*, const char*, int frames) {
          static_cast<Connection*>(context)->wal_frames = frames;
          return SQLITE_OK;
        },
        connection.get());
    auto checkpointer = detail::Checkpointer::open(path, shared.checkpoint_failures);
    if (!checkpointer) return unexpected(checkpointer.error());
    connection->checkpointer = std::move(*checkpointer);
    connection->shm = ::open((path + "-shm").c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  }
  const std::array<std::pair<Statement*, std::string_view>, 5> statements{{
      {&connection->begin, "BEGIN IMMEDIATE"},
      {&connection->commit, "COMMIT"},
      {&connection->rollback, "ROLLBACK"},
      {&connection->upsert, detail::kUpsertSql},
      {&connection->select_all, detail::kSelectAllSql},
  }};
  for (const auto& [statement, sql] : statements) {
    auto prepared = detail::prepare(connection->db, sql, path);
    if (!prepared) {
      // Our application_id but not our table layout: the file was damaged or edited.
      StoreError error = prepared.error();
      if (error.kind == StoreError::Kind::Other) error.kind = StoreError::Kind::Corrupt;
      return unexpected(std::move(error));
    }
    *statement = std::move(*prepared);
  }
  return connection;
}

Expected<std::unique_ptr<SqliteLeaseStore>, StoreError> SqliteLeaseStore::open(
    const SqliteOptions& options) {
  auto shared = std::make_unique<Shared>();
  auto connection = connect(options, *shared, nullptr);
  if (!connection) return unexpected(connection.error());
  std::unique_ptr<SqliteLeaseStore> store(
      new SqliteLeaseStore(options, std::move(*connection), std::move(shared)));
  // The first witness of the file's identity: any one of its records, or none (empty).
  auto first = detail::prepare(store->connection_->db,
                               "SELECT address, client_key, fencing_token, granted_at_ms FROM "
                               "leases LIMIT 1",
                               store->path_);
  if (!first) return unexpected(first.error());
  const int code = sqlite3_step(first->get());
  if (code == SQLITE_ROW) {
    store->witness_ = Witness{std::string(column_text(first->get(), 0)),
                              std::string(column_text(first->get(), 1)),
                              sqlite3_column_int64(first->get(), 2),
                              sqlite3_column_int64(first->get(), 3)};
  } else if (code != SQLITE_DONE) {
    return unexpected(detail::sqlite_error(store->connection_->db, code, store->path_,
                                           "reading a lease"));
  }
  return store;
}

Expected<void, StoreError> SqliteLeaseStore::same_store(Connection& connection) const {
  const std::string where = "lease store " + path_ + ": ";
  const char* sql = witness_ ? "SELECT client_key, fencing_token, granted_at_ms FROM leases "
                               "WHERE address = ?1"
                             : "SELECT address FROM leases LIMIT 1";
  auto query = detail::prepare(connection.db, sql, path_);
  if (!query) return unexpected(query.error());
  if (witness_) {
    sqlite3_bind_text(query->get(), 1, witness_->address.data(),
                      static_cast<int>(witness_->address.size()), SQLITE_STATIC);
  }
  const int code = sqlite3_step(query->get());
  if (code != SQLITE_ROW && code != SQLITE_DONE) {
    return unexpected(detail::sqlite_error(connection.db, code, path_, "reading a lease"));
  }
  const auto refused = [&](const std::string& found) {
    return unexpected(StoreError{
        StoreError::Kind::Io,
        where + "the file found there again is not the store this server was writing (" + found +
            "): an older copy, or another store? Not writing to it; put the store back"});
  };
  if (!witness_) {
    if (code == SQLITE_ROW) return refused("it holds leases, the store was empty");
    return {};
  }
  const std::string expected = "lease " + witness_->address + " token " +
                               std::to_string(witness_->fencing_token) + " as written last";
  if (code == SQLITE_DONE) return refused("no " + expected);
  const std::string_view client_key = column_text(query->get(), 0);
  const std::int64_t token = sqlite3_column_int64(query->get(), 1);
  const std::int64_t granted_at_ms = sqlite3_column_int64(query->get(), 2);
  // The record written last, or one of ours that superseded it (a commit that failed after its
  // transaction reached the WAL): by the store's own rule, a newer token, or the same grant
  // again from the same client no older.
  const bool same_or_newer =
      token > witness_->fencing_token ||
      (token == witness_->fencing_token && client_key == witness_->client_key &&
       granted_at_ms >= witness_->granted_at_ms);
  if (!same_or_newer) {
    return refused(expected + " missing: the file has token " + std::to_string(token) +
                   " for it, " + (client_key == witness_->client_key ? "older" : "another client's"));
  }
  return {};
}

Expected<void, StoreError> SqliteLeaseStore::reattach() {
  auto connection = connect(options_, *shared_, this);
  if (!connection) return unexpected(connection.error());
  connection_ = std::move(*connection);
  return {};
}

StoreHealth SqliteLeaseStore::health() const {
  StoreHealth health;
  health.checkpoint_failures = shared_->checkpoint_failures.counts();
  health.reopened = shared_->reopened.load(std::memory_order_relaxed);
  return health;
}

std::string SqliteLeaseStore::last_checkpoint_error() const {
  return shared_->checkpoint_failures.last();
}

void SqliteLeaseStore::on_health_change(std::function<void()> changed) {
  shared_->checkpoint_failures.listen(std::move(changed));
}

Expected<std::vector<WriteResult>, StoreError> SqliteLeaseStore::commit(
    std::span<const lease::Lease> batch) {
  for (const auto& record : batch) detail::assert_persistable(record);
  if (batch.empty()) return std::vector<WriteResult>{};
  const bool reopening = connection_ == nullptr;
  if (reopening) {
    if (auto reopened = reattach(); !reopened) {
      StoreError error = reopened.error();
      error.message += "; the store's files stay closed, reopened at the next retry";
      return unexpected(std::move(error));
    }
  }
  const std::uint64_t shm_faults = detail::shm_faults();
  const std::optional<Witness> witness = witness_;
  auto committed = commit_attached(batch);
  if (detail::shm_faults() != shm_faults) {
    // A write to the -shm mapping was refused mid-commit and went to a private copy instead:
    // other processes and the next open do not see this commit's index, so it is not ours to
    // ACK (if its WAL frames are found again, the witness' rule accepts them as newer).
    witness_ = witness;
    committed = unexpected(shm_refused(path_, "no longer writable (a write to its mapping was refused)"));
  }
  if (!committed && committed.error().kind == StoreError::Kind::ReadOnly && !options_.read_only) {
    // Linux unmounts, checks or remounts only a file system nobody writes to: let go of it.
    connection_.reset();
    committed.error().message +=
        "; closed the store's files so their file system can be checked and mounted again; "
        "reopening the store at each retry";
  }
  // Opened again and written to: the store is back (health().reopened).
  if (committed && reopening) {
    shared_->reopened.fetch_add(1, std::memory_order_relaxed);
    shared_->checkpoint_failures.notify();
  }
  return committed;
}

Expected<std::vector<WriteResult>, StoreError> SqliteLeaseStore::commit_attached(
    std::span<const lease::Lease> batch) {
  std::vector<WriteResult> results;
  results.reserve(batch.size());
  sqlite3* const db = connection_->db;
  if (auto error = connection_->inode == 0 ? std::nullopt
                                           : moved_away(path_, connection_->device, connection_->inode,
                                                                      connection_->opened, db)) {
    return unexpected(std::move(*error));
  }

  if (auto refusal = detail::shm_refusal(connection_->shm)) return unexpected(shm_refused(path_, *refusal));

  // Any failure after BEGIN rolls back (SQLite may already have, e.g. on SQLITE_FULL), so
  // nothing of the batch is durable and the connection is ready for the next commit.
  const auto fail = [&](int code, std::string_view doing, sqlite3_stmt* failed) {
    StoreError error = detail::sqlite_error(db, code, path_, doing);
    sqlite3_reset(failed);
    if (sqlite3_get_autocommit(db) == 0) {
      sqlite3_step(connection_->rollback.get());
      sqlite3_reset(connection_->rollback.get());
    }
    return unexpected(std::move(error));
  };

  int code = sqlite3_step(connection_->begin.get());
  if (code != SQLITE_DONE) return fail(code, "starting a transaction", connection_->begin.get());
  sqlite3_reset(connection_->begin.get());

  sqlite3_stmt* const upsert = connection_->upsert.get();
  const lease::Lease* last_written = nullptr;
  // Text columns are formatted into a buffer on the stack (chaddr: 16 bytes at most) or into
  // ones the store keeps across commits (option 61 and the key have no fixed bound): nothing is
  // allocated per record.
  std::array<char, colon_hex_size(HardwareAddress::kMaxLength)> hardware_text;
  for (const auto& record : batch) {
    const std::string address = record.address.to_string();
    const std::string_view hardware = write_colon_hex(record.hardware.bytes(), hardware_text);
    text_buffers_.client_id.resize(colon_hex_size(record.client_id.bytes().size()));
    const std::string_view client_id = write_colon_hex(record.client_id.bytes(), text_buffers_.client_id);
    text_buffers_.client_key.resize(detail::client_key_text_bound(record.client));
    const std::string_view client_key =
        detail::write_client_key_text(record.client, text_buffers_.client_key);
    const std::string_view state = detail::state_text(record.state);
    const std::string_view extension = detail::extension_text(record.last_extension);
    sqlite3_bind_text(upsert, 1, address.data(), static_cast<int>(address.size()), SQLITE_STATIC);
    sqlite3_bind_text(upsert, 2, state.data(), static_cast<int>(state.size()), SQLITE_STATIC);
    sqlite3_bind_text(upsert, 3, hardware.data(), static_cast<int>(hardware.size()), SQLITE_STATIC);
    bind_text(upsert, 4, client_id);
    bind_text(upsert, 5, record.hostname);
    sqlite3_bind_int64(upsert, 6, static_cast<sqlite3_int64>(record.fencing_token));
    sqlite3_bind_int64(upsert, 7, record.subnet_id);
    sqlite3_bind_int64(upsert, 8, record.hardware.type());
    sqlite3_bind_int64(upsert, 9, unix_ms(record.granted_at));
    sqlite3_bind_int64(upsert, 10, record.lease_time.count());
    sqlite3_bind_int64(upsert, 11, record.renew_time.count());
    sqlite3_bind_int64(upsert, 12, record.rebind_time.count());
    sqlite3_bind_text(upsert, 13, extension.data(), static_cast<int>(extension.size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(upsert, 14, client_key.data(), static_cast<int>(client_key.size()),
                      SQLITE_STATIC);
    bind_text(upsert, 15, record.classes);
    bind_text(upsert, 16, record.fqdn);
    sqlite3_bind_int(upsert, 17, record.dns_sides.forward ? 1 : 0);
    sqlite3_bind_int(upsert, 18, record.dns_sides.reverse ? 1 : 0);
    const std::string_view dns_state = detail::dns_state_text(record.dns_state);
    sqlite3_bind_text(upsert, 19, dns_state.data(), static_cast<int>(dns_state.size()), SQLITE_STATIC);
    const auto* relay = reinterpret_cast<const std::uint8_t*>(record.relay_agent_info.data());
    text_buffers_.relay_agent_info.resize(colon_hex_size(record.relay_agent_info.size()));
    bind_text(upsert, 20, write_colon_hex({relay, record.relay_agent_info.size()}, text_buffers_.relay_agent_info));
    code = sqlite3_step(upsert);
    if (code != SQLITE_DONE) {
      auto error = fail(code, "writing lease " + address, upsert);
      sqlite3_clear_bindings(upsert);
      return error;
    }
    const bool written = sqlite3_changes(db) > 0;
    // Every parameter is bound again for the next record; the bindings (pointers into this
    // record's text) are cleared once the batch is written.
    sqlite3_reset(upsert);
    // No change means the conflict's WHERE refused it: the stored token is newer.
    results.push_back(written ? WriteResult::Written : WriteResult::StaleToken);
    if (written) last_written = &record;
  }

  sqlite3_clear_bindings(upsert);
  code = sqlite3_step(connection_->commit.get());
  if (code != SQLITE_DONE) return fail(code, "committing", connection_->commit.get());
  sqlite3_reset(connection_->commit.get());
  if (connection_->checkpointer) connection_->checkpointer->after_commit(db, connection_->wal_frames);
  if (last_written != nullptr) {
    // Applied in order: the last record written is its address's row now.
    witness_ = Witness{last_written->address.to_string(),
                       detail::client_key_text(last_written->client),
                       static_cast<std::int64_t>(last_written->fencing_token),
                       unix_ms(last_written->granted_at)};
  }
  return results;
}

CheckpointCounts SqliteLeaseStore::checkpoints() const {
  if (!connection_ || !connection_->checkpointer) return {};
  return {connection_->checkpointer->background_checkpoints(),
          connection_->checkpointer->writer_checkpoints()};
}

Expected<DurabilitySettings, StoreError> SqliteLeaseStore::durability() const {
  DurabilitySettings settings;
  if (!connection_) {
    return unexpected(StoreError{StoreError::Kind::ReadOnly,
                                 "lease store " + path_ + ": closed after a read-only failure"});
  }
  for (const char* sql : {"PRAGMA journal_mode", "PRAGMA synchronous"}) {
    auto statement = detail::prepare(connection_->db, sql, path_);
    if (!statement) return unexpected(statement.error());
    const int code = sqlite3_step(statement->get());
    if (code != SQLITE_ROW)
      return unexpected(detail::sqlite_error(connection_->db, code, path_, sql));
    if (settings.journal_mode.empty()) {
      settings.journal_mode = std::string(column_text(statement->get(), 0));
    } else {
      settings.synchronous = sqlite3_column_int(statement->get(), 0);
    }
  }
  return settings;
}

Expected<void, StoreError> SqliteLeaseStore::load(
    const std::function<void(lease::Lease&&)>& visit) {
  if (connection_ == nullptr) {
    if (auto reopened = reattach(); !reopened) return reopened;
  }
  sqlite3_stmt* const select_all = connection_->select_all.get();
  int code = SQLITE_ROW;
  while ((code = sqlite3_step(select_all)) == SQLITE_ROW) {
    auto record = decode_row(select_all);
    if (!record) {
      StoreError error{StoreError::Kind::Corrupt, "lease store " + path_ + ": row for address '" +
                                                      std::string(column_text(select_all, 0)) +
                                                      "' has a bad " + record.error() + " value"};
      sqlite3_reset(select_all);
      return unexpected(std::move(error));
    }
    visit(std::move(*record));
  }
  if (code != SQLITE_DONE) {
    StoreError error = detail::sqlite_error(connection_->db, code, path_, "loading leases");
    sqlite3_reset(select_all);
    return unexpected(std::move(error));
  }
  sqlite3_reset(select_all);
  return {};
}

}  // namespace landlord::store
