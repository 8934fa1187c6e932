#pragma once
// Small RAII and error helpers over the SQLite C API, private to the store.
#include <sqlite3.h>

#include <memory>
#include <string>
#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store::detail {

struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

// Maps an SQLite result code to a StoreError kind and a message naming the path, what we were
// doing and SQLite's own words. Reads the connection's error message, so call it straight after
// the failing call.
StoreError sqlite_error(sqlite3* db, int code, std::string_view path, std::string_view doing);
StoreError::Kind error_kind(int code, int system_errno);

// Library-wide settings, made once before the first connection opens: SQLite then keeps no
// allocation statistics (their global mutex cost ~600 instructions per written lease; landlord
// reads none of them). Later calls do nothing.
void configure_library();

Expected<Statement, StoreError> prepare(sqlite3* db, std::string_view sql, std::string_view path);
// Runs statements that return no rows we need (DDL, pragmas that set).
Expected<void, StoreError> execute(sqlite3* db, const char* sql, std::string_view path);

// What works once the store file at `path` was deleted while this process holds it open: its
// committed leases are still readable through /proc/self/fd (the database file and, if it was
// deleted too, its WAL): copy them to `path` while landlord runs, then restart it. Names the
// descriptors it finds; says how to find them if it finds none.
std::string deleted_store_advice(const std::string& path);

}  // namespace landlord::store::detail
