#!/usr/bin/env bash
# Switching back to Kea (issue #11): `landlord export --format kea-csv` writes a lease file the
# real kea-dhcp4 loads. A landlord store gets leases in several states through the control API
# (four bound ones: with and without client-id, a hostname with a comma in it, different
# lifetimes; one released; one expired); the export is given to kea-dhcp4 as its memfile, and
# Kea's own `lease4-get-all` (lease_cmds hook, over its control socket, with socat) must list
# exactly the four bound leases with the same address, hwaddr, client-id, hostname, state 0 and
# expiry (cltt + valid-lft) within 1 s of landlord's. Kea opens no DHCP socket (an empty
# interface list); landlord serves on 127.0.0.1 only. Exit 77 (skip) without Kea or socat.
# Usage: export_kea.sh path/to/landlord path/to/landlordctl
set -euo pipefail
LANDLORD=${1:?usage: export_kea.sh landlord landlordctl}
CTL=${2:?usage: export_kea.sh landlord landlordctl}
KEA=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
HOOKS=${KEA_HOOKS_DIR:-/usr/lib/x86_64-linux-gnu/kea/hooks}
[[ -x $KEA ]] || { echo "SKIP: no kea-dhcp4 at $KEA"; exit 77; }
[[ -e $HOOKS/libdhcp_lease_cmds.so ]] || { echo "SKIP: no lease_cmds hook in $HOOKS"; exit 77; }
command -v socat >/dev/null || { echo "SKIP: no socat (tools/install-deps)"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
TEST_NAME=export_kea
source "$(dirname "$0")/crash_lib.sh"
PORT=$(free_udp_port) || fail "no free UDP port"
KEA_PID=""
test_cleanup() {
  if [[ -n $KEA_PID ]]; then kill "$KEA_PID" 2>/dev/null || true; wait "$KEA_PID" 2>/dev/null || true; fi
}

write_config "$WORK/landlord.yaml" "$PORT" "$WORK/leases.db" 10m "198.18.1.10-198.18.1.200"
printf 'control:\n  socket: %s/control.sock\n' "$WORK" >>"$WORK/landlord.yaml"
start_server "$WORK/landlord.yaml"
ctl() { "$CTL" --socket "$WORK/control.sock" "$@"; }
ctl add 198.18.1.10 02:00:00:00:01:10 --client-id 01:02:00:00:00:01:10 --hostname alpha >/dev/null
ctl add 198.18.1.11 02:00:00:00:01:11 --hostname 'beta,with-comma' --lifetime 300 >/dev/null
ctl add 198.18.1.12 02:00:00:00:01:12 --client-id ff:00:00:00:01:00:01:00:01 --lifetime 7200 >/dev/null
ctl add 198.18.1.13 02:00:00:00:01:13 >/dev/null
ctl add 198.18.1.14 02:00:00:00:01:14 --hostname released >/dev/null
ctl release 198.18.1.14 >/dev/null
ctl add 198.18.1.15 02:00:00:00:01:15 --hostname expiring --lifetime 4 >/dev/null
sleep 5
ctl --json leases >"$WORK/landlord-leases.json"
states=$(jq -r '[.arguments.leases[] | ."lease-state"] | sort | unique | join(" ")' "$WORK/landlord-leases.json")
echo "landlord's store holds leases in the states: $states"
[[ $states == "bound expired released" ]] || fail "the store is not in the states the test needs"
stop_server || fail "landlord did not stop cleanly"

"$LANDLORD" export --format kea-csv --config "$WORK/landlord.yaml" -o "$WORK/kea-leases4.csv" \
  || fail "export failed"
echo "the export:"; cat "$WORK/kea-leases4.csv"

cat > "$WORK/kea.json" <<JSON
{ "Dhcp4": {
  "interfaces-config": { "interfaces": [] },
  "control-socket": { "socket-type": "unix", "socket-name": "$WORK/kea.sock" },
  "hooks-libraries": [ { "library": "$HOOKS/libdhcp_lease_cmds.so" } ],
  "lease-database": { "type": "memfile", "persist": true, "name": "$WORK/kea-leases4.csv", "lfc-interval": 0 },
  "valid-lifetime": 600,
  "subnet4": [ { "id": 1, "subnet": "198.18.0.0/16",
                 "pools": [ { "pool": "198.18.1.10 - 198.18.1.200" } ] } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                 "output_options": [ { "output": "$WORK/kea.log" } ] } ]
} }
JSON
KEA_PIDFILE_DIR=$WORK KEA_LOCKFILE_DIR=$WORK "$KEA" -c "$WORK/kea.json" >"$WORK/kea.out" 2>&1 &
KEA_PID=$!
for _ in $(seq 100); do
  grep -q DHCP4_STARTED "$WORK/kea.log" 2>/dev/null && break
  kill -0 "$KEA_PID" 2>/dev/null || fail "kea-dhcp4 did not start: $(cat "$WORK/kea.out" "$WORK/kea.log")"
  sleep 0.1
done
! grep -E "DHCPSRV_MEMFILE_LEASE_LOAD_ROW_ERROR|DHCPSRV_MEMFILE_READ_HEADER_ERROR" "$WORK/kea.log" \
  || fail "Kea could not read a row of the export"
echo '{ "command": "lease4-get-all" }' | socat -t 5 - UNIX-CONNECT:"$WORK/kea.sock" >"$WORK/kea-leases.json" \
  || fail "no answer on Kea's control socket"
jq -e '.result == 0' "$WORK/kea-leases.json" >/dev/null || fail "lease4-get-all: $(cat "$WORK/kea-leases.json")"

# One line per lease: address hwaddr client-id hostname state expiry (unix seconds).
kea_rows() {
  jq -r '.arguments.leases[] | [."ip-address", ."hw-address", (."client-id" // "-"),
         (if .hostname == "" then "-" else .hostname end), .state, (.cltt + ."valid-lft")] | @tsv' \
    "$WORK/kea-leases.json" | sort
}
landlord_rows() {  # the bound, unexpired leases as landlord listed them
  jq -r --argjson now "$(date +%s)" '.arguments.leases[]
         | select(."lease-state" == "bound") | select(.expire > $now)
         | [."ip-address", ."hw-address", (."client-id" // "-"),
            (if .hostname == "" then "-" else .hostname end), 0, .expire] | @tsv' \
    "$WORK/landlord-leases.json" | sort
}
echo "Kea holds:"; kea_rows
echo "landlord had (bound, unexpired):"; landlord_rows
[[ $(kea_rows | wc -l) -eq 4 ]] || fail "Kea holds $(kea_rows | wc -l) leases, not the 4 bound ones"
diff <(kea_rows | cut -f1-5) <(landlord_rows | cut -f1-5) || fail "Kea's leases differ from landlord's"
while read -r address kea_expiry landlord_expiry; do
  difference=$((kea_expiry - landlord_expiry))
  ((difference >= -1 && difference <= 1)) \
    || fail "$address expires at $kea_expiry in Kea, $landlord_expiry in landlord"
done < <(paste <(kea_rows | cut -f1,6) <(landlord_rows | cut -f6))
! kea_rows | grep -qE "^198\.18\.1\.1[45]\b" || fail "Kea holds the released or the expired lease"
pid=$KEA_PID KEA_PID=""
daemon_stop_and_check "$pid" "$WORK/kea.out" kea-dhcp4 || fail "kea-dhcp4 did not stop cleanly"
echo "PASS: kea-dhcp4 loaded landlord's export and holds the same 4 bound leases"
