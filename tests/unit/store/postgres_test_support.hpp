#pragma once
// The PostgreSQL side of the store tests: a fresh database per test in the throwaway cluster the
// CTest fixture `postgres` starts (tests/support/postgres_cluster.sh), named by
// LANDLORD_TEST_POSTGRES ("host=DIR user=landlord"). Without that variable the PostgreSQL tests
// are not instantiated at all; the ctest entries that run them always set it.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace landlord::store::testing {

inline std::optional<std::string> postgres_server() {
  const char* value = std::getenv("LANDLORD_TEST_POSTGRES");
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// Runs `sql` on `database` (the cluster's maintenance database by default); returns the first
// row's first value, "" when there is none. A failure fails the test.
inline std::string postgres_sql(const std::string& sql, const std::string& database = "landlord") {
  const std::string info = *postgres_server() + " dbname=" + database;
  PGconn* connection = PQconnectdb(info.c_str());
  std::string value;
  if (PQstatus(connection) != CONNECTION_OK) {
    ADD_FAILURE() << "connecting to " << info << ": " << PQerrorMessage(connection);
  } else {
    PGresult* result = PQexec(connection, sql.c_str());
    const auto status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      ADD_FAILURE() << sql << ": " << PQresultErrorMessage(result);
    } else if (status == PGRES_TUPLES_OK && PQntuples(result) > 0) {
      value = PQgetvalue(result, 0, 0);
    }
    PQclear(result);
  }
  PQfinish(connection);
  return value;
}

// A database of its own for one test, dropped (with any connection left) at the end.
class ScratchDatabase {
 public:
  ScratchDatabase() {
    static int counter = 0;
    name_ = "test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    postgres_sql("CREATE DATABASE " + name_);
  }
  ~ScratchDatabase() { postgres_sql("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)"); }
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  const std::string& name() const { return name_; }
  std::string url() const { return *postgres_server() + " dbname=" + name_; }
  std::string sql(const std::string& statement) const { return postgres_sql(statement, name_); }
  // Ends every other connection to the database (as a restart does) and waits until those
  // backends are gone, so each client's socket is closed by the time this returns (a client
  // may have connected again meanwhile).
  void end_connections() const {
    const std::string pids = sql("SELECT coalesce(string_agg(pid::text, ','), '') FROM pg_stat_activity WHERE datname = '" +
                                 name_ + "' AND pid <> pg_backend_pid()");
    if (pids.empty()) return;
    sql("SELECT pg_terminate_backend(pid) FROM unnest('{" + pids + "}'::int[]) AS pid");
    const std::string left = "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY('{" + pids + "}'::int[])";
    for (int i = 0; i < 500 && sql(left) != "0"; ++i) ::usleep(10'000);
    EXPECT_EQ(sql(left), "0") << "backends still there";
  }

 private:
  std::string name_;
};

}  // namespace landlord::store::testing
