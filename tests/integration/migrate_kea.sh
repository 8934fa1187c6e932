#!/usr/bin/env bash
# Switching from Kea (issue #11): the real kea-dhcp4 (memfile, on loopback) leases addresses to
# 20 relayed clients (crash_client, which writes down every ACK); Kea is stopped; `landlord
# import --from kea-csv` writes its lease file into a fresh landlord store; landlord started on
# that store ACKs every one of those clients' INIT-REBOOT REQUESTs with the address Kea gave it,
# and a new client gets none of them. `landlord export --format kea-csv` gives back Kea's
# (address, hwaddr, client_id) rows. Exit 77 (skip) without Kea.
# Usage: migrate_kea.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: migrate_kea.sh landlord crash_client}
CLIENT=${2:?usage: migrate_kea.sh landlord crash_client}
KEA=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
[[ -x $KEA ]] || { echo "SKIP: no kea-dhcp4 at $KEA"; exit 77; }
TEST_NAME=migrate_kea
source "$(dirname "$0")/crash_lib.sh"
PORT=$(free_udp_port) || fail "no free UDP port"
KEA_PID=""
test_cleanup() {
  if [[ -n $KEA_PID ]]; then kill "$KEA_PID" 2>/dev/null || true; wait "$KEA_PID" 2>/dev/null || true; fi
}

cat > "$WORK/kea.json" <<JSON
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["lo/127.0.0.1"], "dhcp-socket-type": "udp" },
  "lease-database": { "type": "memfile", "persist": true, "name": "$WORK/kea-leases4.csv", "lfc-interval": 0 },
  "valid-lifetime": 600, "calculate-tee-times": true,
  "subnet4": [ { "id": 1, "subnet": "198.18.0.0/16",
                 "pools": [ { "pool": "198.18.1.10 - 198.18.1.200" } ],
                 "relay": { "ip-addresses": ["127.0.0.1"] } } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                 "output_options": [ { "output": "$WORK/kea.log" } ] } ]
} }
JSON
KEA_PIDFILE_DIR=$WORK KEA_LOCKFILE_DIR=$WORK "$KEA" -c "$WORK/kea.json" -p "$PORT" >"$WORK/kea.out" 2>&1 &
KEA_PID=$!
for _ in $(seq 100); do
  grep -q DHCP4_STARTED "$WORK/kea.log" 2>/dev/null && break
  kill -0 "$KEA_PID" 2>/dev/null || fail "kea-dhcp4 did not start: $(cat "$WORK/kea.out")"
  sleep 0.1
done
timeout 60 "$CLIENT" dora --server "127.0.0.1:$PORT" --ledger "$WORK/kea.ledger" --clients 20 \
  --seed 7 --duration-s 30 || fail "Kea did not lease to 20 clients"
[[ $(grep -c '^ack ' "$WORK/kea.ledger") -eq 20 ]] || fail "the ledger has not 20 ACKs"
kill -TERM "$KEA_PID"; wait "$KEA_PID" || true; KEA_PID=""
echo "kea-dhcp4 leased 20 addresses; its lease file has $(($(wc -l <"$WORK/kea-leases4.csv") - 1)) rows"

# landlord's config: the same subnet, a pool covering Kea's, a 60 s lease time of its own.
write_config "$WORK/landlord.yaml" "$PORT" "$WORK/leases.db" 60s "198.18.1.10-198.18.1.200"
"$LANDLORD" import --from kea-csv "$WORK/kea-leases4.csv" --config "$WORK/landlord.yaml" --dry-run \
  >"$WORK/dry-run.out" || fail "dry run failed: $(cat "$WORK/dry-run.out")"
grep -q '^leases to import: 20$' "$WORK/dry-run.out" || fail "dry run: $(cat "$WORK/dry-run.out")"
[[ ! -e "$WORK/leases.db" ]] || [[ $(sqlite3 "$WORK/leases.db" 'select count(*) from leases') -eq 0 ]] \
  || fail "the dry run wrote leases"
"$LANDLORD" import --from kea-csv "$WORK/kea-leases4.csv" --config "$WORK/landlord.yaml" \
  >"$WORK/import.out" || fail "import failed: $(cat "$WORK/import.out")"
cat "$WORK/import.out"
grep -q "^imported 20 leases into $WORK/leases.db$" "$WORK/import.out" || fail "not 20 imported"

start_server "$WORK/landlord.yaml"
# Every client asks for its Kea address (INIT-REBOOT) and gets it.
"$CLIENT" check --server "127.0.0.1:$PORT" --ledger "$WORK/kea.ledger" --expect ack \
  || fail "a client did not keep its Kea address on landlord"
# A new client gets none of them.
"$CLIENT" dora --server "127.0.0.1:$PORT" --ledger "$WORK/new.ledger" --clients 1 --first 100 \
  --seed 7 --duration-s 20 || fail "a new client got no lease"
new_address=$(awk '/^ack / {print $6}' "$WORK/new.ledger")
! awk '/^ack / {print $6}' "$WORK/kea.ledger" | grep -qxF "$new_address" \
  || fail "a new client got $new_address, an imported client's address"

"$LANDLORD" export --format kea-csv --config "$WORK/landlord.yaml" -o "$WORK/export.csv" \
  || fail "export failed"
rows() { awk -F, 'NR > 1 && $10 == 0 {print $1","$2","$3}' "$1" | sort -u; }
# Kea's file is a journal: its rows' last state per address (all 20 are live here).
diff <(rows "$WORK/kea-leases4.csv") <(rows "$WORK/export.csv" | grep -v "^$new_address,") \
  || fail "the export differs from Kea's leases"
stop_server || fail "landlord did not stop cleanly"

# Run as root with server.user, the import writes the store as that user (the daemon's).
if [[ $(id -u) -eq 0 ]]; then
  chmod 711 "$WORK" && mkdir "$WORK/as-user" && chown nobody "$WORK/as-user"
  write_config "$WORK/as-user.yaml" "$PORT" "$WORK/as-user/leases.db" 60s "198.18.1.10-198.18.1.200"
  sed -i 's/^server:$/server:\n  user: nobody/' "$WORK/as-user.yaml"
  "$LANDLORD" import --from kea-csv "$WORK/kea-leases4.csv" --config "$WORK/as-user.yaml" \
    >"$WORK/as-user.out" || fail "import as server.user failed: $(cat "$WORK/as-user.out")"
  [[ "$(stat -c %U "$WORK/as-user/leases.db")" == nobody ]] \
    || fail "the store was written as $(stat -c %U "$WORK/as-user/leases.db"), not server.user"
fi
echo "PASS: 20 clients leased by kea-dhcp4 kept their addresses on landlord after the import"
