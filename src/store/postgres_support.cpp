#include "postgres_support.hpp"

#include <poll.h>

#include <vector>

namespace landlord::store::detail {
namespace {

StoreError io_error(std::string_view name, std::string_view doing, std::string_view words) {
  return StoreError{StoreError::Kind::Io,
                    "lease store " + std::string(name) + ": " + std::string(doing) + ": " +
                        std::string(words)};
}

std::string trimmed(const char* text) {
  std::string words = text == nullptr ? "" : text;
  while (!words.empty() && (words.back() == '\n' || words.back() == ' ')) words.pop_back();
  return words.empty() ? "no message" : words;
}

// Waits for the connection's socket; false on timeout or a closed socket.
bool wait_socket(PGconn* connection, short events, Deadline deadline) {
  const int socket = PQsocket(connection);
  if (socket < 0) return false;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd descriptor{socket, events, 0};
  const int ready = ::poll(&descriptor, 1, static_cast<int>(left.count()) + 1);
  return ready > 0;
}

}  // namespace

std::string describe_url(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "postgresql (unparsable url)";
  }
  std::string database = "?", host = "default host";
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr) continue;
    if (std::string_view{option->keyword} == "dbname") database = option->val;
    if (std::string_view{option->keyword} == "host") host = option->val;
  }
  PQconninfoFree(options);
  return "postgresql database " + database + " on " + host;
}

StoreError::Kind error_kind(std::string_view sqlstate) {
  if (sqlstate == "53100") return StoreError::Kind::Full;      // disk_full
  if (sqlstate == "25006") return StoreError::Kind::ReadOnly;  // read_only_sql_transaction
  if (sqlstate == "55P03" || sqlstate == "40P01" || sqlstate == "40001" || sqlstate == "57014") {
    return StoreError::Kind::Locked;  // lock not available, deadlock, serialization, timeout
  }
  if (sqlstate.starts_with("XX")) return StoreError::Kind::Corrupt;  // internal / data corrupted
  if (sqlstate.starts_with("08") || sqlstate.starts_with("57") || sqlstate.starts_with("58")) {
    return StoreError::Kind::Io;  // connection, shutdown, system errors
  }
  return StoreError::Kind::Other;
}

StoreError postgres_error(PGconn* connection, const PGresult* result, std::string_view name,
                          std::string_view doing) {
  const char* sqlstate = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const std::string words = trimmed(result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                                        ? PQresultErrorMessage(result)
                                        : PQerrorMessage(connection));
  StoreError error = io_error(name, doing, words);
  if (sqlstate != nullptr) error.kind = error_kind(sqlstate);
  return error;
}

Expected<PgConnection, StoreError> connect(const std::string& url, std::string_view name,
                                           Deadline deadline) {
  PgConnection connection{PQconnectStart(url.c_str())};
  if (connection == nullptr) return unexpected(io_error(name, "connecting", "out of memory"));
  if (PQstatus(connection.get()) == CONNECTION_BAD) {
    return unexpected(io_error(name, "connecting", trimmed(PQerrorMessage(connection.get()))));
  }
  for (PostgresPollingStatusType status = PGRES_POLLING_WRITING;;) {
    if (status == PGRES_POLLING_OK) break;
    if (status == PGRES_POLLING_FAILED) {
      return unexpected(io_error(name, "connecting", trimmed(PQerrorMessage(connection.get()))));
    }
    if (!wait_socket(connection.get(), status == PGRES_POLLING_READING ? POLLIN : POLLOUT,
                     deadline)) {
      return unexpected(io_error(name, "connecting", "timed out"));
    }
    status = PQconnectPoll(connection.get());
  }
  // A standby in recovery accepts no write: a store on one would answer and never acknowledge.
  // With several hosts in the URL, target_session_attrs=read-write makes libpq skip standbys;
  // a URL that names only a standby, or leaves that out, ends here (PostgreSQL 14 and later
  // report in_hot_standby; an older server is not checked).
  if (const char* standby = PQparameterStatus(connection.get(), "in_hot_standby");
      standby != nullptr && std::string_view{standby} == "on") {
    const char* host = PQhost(connection.get());
    return unexpected(StoreError{
        StoreError::Kind::ReadOnly,
        "lease store " + std::string(name) + ": connecting: " +
            (host != nullptr && host[0] != '\0' ? std::string(host) : std::string("the server")) +
            " is a standby (in recovery) and accepts no writes; name the primary, and with "
            "several hosts add target_session_attrs=read-write"});
  }
  if (PQsetnonblocking(connection.get(), 1) != 0) {
    return unexpected(io_error(name, "connecting", trimmed(PQerrorMessage(connection.get()))));
  }
  return connection;
}

bool still_open(PGconn* connection) {
  // A bounded number of reads: a closing server's message and its end of file can take two.
  for (int read = 0; read < 4 && PQstatus(connection) == CONNECTION_OK; ++read) {
    pollfd descriptor{PQsocket(connection), POLLIN, 0};
    if (descriptor.fd < 0) return false;
    if (::poll(&descriptor, 1, 0) <= 0) break;  // nothing sent: as open as we can tell
    if (PQconsumeInput(connection) == 0) return false;
  }
  return PQstatus(connection) == CONNECTION_OK;
}

Expected<void, StoreError> flush(PGconn* connection, std::string_view name, Deadline deadline) {
  for (;;) {
    const int pending = PQflush(connection);
    if (pending == 0) return {};
    if (pending < 0) return unexpected(postgres_error(connection, nullptr, name, "sending"));
    if (!wait_socket(connection, POLLIN | POLLOUT, deadline)) {
      return unexpected(io_error(name, "sending", "timed out"));
    }
    // Reading what the server already answered keeps it from blocking on its side.
    if (PQconsumeInput(connection) == 0) {
      return unexpected(postgres_error(connection, nullptr, name, "sending"));
    }
  }
}

Expected<PgResult, StoreError> next_result(PGconn* connection, std::string_view name,
                                           Deadline deadline) {
  while (PQisBusy(connection) != 0) {
    if (!wait_socket(connection, POLLIN, deadline)) {
      return unexpected(io_error(name, "waiting for the database", "timed out"));
    }
    if (PQconsumeInput(connection) == 0) {
      return unexpected(postgres_error(connection, nullptr, name, "reading"));
    }
  }
  return PgResult{PQgetResult(connection)};
}

Expected<PgResult, StoreError> execute(PGconn* connection, std::string_view name,
                                       const char* sql, std::initializer_list<const char*> params,
                                       ExecStatusType expected, std::string_view doing,
                                       Deadline deadline) {
  const std::vector<const char*> values(params);
  // Without parameters the simple protocol, which runs several ';'-separated statements (DDL).
  const int sent = values.empty()
                       ? PQsendQuery(connection, sql)
                       : PQsendQueryParams(connection, sql, static_cast<int>(values.size()),
                                           nullptr, values.data(), nullptr, nullptr, 0);
  if (sent == 0) return unexpected(postgres_error(connection, nullptr, name, doing));
  if (auto flushed = flush(connection, name, deadline); !flushed) {
    return unexpected(flushed.error());
  }
  PgResult last, failed;
  for (;;) {
    auto result = next_result(connection, name, deadline);
    if (!result) return unexpected(result.error());
    if (*result == nullptr) break;
    if (PQresultStatus(result->get()) != expected && failed == nullptr) {
      failed = std::move(*result);
    } else {
      last = std::move(*result);
    }
  }
  if (failed != nullptr || last == nullptr) {
    return unexpected(postgres_error(connection, failed.get(), name, doing));
  }
  return last;
}

}  // namespace landlord::store::detail
