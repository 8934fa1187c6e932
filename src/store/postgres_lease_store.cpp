#include "landlord/store/postgres_lease_store.hpp"

#include <array>
#include <poll.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "landlord/base/hex.hpp"
#include "postgres_notifier.hpp"
#include "postgres_schema.hpp"
#include "postgres_support.hpp"
#include "record_text.hpp"

namespace landlord::store {

using detail::Deadline;
using detail::PgConnection;
using detail::PgResult;

struct PostgresLeaseStore::Connection {
  PgConnection handle;  // null after a failure: the next call reconnects
  std::uint64_t connects = 0;
  // While a commit waits for its COMMIT's answer: the first WARNING the server sent meanwhile.
  // PostgreSQL answers "COMMIT" to a transaction whose wait for its synchronous standbys was
  // cancelled (pg_cancel_backend, an operator's or a tool's), with only a WARNING that it is
  // "committed locally, but might not have been replicated to the standby": on the primary but
  // maybe on no standby, so a failover may lose it. Such a commit is not acknowledged.
  bool collecting = false;
  std::optional<std::string> warning;
  // libpq's default receiver (prints to stderr; it takes no argument), still called.
  PQnoticeReceiver chained = nullptr;

  void adopt(PgConnection connected) {
    handle = std::move(connected);
    chained = PQsetNoticeReceiver(handle.get(), &Connection::receive, this);
    ++connects;
  }

  static void receive(void* argument, const PGresult* notice) {
    auto* self = static_cast<Connection*>(argument);
    const char* severity = PQresultErrorField(notice, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (self->collecting && !self->warning && severity != nullptr &&
        std::strcmp(severity, "WARNING") == 0) {
      std::string words = PQresultErrorMessage(notice);
      while (!words.empty() && (words.back() == '\n' || words.back() == ' ')) words.pop_back();
      self->warning = std::move(words);
    }
    if (self->chained != nullptr) self->chained(nullptr, notice);
  }
};

namespace {

constexpr const char* kUpsert = "landlord_upsert";
constexpr const char* kSelectAll = "landlord_select_all";
constexpr const char* kChanges = "landlord_changes";

Deadline deadline_after(std::chrono::milliseconds timeout) {
  return std::chrono::steady_clock::now() + timeout;
}

Expected<bool, StoreError> take_presence_lock(PGconn* connection, std::string_view name,
                                              std::uint32_t id, Deadline deadline) {
  // Two int4 keys: the class (landlord's peers) and the id. An id above 2^31 is passed as the
  // int4 of the same 32 bits, and pg_locks shows it back as an oid (unsigned).
  const std::string class_key = std::to_string(PostgresLeaseStore::kPresenceLockClass);
  const std::string id_key = std::to_string(static_cast<std::int32_t>(id));
  auto taken = detail::execute(connection, name, "SELECT pg_try_advisory_lock($1::int4, $2::int4)",
                               {class_key.c_str(), id_key.c_str()}, PGRES_TUPLES_OK,
                               "announcing this server", deadline);
  if (!taken) return unexpected(taken.error());
  return std::string_view(PQgetvalue(taken->get(), 0, 0)) == "t";
}

Expected<void, StoreError> prepare_statements(PGconn* connection, std::string_view name,
                                              Deadline deadline) {
  const std::array<std::pair<const char*, const char*>, 3> statements{{
      {kUpsert, detail::kPostgresUpsertSql},
      {kSelectAll, detail::kPostgresSelectAllSql},
      {kChanges, detail::kPostgresChangesSql},
  }};
  for (const auto& [statement, sql] : statements) {
    if (PQsendPrepare(connection, statement, sql, 0, nullptr) == 0) {
      return unexpected(detail::postgres_error(connection, nullptr, name, "preparing statements"));
    }
    if (auto sent = detail::flush(connection, name, deadline); !sent) {
      return unexpected(sent.error());
    }
    for (;;) {
      auto result = detail::next_result(connection, name, deadline);
      if (!result) return unexpected(result.error());
      if (*result == nullptr) break;
      if (PQresultStatus(result->get()) != PGRES_COMMAND_OK) {
        StoreError error =
            detail::postgres_error(connection, result->get(), name, "preparing statements");
        if (error.kind == StoreError::Kind::Other) error.kind = StoreError::Kind::Corrupt;
        return unexpected(std::move(error));
      }
    }
  }
  return {};
}

constexpr int kWriterColumn = detail::kDecodedColumns;  // after decode_record's (LANDLORD_POSTGRES_COLUMNS)

// Decodes row `row` of `result`, its columns starting at `first`.
std::optional<std::string> decode_row(const PGresult* result, int row, int first,
                                      lease::Lease& record) {
  const auto text = [&](int column) {
    const int index = first + column;
    return std::string_view{PQgetvalue(result, row, index),
                            static_cast<std::size_t>(PQgetlength(result, row, index))};
  };
  const auto integer = [&](int column) {
    const std::string_view digits = text(column);
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc{} && end == digits.data() + digits.size() ? value : -1;
  };
  if (auto bad = detail::decode_record(record, text, integer)) return bad;
  // The writer's server-id: NULL (written before schema 3, or by a server without one) is none.
  if (PQgetisnull(result, row, first + kWriterColumn) != 0) return std::nullopt;
  const auto writer = Ipv4::parse(text(kWriterColumn));
  if (!writer) return "writer";
  record.writer = *writer;
  return std::nullopt;
}

StoreError bad_row(std::string_view name, const PGresult* result, int row, int first,
                   const std::string& column) {
  return StoreError{StoreError::Kind::Corrupt,
                    "lease store " + std::string(name) + ": row for address '" +
                        std::string(PQgetvalue(result, row, first)) + "' has a bad " + column +
                        " value"};
}

}  // namespace

PostgresLeaseStore::PostgresLeaseStore(PostgresOptions options, std::string name,
                                       std::unique_ptr<Connection> connection)
    : options_(std::move(options)), name_(std::move(name)), connection_(std::move(connection)) {
  // The payload is the server-id (digits and dots) or nothing: safe as a literal.
  own_payload_ = options_.writer ? options_.writer->to_string() : std::string();
  if (options_.notify) {
    notify_sql_ = std::string("NOTIFY ") + kPostgresChangeChannel + ", '" + own_payload_ + "'";
    notifier_ = std::make_unique<detail::PostgresNotifier>(
        options_.url, name_, notify_sql_, options_.notify_interval, options_.timeout);
  }
}

PostgresLeaseStore::~PostgresLeaseStore() = default;

Expected<std::unique_ptr<PostgresLeaseStore>, StoreError> PostgresLeaseStore::open(
    const PostgresOptions& options) {
  std::string name = detail::describe_url(options.url);
  const Deadline deadline = deadline_after(options.timeout);
  auto connected = detail::connect(options.url, name, deadline);
  if (!connected) return unexpected(connected.error());
  if (auto schema = detail::ensure_postgres_schema(connected->get(), name, deadline); !schema) {
    return unexpected(schema.error());
  }
  if (auto prepared = prepare_statements(connected->get(), name, deadline); !prepared) {
    return unexpected(prepared.error());
  }
  auto connection = std::make_unique<Connection>();
  connection->adopt(std::move(*connected));
  return std::unique_ptr<PostgresLeaseStore>(
      new PostgresLeaseStore(options, std::move(name), std::move(connection)));
}

std::uint64_t PostgresLeaseStore::reconnects() const { return connection_->connects - 1; }

PostgresLeaseStore::NotificationCounts PostgresLeaseStore::notifications() const {
  return notifier_ ? notifier_->counts() : NotificationCounts{};
}

Expected<void, StoreError> PostgresLeaseStore::ensure_connected() {
  // A connection the server closed meanwhile (it restarted, failed over, ended our backend) is
  // replaced now rather than spending the call on it.
  if (connection_->handle != nullptr && detail::still_open(connection_->handle.get())) return {};
  connection_->handle.reset();
  const Deadline deadline = deadline_after(options_.timeout);
  auto connected = detail::connect(options_.url, name_, deadline);
  if (!connected) return unexpected(connected.error());
  if (auto prepared = prepare_statements(connected->get(), name_, deadline); !prepared) {
    return unexpected(prepared.error());
  }
  if (listening_) {
    const std::string sql = std::string("LISTEN ") + kPostgresChangeChannel;
    auto listened = detail::execute(connected->get(), name_, sql.c_str(), {}, PGRES_COMMAND_OK,
                                    "listening for changes", deadline);
    if (!listened) return unexpected(listened.error());
  }
  if (announced_) {
    auto taken = take_presence_lock(connected->get(), name_, *announced_, deadline);
    if (!taken) return unexpected(taken.error());
    presence_held_ = *taken;  // false: another session holds the id
  }
  connection_->adopt(std::move(*connected));
  return {};
}

Expected<bool, StoreError> PostgresLeaseStore::announce(std::uint32_t id) {
  const bool open = connection_->handle != nullptr && detail::still_open(connection_->handle.get());
  announced_ = id;  // from here on every new connection announces again (ensure_connected)
  if (!open) {
    if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
    return presence_held_;
  }
  auto taken = take_presence_lock(connection_->handle.get(), name_, id, deadline_after(options_.timeout));
  if (!taken) {
    connection_->handle.reset();
    return unexpected(taken.error());
  }
  presence_held_ = *taken;
  return presence_held_;
}

Expected<std::vector<std::uint32_t>, StoreError> PostgresLeaseStore::present() {
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  const std::string class_key = std::to_string(kPresenceLockClass);
  auto rows = detail::execute(
      connection_->handle.get(), name_,
      "SELECT objid::int8 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 "
      "AND classid = $1::int8::oid AND database = (SELECT oid FROM pg_database WHERE datname = "
      "current_database())",
      {class_key.c_str()}, PGRES_TUPLES_OK, "reading which servers are up",
      deadline_after(options_.timeout));
  if (!rows) {
    connection_->handle.reset();
    return unexpected(rows.error());
  }
  std::vector<std::uint32_t> ids;
  for (int row = 0; row < PQntuples(rows->get()); ++row) {
    ids.push_back(static_cast<std::uint32_t>(std::stoull(PQgetvalue(rows->get(), row, 0))));
  }
  return ids;
}

Expected<std::vector<WriteResult>, StoreError> PostgresLeaseStore::commit(
    std::span<const lease::Lease> batch) {
  for (const auto& record : batch) detail::assert_persistable(record);
  std::vector<WriteResult> results;
  if (batch.empty()) return results;
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  PGconn* const connection = connection_->handle.get();
  const Deadline deadline = deadline_after(options_.timeout);
  // Any failure drops the connection: the server rolls the transaction back when it goes, and
  // nothing of the batch is committed unless its COMMIT answered "COMMIT".
  const auto fail = [&](StoreError error) {
    connection_->handle.reset();
    return unexpected(std::move(error));
  };
  const auto send_failed = [&](std::string_view doing) {
    return fail(detail::postgres_error(connection, nullptr, name_, doing));
  };
  // Whether this commit carries the NOTIFY (PostgresNotifier), told how it ended on every return.
  const bool notifies = notifier_ && notifier_->claim();
  bool committed_ok = false;
  struct Finish {
    detail::PostgresNotifier* notifier;
    const bool& carried;
    const bool& committed;
    ~Finish() {
      if (notifier != nullptr) notifier->finished(carried, committed);
    }
  } finish{notifier_.get(), notifies, committed_ok};

  // One pipeline: BEGIN, one conditional write per record, COMMIT, sync; one round trip.
  if (PQenterPipelineMode(connection) == 0) return send_failed("entering pipeline mode");
  if (PQsendQueryParams(connection, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
    return send_failed("starting a transaction");
  }
  const std::string writer = options_.writer ? options_.writer->to_string() : std::string();
  for (const auto& record : batch) {
    const std::string address = record.address.to_string();
    const std::string hardware = to_colon_hex(record.hardware.bytes());
    const std::string client_id = to_colon_hex(record.client_id.bytes());
    const std::string client_key = detail::client_key_text(record.client);
    const std::string token = std::to_string(record.fencing_token);
    const std::string subnet = std::to_string(record.subnet_id);
    const std::string hardware_type = std::to_string(record.hardware.type());
    const std::string granted = std::to_string(unix_ms(record.granted_at));
    const std::string lease_time = std::to_string(record.lease_time.count());
    const std::string renew_time = std::to_string(record.renew_time.count());
    const std::string rebind_time = std::to_string(record.rebind_time.count());
    const std::string state{detail::state_text(record.state)};
    const std::string extension{detail::extension_text(record.last_extension)};
    const std::string relay_agent_info = detail::bytes_text(record.relay_agent_info);
    const std::string dns_state{detail::dns_state_text(record.dns_state)};
    const std::array<const char*, 21> values{
        address.c_str(),
        state.c_str(),
        hardware.c_str(),
        client_id.empty() ? nullptr : client_id.c_str(),
        record.hostname.empty() ? nullptr : record.hostname.c_str(),
        token.c_str(),
        subnet.c_str(),
        hardware_type.c_str(),
        granted.c_str(),
        lease_time.c_str(),
        renew_time.c_str(),
        rebind_time.c_str(),
        extension.c_str(),
        client_key.c_str(),
        record.classes.empty() ? nullptr : record.classes.c_str(),
        writer.empty() ? nullptr : writer.c_str(),  // this server's, whatever the record says
        record.fqdn.empty() ? nullptr : record.fqdn.c_str(),
        record.dns_sides.forward ? "1" : "0",
        record.dns_sides.reverse ? "1" : "0",
        dns_state.c_str(),
        relay_agent_info.empty() ? nullptr : relay_agent_info.c_str(),
    };
    // libpq copies the parameters into its output buffer: the strings may go after this call.
    if (PQsendQueryPrepared(connection, kUpsert, static_cast<int>(values.size()), values.data(),
                            nullptr, nullptr, 0) == 0) {
      return send_failed("queueing lease " + address);
    }
  }
  // The wake-up for the other servers' feeds, delivered by PostgreSQL at the commit only.
  if (notifies && PQsendQueryParams(connection, notify_sql_.c_str(), 0, nullptr, nullptr, nullptr,
                                    nullptr, 0) == 0) {
    return send_failed("queueing the notification");
  }
  if (PQsendQueryParams(connection, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 0 ||
      PQpipelineSync(connection) == 0) {
    return send_failed("queueing the commit");
  }
  if (auto sent = detail::flush(connection, name_, deadline); !sent) return fail(sent.error());

  // Results come back per query, each followed by a null result; the sync ends them.
  results.reserve(batch.size());
  const std::size_t notify_query = notifies ? batch.size() + 1 : 0;
  const std::size_t commit_query = batch.size() + 1 + (notifies ? 1 : 0);
  std::size_t query = 0;
  std::optional<StoreError> error;
  bool committed = false;
  Connection& state = *connection_;
  state.warning.reset();
  struct StopCollecting {
    Connection& state;
    ~StopCollecting() { state.collecting = false; }
  } stop_collecting{state};
  for (;;) {
    // A WARNING at the COMMIT (or the sync after it) leaves its outcome unknown (Connection).
    state.collecting = query >= commit_query;
    auto result = detail::next_result(connection, name_, deadline);
    if (!result) return fail(result.error());
    PGresult* const raw = result->get();
    if (raw == nullptr) {
      ++query;
      if (query > commit_query + 1) {
        return fail(StoreError{StoreError::Kind::Io,
                               "lease store " + name_ + ": the pipeline lost its sync"});
      }
      continue;
    }
    const ExecStatusType status = PQresultStatus(raw);
    if (status == PGRES_PIPELINE_SYNC) break;
    if (status == PGRES_PIPELINE_ABORTED) continue;
    if (status != PGRES_COMMAND_OK) {
      if (!error) {
        // An error after the last query (the server going away at the sync) is the commit's.
        const std::string doing =
            query == 0                                ? std::string("starting a transaction")
            : query <= batch.size()                   ? "writing lease " + batch[query - 1].address.to_string()
            : query == notify_query && notify_query != 0 ? std::string("notifying the other servers")
                                                      : std::string("committing");
        error = detail::postgres_error(connection, raw, name_, doing);
      }
      continue;
    }
    if (query >= 1 && query <= batch.size()) {
      // "INSERT 0 1": written; "INSERT 0 0": the conflict's WHERE refused it.
      results.push_back(std::strcmp(PQcmdTuples(raw), "0") == 0 ? WriteResult::StaleToken
                                                                 : WriteResult::Written);
    } else if (query == commit_query) {
      committed = std::strcmp(PQcmdStatus(raw), "COMMIT") == 0;  // "ROLLBACK" when aborted
    }
  }
  if (PQexitPipelineMode(connection) == 0) return send_failed("leaving pipeline mode");
  if (error) return fail(std::move(*error));
  if (!committed || results.size() != batch.size()) {
    return fail(StoreError{StoreError::Kind::Io,
                           "lease store " + name_ + ": committing: the transaction was rolled back"});
  }
  if (state.warning) {
    // Committed on this server, maybe on no standby: not acknowledged. The records are retried
    // (the same writes again: accepted as they stand), and the retry is acknowledged once a
    // commit is confirmed without a warning.
    return fail(StoreError{StoreError::Kind::Io,
                           "lease store " + name_ + ": committing: the database answered COMMIT with a warning, so " +
                               "the commit may be on this server only (not acknowledged): " + *state.warning});
  }
  committed_ok = true;
  return results;
}

Expected<void, StoreError> PostgresLeaseStore::load(
    const std::function<void(lease::Lease&&)>& visit) {
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  PGconn* const connection = connection_->handle.get();
  const auto fail = [&](StoreError error) {
    connection_->handle.reset();
    return unexpected(std::move(error));
  };
  if (PQsendQueryPrepared(connection, kSelectAll, 0, nullptr, nullptr, nullptr, 0) == 0 ||
      PQsetSingleRowMode(connection) == 0) {
    return fail(detail::postgres_error(connection, nullptr, name_, "loading leases"));
  }
  if (auto sent = detail::flush(connection, name_, deadline_after(options_.timeout)); !sent) {
    return fail(sent.error());
  }
  std::optional<StoreError> error;
  for (;;) {
    // Streamed row by row: the timeout bounds a stall, not the whole load.
    auto result = detail::next_result(connection, name_, deadline_after(options_.timeout));
    if (!result) return fail(result.error());
    if (*result == nullptr) break;
    const ExecStatusType status = PQresultStatus(result->get());
    if (status == PGRES_TUPLES_OK) continue;  // the end of the rows
    if (status != PGRES_SINGLE_TUPLE) {
      if (!error) error = detail::postgres_error(connection, result->get(), name_, "loading leases");
      continue;
    }
    if (error) continue;
    lease::Lease record;
    if (const auto bad = decode_row(result->get(), 0, 0, record)) {
      error = bad_row(name_, result->get(), 0, 0, *bad);
      continue;  // read to the end so the connection stays usable
    }
    visit(std::move(record));
  }
  if (error) return unexpected(std::move(*error));
  return {};
}

Expected<ChangeCursor, StoreError> PostgresLeaseStore::now() {
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  auto result = detail::execute(connection_->handle.get(), name_, detail::kPostgresNowSql, {},
                                PGRES_TUPLES_OK, "reading a snapshot",
                                deadline_after(options_.timeout));
  if (!result) {
    connection_->handle.reset();
    return unexpected(result.error());
  }
  return ChangeCursor{PQgetvalue(result->get(), 0, 0), connection_->connects};
}

Expected<PostgresLeaseStore::ClockReading, StoreError> PostgresLeaseStore::clock_offset(
    const std::function<TimePoint()>& local_now) {
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  const TimePoint sent = local_now();
  auto result = detail::execute(connection_->handle.get(), name_, detail::kPostgresClockSql, {},
                                PGRES_TUPLES_OK, "reading the database's clock",
                                deadline_after(options_.timeout));
  const TimePoint received = local_now();
  if (!result) {
    connection_->handle.reset();
    return unexpected(result.error());
  }
  const std::string_view digits = PQgetvalue(result->get(), 0, 0);
  std::int64_t database_ms = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), database_ms);
  if (error != std::errc{} || end != digits.data() + digits.size()) {
    return unexpected(StoreError{StoreError::Kind::Corrupt, "lease store " + name_ +
                                                                ": the database's clock reads '" +
                                                                std::string(digits) + "'"});
  }
  const Duration round_trip = received - sent;
  const TimePoint middle = sent + round_trip / 2;
  return ClockReading{middle - time_from_unix_ms(database_ms), round_trip};
}

Expected<Changes, StoreError> PostgresLeaseStore::reload() {
  // The cursor first: a row committed between it and the load comes again in the next poll.
  auto cursor = now();
  if (!cursor) return unexpected(cursor.error());
  Changes changes;
  changes.next = std::move(*cursor);
  changes.reloaded = true;
  auto loaded = load([&](lease::Lease&& record) { changes.records.push_back(std::move(record)); });
  if (!loaded) return unexpected(loaded.error());
  return changes;
}

Expected<Changes, StoreError> PostgresLeaseStore::changes_since(const ChangeCursor& cursor) {
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  if (cursor.connection != connection_->connects) return reload();
  PGconn* const connection = connection_->handle.get();
  const Deadline deadline = deadline_after(options_.timeout);
  const char* values[] = {cursor.snapshot.c_str()};
  if (PQsendQueryPrepared(connection, kChanges, 1, values, nullptr, nullptr, 0) == 0) {
    connection_->handle.reset();
    return unexpected(detail::postgres_error(connection, nullptr, name_, "polling changes"));
  }
  PgResult rows;
  std::optional<StoreError> error;
  if (auto sent = detail::flush(connection, name_, deadline); !sent) {
    error = sent.error();
  } else {
    for (;;) {
      auto result = detail::next_result(connection, name_, deadline);
      if (!result) {
        error = result.error();
        break;
      }
      if (*result == nullptr) break;
      if (PQresultStatus(result->get()) != PGRES_TUPLES_OK) {
        if (!error) error = detail::postgres_error(connection, result->get(), name_, "polling changes");
      } else {
        rows = std::move(*result);
      }
    }
  }
  if (error || rows == nullptr || PQntuples(rows.get()) < 1) {
    connection_->handle.reset();
    if (!error) error = StoreError{StoreError::Kind::Io, "lease store " + name_ + ": polling changes: no snapshot"};
    return unexpected(std::move(*error));
  }
  Changes changes;
  changes.next.snapshot = PQgetvalue(rows.get(), 0, 0);
  changes.next.connection = connection_->connects;
  for (int row = 0; row < PQntuples(rows.get()); ++row) {
    if (PQgetisnull(rows.get(), row, 1) != 0) continue;  // no change: the LEFT JOIN's empty row
    lease::Lease record;
    if (const auto bad = decode_row(rows.get(), row, 1, record)) {
      return unexpected(bad_row(name_, rows.get(), row, 1, *bad));
    }
    changes.records.push_back(std::move(record));
  }
  return changes;
}

Expected<void, StoreError> PostgresLeaseStore::listen() {
  if (listening_) return {};
  listening_ = true;  // from here on every reconnect listens again (ensure_connected)
  if (auto connected = ensure_connected(); !connected) return unexpected(connected.error());
  const std::string sql = std::string("LISTEN ") + kPostgresChangeChannel;
  auto listened = detail::execute(connection_->handle.get(), name_, sql.c_str(), {},
                                  PGRES_COMMAND_OK, "listening for changes",
                                  deadline_after(options_.timeout));
  if (!listened) {
    connection_->handle.reset();
    return unexpected(listened.error());
  }
  return {};
}

bool PostgresLeaseStore::take_notifications() {
  bool others = false;
  while (PGnotify* notification = PQnotifies(connection_->handle.get())) {
    // Our own commits are in our view already; only another writer's wake us. A store without
    // a server-id ("" payload) cannot tell, and takes every notification as another's.
    if (own_payload_.empty() || own_payload_ != notification->extra) others = true;
    PQfreemem(notification);
  }
  return others;
}

Expected<bool, StoreError> PostgresLeaseStore::await_notification(Duration timeout, int wake_fd) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    PGconn* const connection = connection_->handle.get();
    const bool connected = connection != nullptr && PQstatus(connection) == CONNECTION_OK;
    // What libpq read during the last poll first: a notification may already be waiting.
    if (connected && take_notifications()) return true;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    std::array<pollfd, 2> descriptors{{{wake_fd, POLLIN, 0}, {connected ? PQsocket(connection) : -1, POLLIN, 0}}};
    const int ready = ::poll(descriptors.data(), descriptors.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      return unexpected(StoreError{StoreError::Kind::Io, "lease store " + name_ +
                                                             ": waiting for notifications: " +
                                                             std::strerror(errno)});
    }
    if (ready <= 0) continue;
    if ((descriptors[0].revents & (POLLIN | POLLERR | POLLHUP)) != 0) return false;
    if (descriptors[1].revents != 0 &&
        (PQconsumeInput(connection) == 0 || PQstatus(connection) != CONNECTION_OK)) {
      StoreError error = detail::postgres_error(connection, nullptr, name_, "waiting for notifications");
      connection_->handle.reset();
      return unexpected(std::move(error));
    }
  }
}

}  // namespace landlord::store
