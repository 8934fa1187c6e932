#pragma once
// The on-disk schema (version 3: the DNS name and state, option 82; 2: the client classes), the migration of older files, and
// the check that a file is ours before we touch it.
#include <sqlite3.h>

#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store::detail {

// Makes sure the file holds a landlord lease store of our schema version, creating the schema in
// a fresh (empty) database, or migrating a file of an older version, unless `read_only`. Reads only, until it knows the file is ours or
// empty: a foreign database is never modified.
Expected<void, StoreError> ensure_schema(sqlite3* db, std::string_view path, bool read_only);

// One record per address, written with the fencing condition in SQL so it holds across
// connections and processes: the update happens only if the new token is not older.
inline constexpr std::string_view kUpsertSql =
    "INSERT INTO leases (address, state, hwaddr, client_id, hostname, fencing_token, subnet_id,"
    " hwtype, granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms, last_extension,"
    " client_key, classes, fqdn, fqdn_fwd, fqdn_rev, dns_state, relay_agent_info)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,"
    " ?20)"
    " ON CONFLICT (address) DO UPDATE SET state = excluded.state, hwaddr = excluded.hwaddr,"
    " client_id = excluded.client_id, hostname = excluded.hostname,"
    " fencing_token = excluded.fencing_token, subnet_id = excluded.subnet_id,"
    " hwtype = excluded.hwtype, granted_at_ms = excluded.granted_at_ms,"
    " lease_time_ms = excluded.lease_time_ms, renew_time_ms = excluded.renew_time_ms,"
    " rebind_time_ms = excluded.rebind_time_ms, last_extension = excluded.last_extension,"
    " client_key = excluded.client_key, classes = excluded.classes, fqdn = excluded.fqdn,"
    " fqdn_fwd = excluded.fqdn_fwd, fqdn_rev = excluded.fqdn_rev, dns_state = excluded.dns_state,"
    " relay_agent_info = excluded.relay_agent_info"
    // An equal token is the same grant (an extension, release or expiry by its holder); from
    // another holder it is a stale writer's competing first grant and is refused, and so is
    // one older than the row (a paused server's write of a period since extended). Never over
    // another client's bound lease still running when the record starts (docs/lease-store.md).
    " WHERE (excluded.fencing_token > leases.fencing_token"
    " OR (excluded.fencing_token = leases.fencing_token AND excluded.client_key = leases.client_key"
    " AND excluded.granted_at_ms >= leases.granted_at_ms))"
    " AND (leases.state <> 'bound' OR excluded.client_key = leases.client_key"
    " OR leases.granted_at_ms + leases.lease_time_ms <= excluded.granted_at_ms)";

inline constexpr std::string_view kSelectAllSql =
    "SELECT address, state, hwtype, hwaddr, client_id, hostname, subnet_id, granted_at_ms,"
    " lease_time_ms, renew_time_ms, rebind_time_ms, last_extension, fencing_token, client_key,"
    " classes, fqdn, fqdn_fwd, fqdn_rev, dns_state, relay_agent_info FROM leases";

}  // namespace landlord::store::detail
