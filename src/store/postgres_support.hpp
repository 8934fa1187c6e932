#pragma once
// Small RAII, error and waiting helpers over libpq, private to the store. Every wait is bounded by
// a deadline: a database that stops answering fails the call instead of hanging the worker.
#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store::detail {

struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ResultClearer>;

struct ConnectionFinisher {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
using PgConnection = std::unique_ptr<PGconn, ConnectionFinisher>;

using Deadline = std::chrono::steady_clock::time_point;

// The URL without its password, for messages: "postgresql database NAME on HOST".
std::string describe_url(const std::string& url);

// A StoreError naming the database, what we were doing and PostgreSQL's words; the kind from
// the SQLSTATE (disk full, read-only, lock or serialization conflicts) or, with no result, Io.
StoreError postgres_error(PGconn* connection, const PGresult* result, std::string_view name,
                          std::string_view doing);
StoreError::Kind error_kind(std::string_view sqlstate);

// Connects (non-blocking connect polled up to `deadline`) and switches the connection to
// non-blocking mode, so sends never block and every wait goes through wait_readable().
Expected<PgConnection, StoreError> connect(const std::string& url, std::string_view name,
                                           Deadline deadline);

// Whether an idle connection is still usable, found without waiting: reads whatever the server
// sent since the last call (at a shutdown or a backend's termination: its last message, then the
// end of the socket) and asks libpq. False: the server closed it, so a statement sent on it
// could only fail. A server that vanished without closing (a host gone) still looks alive.
bool still_open(PGconn* connection);

// Sends everything buffered, reading meanwhile so the server never blocks on a full socket.
Expected<void, StoreError> flush(PGconn* connection, std::string_view name, Deadline deadline);
// The next result (nullptr between queries), waiting at most until `deadline`.
Expected<PgResult, StoreError> next_result(PGconn* connection, std::string_view name,
                                           Deadline deadline);
// One statement with parameters outside pipeline mode, its result checked against `expected`.
Expected<PgResult, StoreError> execute(PGconn* connection, std::string_view name,
                                       const char* sql, std::initializer_list<const char*> params,
                                       ExecStatusType expected, std::string_view doing,
                                       Deadline deadline);

}  // namespace landlord::store::detail
