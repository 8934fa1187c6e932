#!/usr/bin/env bash
# landlord-sim as a relay agent (UDP on loopback) against ISC kea-dhcp4 listening on 127.0.0.1
# on a private port: giaddr 127.0.0.1 selects the subnet, option 82 sub-option 19 (RFC 8357)
# brings the replies back to our port. No root needed. Exit 77 (skip) without Kea.
# Usage: sim_kea_relay.sh path/to/landlord-sim
set -euo pipefail
source "$(dirname "$0")/daemon_checks.sh"

SIM=${1:?usage: sim_kea_relay.sh path/to/landlord-sim}
KEA=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
[[ -x $KEA ]] || { echo "SKIP: no kea-dhcp4 at $KEA"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

# Two free ports in a row: a server bound with SO_REUSEADDR would share a busy one silently.
SERVER_PORT=$((20000 + $$ % 20000))
while ss -Huln "sport = :$SERVER_PORT or sport = :$((SERVER_PORT + 1))" | grep -q .; do
  SERVER_PORT=$((SERVER_PORT + 2))
done
RELAY_PORT=$((SERVER_PORT + 1))
WORK=$(mktemp -d /tmp/sim_kea_relay.XXXXXX)
KEA_PID=""
cleanup() {
  if [[ -n $KEA_PID ]]; then kill "$KEA_PID" 2>/dev/null || true; wait "$KEA_PID" 2>/dev/null || true; fi
  if [[ ${KEEP_WORK:-0} != 1 ]]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT INT TERM

cat > "$WORK/kea.json" <<JSON
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["lo/127.0.0.1"], "dhcp-socket-type": "udp" },
  "lease-database": { "type": "memfile", "persist": false, "lfc-interval": 0 },
  "valid-lifetime": 16, "calculate-tee-times": true,
  "subnet4": [ { "id": 1, "subnet": "198.18.0.0/24",
                 "pools": [ { "pool": "198.18.0.10 - 198.18.0.250" } ],
                 "relay": { "ip-addresses": ["127.0.0.1"] } } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                 "output_options": [ { "output": "$WORK/kea.log" } ] } ]
} }
JSON
KEA_PIDFILE_DIR=$WORK KEA_LOCKFILE_DIR=$WORK "$KEA" -c "$WORK/kea.json" -p "$SERVER_PORT" >"$WORK/kea.out" 2>&1 &
KEA_PID=$!
for _ in $(seq 50); do
  grep -q DHCP4_STARTED "$WORK/kea.log" 2>/dev/null && break
  kill -0 "$KEA_PID" 2>/dev/null || { cat "$WORK/kea.out"; echo "FAIL: kea-dhcp4 did not start"; exit 1; }
  sleep 0.1
done

status=0
timeout 60 "$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" \
  --clients 100 --rate 50 --duration 20s --seed 5 --retransmit-base 1s --renew-min 2s \
  --release 0.1 --decline 0.05 --restart-clients 0.1 --block-unicast 9s+6s \
  --report "$WORK/report.json" || status=$?
[[ -s $WORK/report.json ]] || { echo "FAIL: no report (landlord-sim exit $status)"; exit 1; }
jq -c '{transport, transport_note, clients, leases_acquired, renewals, rebinds, violation_count}' "$WORK/report.json"

fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
[[ $status -eq 0 ]] || fail "landlord-sim exited $status"
check() { jq -e "$1" "$WORK/report.json" >/dev/null || fail "$2"; }
check '.transport == "relay"' "transport is not relay"
check '.transport_note | contains("renew and rebind both relayed")' "the report must say renewals were relayed"
check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
check '.leases_acquired >= 100' "not every client got a lease"
check '.renewals.count > 0 and .renewals.lease_fraction_p50 >= 0.45 and .renewals.lease_fraction_p50 <= 0.55' "renewals not near 0.5"
check '.rebinds.count > 0' "no rebinds while renewals were blocked"
pid=$KEA_PID KEA_PID=""
daemon_stop_and_check "$pid" "$WORK/kea.out" kea-dhcp4 || { KEEP_WORK=1; exit 1; }
echo "PASS: landlord-sim relay mode against kea-dhcp4: no violations"
