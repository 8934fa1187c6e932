#!/usr/bin/env bash
# lease4-wipe of a subnet with 100,000 leases in a SQLite store, against the running daemon
# (issue #17). The wipe revokes 1,024 leases per turn of the event loop and commits each piece;
# the store's commit queue takes 16,384 records and refuses beyond. Before the wipe kept at most
# four pieces at the store, it made pieces faster than SQLite committed them: the queue filled,
# a piece was refused and the wipe stopped after 20,480-51,200 revocations with "the lease store
# is not accepting writes" while the store was healthy, and nothing in the log said why.
# Checks: the wipe answers result 0 with deleted = 100,000; the store file then holds every
# lease of the subnet released, none bound; the daemon's log has no commit-queue or store
# error; the daemon stops cleanly. The leases are data only (rows written with sqlite3 into the
# schema landlord created); landlord runs in a network namespace with nothing but loopback and
# is asked only on its control socket. Root (namespace); about 10 s.
# Usage: control_wipe_large.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
landlord=$1
leases=${WIPE_LEASES:-100000}
source "$(dirname "$0")/daemon_checks.sh"
if ((EUID != 0)); then echo "SKIP: needs root (network namespace)"; exit 77; fi
for tool in curl jq sqlite3 ip; do
  command -v $tool >/dev/null || { echo "SKIP: needs $tool"; exit 77; }
done

ns="llwipe$$"
work=$(mktemp -d /tmp/control_wipe_large.XXXXXX)
pid=""
cleanup() {
  if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" addr add 198.18.0.1/32 dev lo
cat >"$work/landlord.yaml" <<YAML
server:
  interfaces: []
  listen: 198.18.0.1:67
  server-id: 198.18.0.1
store:
  type: sqlite
  path: $work/leases.db
lease:
  time: 3600s
control:
  socket: $work/control.sock
subnets:
  - subnet: 10.0.0.0/12
    pools: [10.0.0.1-10.15.255.254]
  - subnet: 198.18.0.0/24
    pools: [198.18.0.10-198.18.0.250]
log:
  level: warn
YAML

ask() { curl -sS --max-time 120 --unix-socket "$work/control.sock" -d "$1" http://landlord/; }
start() {
  rm -f "$work/control.sock"
  ip netns exec "$ns" "$landlord" --allow-root -c "$work/landlord.yaml" >>"$work/landlord.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    [[ -S $work/control.sock ]] && ask '{"command":"status-get"}' >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/landlord.log"; echo "FAIL: landlord did not start"; exit 1
}

start  # creates the schema
daemon_stop_and_check "$pid" "$work/landlord.log" landlord || exit 1
pid=""
# Bound leases 10.x.y.z for MAC 02:10:00:x:y:z, as landlord writes them (bench/million.sh).
now_ms=$(($(date +%s%N) / 1000000))
sqlite3 "$work/leases.db" >/dev/null <<SQL
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $leases),
rows AS (SELECT printf('10.%d.%d.%d', i >> 16, (i >> 8) & 255, i & 255) AS address,
                printf('02:10:00:%02x:%02x:%02x', i >> 16, (i >> 8) & 255, i & 255) AS hwaddr
         FROM n)
INSERT INTO leases (address, state, hwaddr, client_id, hostname, fencing_token, subnet_id, hwtype,
                    granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms, last_extension,
                    client_key)
SELECT address, 'bound', hwaddr, NULL, NULL, 1, 1, 1, $now_ms, 86400000, 43200000, 75600000,
       'none', 'hw1:' || hwaddr
FROM rows ORDER BY address;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
start
records=$(ask '{"command":"status-get"}' | jq '.arguments["lease-records"]')
if [[ $records != "$leases" ]]; then echo "FAIL: $records lease records loaded, want $leases"; exit 1; fi

started=$(date +%s%N)
answer=$(ask '{"command":"lease4-wipe","arguments":{"subnet-id":1,"confirm":true}}')
took_ms=$((($(date +%s%N) - started) / 1000000))
echo "lease4-wipe of $leases leases: $took_ms ms: $answer"
fail=0
if [[ $(jq '.result' <<<"$answer") != 0 || $(jq '.arguments.deleted' <<<"$answer") != "$leases" ]]; then
  echo "FAIL: lease4-wipe did not revoke all $leases leases"
  fail=1
fi
# Every piece was answered durable before the reply: the file holds them now.
held=$(sqlite3 "$work/leases.db" "SELECT state || ' ' || count(*) FROM leases WHERE subnet_id = 1 GROUP BY state")
if [[ $held != "released $leases" ]]; then
  echo "FAIL: the store holds in subnet 1: $held (want released $leases)"
  fail=1
fi
if grep -E 'commit queue full|store commit failed|not accepting writes' "$work/landlord.log"; then
  echo "FAIL: the daemon's log reports a refused or failed commit"
  fail=1
fi
daemon_stop_and_check "$pid" "$work/landlord.log" landlord || fail=1
pid=""
if ((fail)); then
  echo "---- landlord.log (last 20 lines)"; tail -20 "$work/landlord.log"
  exit 1
fi
echo "PASS: lease4-wipe of $leases leases, all durable, log clean"
