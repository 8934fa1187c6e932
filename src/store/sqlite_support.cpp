#include "sqlite_support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace landlord::store::detail {

void configure_library() {
  // sqlite3_config works only before SQLite initializes (its first open does that); once it has,
  // the call returns SQLITE_MISUSE and changes nothing, which costs only the saving.
  static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  static_cast<void>(configured);
}

StoreError::Kind error_kind(int code, int system_errno) {
  switch (code & 0xff) {
    case SQLITE_FULL: return StoreError::Kind::Full;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH: return StoreError::Kind::ReadOnly;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return StoreError::Kind::Locked;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return StoreError::Kind::Corrupt;
    case SQLITE_IOERR:
      // A write the kernel refused: the disk is full, its file system went read-only (EROFS),
      // or the file was made immutable (EPERM, root included).
      if (system_errno == ENOSPC) return StoreError::Kind::Full;
      if (system_errno == EROFS || system_errno == EPERM || system_errno == EACCES) {
        return StoreError::Kind::ReadOnly;
      }
      return StoreError::Kind::Io;
    case SQLITE_CANTOPEN:
      // A file or directory we may not write is an operator's read-only setup, not an I/O fault.
      if (system_errno == EROFS || system_errno == EACCES || system_errno == EPERM) {
        return StoreError::Kind::ReadOnly;
      }
      return StoreError::Kind::Io;
    default: return StoreError::Kind::Other;
  }
}

namespace {

// SQLite reports a file it cannot create or open for writing as CANTOPEN, often with the errno
// of its read-only retry (ENOENT). Asking the file system tells a read-only setup from a
// missing directory. Returns 0 when both the file (if any) and its directory are writable.
int write_access_errno(std::string_view path) {
  const std::filesystem::path file{std::string(path)};
  const auto directory = file.has_parent_path() ? file.parent_path() : std::filesystem::path{"."};
  if (::access(directory.c_str(), W_OK) != 0) return errno;
  if (::access(file.c_str(), F_OK) == 0 && ::access(file.c_str(), W_OK) != 0) return errno;
  return 0;
}

// SQLite reports a refused write (SQLITE_IOERR_WRITE) with sqlite3_system_errno() 0 when the
// errno was lost before it read it (SQLite 3.40: a WAL made immutable, EPERM even for root, or
// on an ext4 gone read-only after an error, EROFS): any I/O fault, then. The kernel tells the
// same to a probe: access(W_OK) on the database (EPERM when immutable) and an open for writing
// of its WAL (EPERM, or EROFS: ext4's emergency read-only state leaves access() saying yes).
// Never an open of the database file itself: closing it would drop this process's POSIX locks
// on it, SQLite's own included; the WAL carries none (WAL mode locks the -shm file).
int refused_write_errno(std::string_view path) {
  const std::string database(path);
  if (::access(database.c_str(), F_OK) == 0 && ::access(database.c_str(), W_OK) != 0) return errno;
  const std::string wal = database + "-wal";
  const int descriptor = ::open(wal.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (descriptor >= 0) {
    ::close(descriptor);
    return 0;
  }
  return errno == ENOENT ? 0 : errno;
}

}  // namespace

StoreError sqlite_error(sqlite3* db, int code, std::string_view path, std::string_view doing) {
  int system_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  if ((code & 0xff) == SQLITE_CANTOPEN) {
    if (const int access_errno = write_access_errno(path); access_errno != 0) {
      system_errno = access_errno;
    }
  } else if ((code & 0xff) == SQLITE_IOERR && system_errno == 0) {
    system_errno = refused_write_errno(path);
  }
  const char* words = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  std::string message = "lease store ";
  message.append(path).append(": ").append(doing).append(": ").append(words);
  std::string details;
  if (std::strcmp(words, sqlite3_errstr(code)) != 0) details = sqlite3_errstr(code);
  if (system_errno != 0) {
    details.append(details.empty() ? "" : ", ").append(std::strerror(system_errno));
  }
  if (!details.empty()) message.append(" (").append(details).append(")");
  return StoreError{error_kind(code, system_errno), std::move(message)};
}

Expected<Statement, StoreError> prepare(sqlite3* db, std::string_view sql, std::string_view path) {
  sqlite3_stmt* raw = nullptr;
  const int code = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  if (code != SQLITE_OK) {
    return unexpected(sqlite_error(db, code, path, "preparing `" + std::string(sql) + "`"));
  }
  return Statement{raw};
}

Expected<void, StoreError> execute(sqlite3* db, const char* sql, std::string_view path) {
  const int code = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) return unexpected(sqlite_error(db, code, path, sql));
  return {};
}

std::string deleted_store_advice(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string pid = std::to_string(::getpid());
  std::string database, wal;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator{"/proc/self/fd", error}) {
    std::error_code unreadable;
    const std::string target = fs::read_symlink(entry.path(), unreadable).string();
    const std::string name = entry.path().filename().string();
    if (target == path + " (deleted)") database = name;
    if (target == path + "-wal (deleted)") wal = name;
  }
  std::string copy;
  if (database.empty()) {
    copy = "`ls -l /proc/" + pid + "/fd` shows it as '" + path + " (deleted)': copy that descriptor to " +
           path + " (and the one of '" + path + "-wal (deleted)', if listed, to " + path + "-wal)";
  } else {
    copy = "`cp /proc/" + pid + "/fd/" + database + " " + path + "`";
    if (!wal.empty()) copy += " and `cp /proc/" + pid + "/fd/" + wal + " " + path + "-wal`";
  }
  return "Its committed leases are still readable through this process: while landlord runs, " +
         copy + ", then restart landlord, which reads them from there (a file put back from a backup would lack the leases since)";
}

}  // namespace landlord::store::detail
