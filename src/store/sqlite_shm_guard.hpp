#pragma once
// SQLite's WAL index (the DB-shm file) is a shared file mapping. A write to a mapped page the
// kernel will not let become writable (the file made immutable with chattr +i, an ext4 file
// system in its emergency read-only state) is not an error code but SIGBUS, which would kill
// the daemon on its next commit. The store avoids that in two steps:
// - before each commit (and before opening), shm_refusal() asks the file's flags: an immutable
//   or append-only -shm fails the commit as read-only before SQLite touches the mapping;
// - for what changes between that check and SQLite's write, a SIGBUS handler (installed once)
//   rescues a fault inside a mapping of a file named *-shm: it swaps the page for a private
//   anonymous copy, so the write lands in memory only, and counts it (shm_faults()). The store
//   then fails that commit as read-only (the shared file never saw it) and closes its files.
//   Any other SIGBUS goes on to the handler that was there before (or kills, as before).
#include <cstdint>
#include <optional>
#include <string>

namespace landlord::store::detail {

// Installs the handler (once; later calls do nothing).
void install_shm_guard();
// Pages rescued so far, in any store of this process.
std::uint64_t shm_faults();
// Why the -shm file open as `descriptor` cannot take writes, or nullopt: "immutable" or
// "append-only" (chattr +i / +a).
std::optional<std::string> shm_refusal(int descriptor);
// The same for the file at `path`, if it exists.
std::optional<std::string> shm_refusal(const std::string& path);

}  // namespace landlord::store::detail
