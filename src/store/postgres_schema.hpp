#pragma once
// The PostgreSQL schema, versioned: landlord_schema holds the version, and each step of
// kMigrations takes a database from version i to i + 1. Opening a store applies the missing
// steps under an advisory lock, so two servers starting together migrate once.
#include <libpq-fe.h>

#include <string_view>

#include "landlord/base/expected.hpp"
#include "landlord/store/lease_store.hpp"
#include "postgres_support.hpp"

namespace landlord::store::detail {

Expected<void, StoreError> ensure_postgres_schema(PGconn* connection, std::string_view name,
                                                  Deadline deadline);

// The conditional write every record is. The row changes only when the database itself finds
// the writer entitled to it (docs/lease-store.md, "Arbitration"):
//  - a newer token, or the same token from the same client and not older than the row (an
//    extension, release or expiry of the same grant; an older one is a paused server's);
//  - a bound record with the same token only from the server whose token it is (`writer`: the
//    server-id of the last bound or token-raising write; a row or a server without one is
//    anybody's): so two servers taking one lease over at once (both write the next token)
//    have exactly one winner, and a server extending another's lease takes a new token. An
//    expiry or release with the same token leaves the token its server's;
//  - and never over another client's bound lease that is still running when this record starts.
// `changed_xid` marks the row for the other servers' change feeds.
inline constexpr const char* kPostgresUpsertSql =
    "INSERT INTO leases AS stored (address, state, hwaddr, client_id, hostname, fencing_token,"
    " subnet_id, hwtype, granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms,"
    " last_extension, client_key, classes, writer, fqdn, fqdn_fwd, fqdn_rev, dns_state,"
    " relay_agent_info)"
    " VALUES ($1::inet, $2, $3, $4, $5, $6::bigint, $7::bigint, $8::smallint, $9::bigint,"
    " $10::bigint, $11::bigint, $12::bigint, $13, $14, $15, $16::inet, $17, $18::boolean,"
    " $19::boolean, $20, $21)"
    " ON CONFLICT (address) DO UPDATE SET state = excluded.state, hwaddr = excluded.hwaddr,"
    " client_id = excluded.client_id, hostname = excluded.hostname,"
    " fencing_token = excluded.fencing_token, subnet_id = excluded.subnet_id,"
    " hwtype = excluded.hwtype, granted_at_ms = excluded.granted_at_ms,"
    " lease_time_ms = excluded.lease_time_ms, renew_time_ms = excluded.renew_time_ms,"
    " rebind_time_ms = excluded.rebind_time_ms, last_extension = excluded.last_extension,"
    " client_key = excluded.client_key, classes = excluded.classes, fqdn = excluded.fqdn,"
    " fqdn_fwd = excluded.fqdn_fwd, fqdn_rev = excluded.fqdn_rev, dns_state = excluded.dns_state,"
    " relay_agent_info = excluded.relay_agent_info,"
    " writer = CASE WHEN excluded.state = 'bound' OR excluded.fencing_token > stored.fencing_token"
    "   THEN excluded.writer ELSE stored.writer END,"
    " changed_xid = pg_current_xact_id()"
    " WHERE (excluded.fencing_token > stored.fencing_token"
    "   OR (excluded.fencing_token = stored.fencing_token"
    "       AND excluded.client_key = stored.client_key"
    "       AND excluded.granted_at_ms >= stored.granted_at_ms"
    "       AND (excluded.state <> 'bound' OR stored.writer IS NULL OR excluded.writer IS NULL"
    "         OR excluded.writer = stored.writer)))"
    " AND (stored.state <> 'bound' OR excluded.client_key = stored.client_key"
    "   OR stored.granted_at_ms + stored.lease_time_ms <= excluded.granted_at_ms)";

// The columns every read returns, in decode order (record_text.hpp decode_record).
#define LANDLORD_POSTGRES_COLUMNS                                                            \
  "host(address), state, hwtype, hwaddr, client_id, hostname, subnet_id, granted_at_ms,"   \
  " lease_time_ms, renew_time_ms, rebind_time_ms, last_extension, fencing_token, client_key,"  \
  " classes, fqdn, fqdn_fwd::int, fqdn_rev::int, dns_state, relay_agent_info, host(writer)"

inline constexpr const char* kPostgresSelectAllSql =
    "SELECT " LANDLORD_POSTGRES_COLUMNS " FROM leases ORDER BY address";

// One statement, so one snapshot: the rows written by transactions `$1` did not see, and the
// snapshot they were read under (the next cursor). With no change, one row of NULLs but the
// snapshot.
inline constexpr const char* kPostgresChangesSql =
    "WITH now AS (SELECT pg_current_snapshot() AS snapshot)"
    " SELECT now.snapshot::text, " LANDLORD_POSTGRES_COLUMNS
    " FROM now LEFT JOIN leases ON leases.changed_xid >= pg_snapshot_xmin($1::pg_snapshot)"
    " AND NOT pg_visible_in_snapshot(leases.changed_xid, $1::pg_snapshot)";

inline constexpr const char* kPostgresNowSql = "SELECT pg_current_snapshot()::text";

// The database server's clock now (not the transaction's start), in Unix milliseconds.
inline constexpr const char* kPostgresClockSql =
    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint";

}  // namespace landlord::store::detail
