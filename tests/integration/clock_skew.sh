#!/usr/bin/env bash
# Clock agreement on a shared store (issue #14): landlord on a PostgreSQL cluster whose clock runs
# 30 s ahead of the host's (libfaketime preloaded into the cluster only:
# tests/support/postgres_cluster.sh, LANDLORD_PG_CLOCK_OFFSET). With the default
# store.max-clock-skew (1 s) landlord must log the disagreement, show it in /metrics
# (landlord_store_clock_offset_seconds near -30, landlord_store_clock_agrees 0), answer no
# client at all, refuse leases-reclaim, lease4-del, lease4-add and lease4-update saying why, and not reclaim a lease that
# ended while it was down, not even before its first reading of the cluster's clock (it used to,
# at once at start), nor tell a fake systemd READY=1 (STATUS= says why); restarted with
# max-clock-skew: 1m on the same cluster, it sends READY=1 after its first reading, reclaims that
# lease and serves every client.
# No namespaces: landlord on 127.0.0.1, landlord-sim as a relay agent (198.18.0.0/16 clients).
# Usage: clock_skew.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/veth_pair.sh"
LANDLORD=${1:?usage: clock_skew.sh landlord landlord-sim}
SIM=${2:?usage: clock_skew.sh landlord landlord-sim}
CLUSTER="$here/../support/postgres_cluster.sh"
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: no curl (tools/install-deps)"; exit 77; }
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || { echo "SKIP: no PostgreSQL 15"; exit 77; }
[[ -f /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]] ||
  { echo "SKIP: no libfaketime (tools/install-deps: faketime)"; exit 77; }

veth_pair_prepare clock_skew llck  # WORK, the cleanup trap; no namespace is made
chmod 755 "$WORK"
DATABASE="/tmp/llck-$$"
cleanup() {
  veth_pair_cleanup
  [[ -z ${NOTIFY_PID:-} ]] || kill "$NOTIFY_PID" 2>/dev/null || true
  "$CLUSTER" stop "$DATABASE" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; tail -n 30 "$WORK/landlord.log"; KEEP_WORK=1; exit 1; }

# No fsync (nothing here outlives a machine): with every sync taking 25 ms, initdb's syncs made
# the cluster's start 35 s and the run 65 s of its 120 s TIMEOUT (17 s and 50 s without them).
LANDLORD_PG_CLOCK_OFFSET=+30s LANDLORD_PG_FSYNC=off "$CLUSTER" start "$DATABASE" || fail "cannot start the cluster"
ahead=$(( $(psql -X -At "host=$DATABASE user=landlord dbname=landlord" \
  -c "select extract(epoch from clock_timestamp())::bigint") - $(date +%s) ))
echo "the cluster's clock is ${ahead} s ahead of the host's"
((ahead >= 28 && ahead <= 32)) || fail "libfaketime did not move the cluster's clock (${ahead} s)"

SERVER_PORT=$((20000 + $$ % 20000))
while ss -Huln "sport = :$SERVER_PORT or sport = :$((SERVER_PORT + 1))" | grep -q .; do
  SERVER_PORT=$((SERVER_PORT + 2))
done
RELAY_PORT=$((SERVER_PORT + 1))
# start_landlord SKEW_LINE: landlord on the cluster, its store section ending with SKEW_LINE.
start_landlord() {
  cat >"$WORK/landlord.yaml" <<YAML
server:
  listen: 127.0.0.1:$SERVER_PORT
store:
  type: postgresql
  url: "host=$DATABASE user=landlord dbname=landlord"
  $1
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.0-198.18.1.250]
    relays: [127.0.0.1]
control:
  socket: $WORK/control.sock
log:
  level: info
YAML
  : >"$WORK/notify.log"
  NOTIFY_SOCKET="$WORK/notify.sock" "$LANDLORD" --allow-root -c "$WORK/landlord.yaml" >"$WORK/landlord.log" 2>&1 &
  SERVER_PID=$!
  landlord_ready "" "$SERVER_PORT" 127.0.0.1
  for _ in $(seq 50); do [[ -S $WORK/control.sock ]] && metrics >/dev/null 2>&1 && break; sleep 0.1; done
}
# A fake systemd: what landlord sends to NOTIFY_SOCKET, one message a line (newlines as " | ").
/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    message = s.recv(4096).decode().replace("\n", " | ")
    with open(sys.argv[2], "a") as log:
        log.write(message + "\n")
' "$WORK/notify.sock" "$WORK/notify.log" &
NOTIFY_PID=$!
for _ in $(seq 50); do [[ -S $WORK/notify.sock ]] && break; sleep 0.1; done
metrics() { curl -sS --max-time 5 --unix-socket "$WORK/control.sock" http://landlord/metrics; }
ask() { curl -sS --max-time 5 --unix-socket "$WORK/control.sock" -d "$1" http://landlord/; }
metric() { metrics | awk -v name="$1" '$1 == name { print $2 }'; }
# within SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds or SECONDS pass. The
# first clock reading comes with the change feed's first poll, which a slow machine (ASan on 2
# cores) may take well over a second to make after the start.
within() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.1; done
}
# run_clients SEED: 20 clients for 8 s; prints how many got a lease.
run_clients() {
  timeout 30 "$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" \
    --clients 20 --rate 20 --duration 8s --seed "$1" --retransmit-base 1s \
    --report "$WORK/report-$1.json" >"$WORK/sim-$1.log" 2>&1 || true
  jq -r '.leases_acquired' "$WORK/report-$1.json"
}

lease_state() {  # Kea's state of 198.18.1.200: 0 bound, 2 expired and reclaimed
  ask '{"command": "lease4-get", "arguments": {"ip-address": "198.18.1.200"}}' | jq -r '.arguments.state'
}

# 0. A 4 s lease added within the limit, left to end while landlord is down. lease4-add waits
# for the change feed's first clock reading like DHCP answers do.
start_landlord "max-clock-skew: 1m"
for _ in $(seq 50); do [[ $(metric landlord_store_clock_agrees) == 1 ]] && break; sleep 0.1; done
added=$(ask '{"command": "lease4-add", "arguments": {"ip-address": "198.18.1.200", "hw-address": "02:00:00:00:00:aa", "valid-lft": 4}}')
[[ $(jq .result <<<"$added") == 0 ]] || fail "lease4-add: ${added}"
landlord_stop_and_check
sleep 5

# 1. The default limit (1 s): the 30 s disagreement stops landlord from answering.
start_landlord ""
# The first reading: a non-zero offset (0 without one), its log line and systemd STATUS=.
first_reading_disagrees() {
  local offset
  offset=$(metric landlord_store_clock_offset_seconds)
  [[ -n $offset && $offset != 0 ]] &&
    grep -q "more than store.max-clock-skew 1s: not answering requests" "$WORK/landlord.log" &&
    grep -q "^STATUS=not ready: this server's clock is" "$WORK/notify.log"
}
within 15 first_reading_disagrees || echo "no first clock reading within 15 s"
offset=$(metric landlord_store_clock_offset_seconds)
agrees=$(metric landlord_store_clock_agrees)
echo "max-clock-skew 1s: offset ${offset} s, agrees ${agrees}"
awk -v o="$offset" 'BEGIN { exit !(o < -28 && o > -32) }' || fail "offset ${offset} is not about -30 s"
[[ $agrees == 0 ]] || fail "landlord_store_clock_agrees is ${agrees} with a 30 s skew"
grep -q "more than store.max-clock-skew 1s: not answering requests" "$WORK/landlord.log" ||
  fail "no log line for the skew"
# systemd is not told READY=1 (TimeoutStartSec would fail the unit); STATUS= says why.
grep -q "READY=1" "$WORK/notify.log" && fail "READY=1 with a 30 s skew: $(cat "$WORK/notify.log")"
grep -Eq "^STATUS=not ready: this server's clock is [0-9]+ ms behind the shared store's, more than store.max-clock-skew 1s$" \
  "$WORK/notify.log" || fail "STATUS= does not say why it is not ready: $(cat "$WORK/notify.log")"
leased=$(run_clients 31)
dropped=$(metric landlord_dropped_clock_skew_total)
echo "clients leased: ${leased}; requests dropped for the skew: ${dropped}"
[[ $leased == 0 ]] || fail "${leased} clients were served by a server whose clock is 30 s off"
((dropped > 0)) || fail "landlord_dropped_clock_skew_total is ${dropped}"
# leases-reclaim keeps the expiry timer's rule: no lease ended by a clock 30 s off.
reclaim=$(ask '{"command": "leases-reclaim"}')
echo "leases-reclaim: ${reclaim}"
[[ $(jq .result <<<"$reclaim") == 1 ]] || fail "leases-reclaim was not refused: ${reclaim}"
jq -r .text <<<"$reclaim" | grep -Eq "^this server's clock is [0-9]+ ms behind the shared store's, more than store.max-clock-skew 1s" ||
  fail "leases-reclaim's refusal does not say why: ${reclaim}"
# The lease that ended while landlord was down stays bound: no expiry by a clock 30 s off, not
# even in the moment between the start and the first reading.
[[ $(lease_state) == 0 ]] || fail "the ended lease was reclaimed by a server whose clock is 30 s off (state $(lease_state))"
grep -q "expire 198.18.1.200" "$WORK/landlord.log" && fail "landlord logged the lease's expiry"
revoke=$(ask '{"command": "lease4-del", "arguments": {"ip-address": "198.18.1.200"}}')
[[ $(jq .result <<<"$revoke") == 1 ]] && jq -r .text <<<"$revoke" | grep -q "more than store.max-clock-skew 1s" ||
  fail "lease4-del was not refused for the clock: ${revoke}"
# Nor is a lease end written by it: lease4-add and lease4-update are refused, nothing changed.
for command in '"lease4-add", "arguments": {"ip-address": "198.18.1.201", "hw-address": "02:00:00:00:00:ab"}' \
  '"lease4-update", "arguments": {"ip-address": "198.18.1.200", "hw-address": "02:00:00:00:00:aa", "valid-lft": 600}'; do
  refused=$(ask "{\"command\": ${command}}")
  [[ $(jq .result <<<"$refused") == 1 ]] && jq -r .text <<<"$refused" | grep -q "more than store.max-clock-skew 1s.*; nothing was changed" ||
    fail "${command%%,*} was not refused for the clock: ${refused}"
done
[[ $(ask '{"command": "lease4-get", "arguments": {"ip-address": "198.18.1.201"}}' | jq .result) == 3 ]] ||
  fail "lease4-add wrote a lease by a clock 30 s off"
[[ $(lease_state) == 0 ]] || fail "lease4-update changed the lease (state $(lease_state))"
landlord_stop_and_check

# 2. The same cluster, a limit above the skew: every client is served.
start_landlord "max-clock-skew: 1m"
# The first reading agrees; the expiry timer then reclaims the lease that ended while down.
first_reading_agrees() {
  [[ $(metric landlord_store_clock_agrees) == 1 && $(lease_state) == 2 ]] && grep -q "READY=1" "$WORK/notify.log"
}
within 15 first_reading_agrees || echo "no agreeing clock reading and reclaimed lease within 15 s"
agrees=$(metric landlord_store_clock_agrees)
[[ $agrees == 1 ]] || fail "landlord_store_clock_agrees is ${agrees} within max-clock-skew 1m"
# READY=1 only once the first reading agrees: a STATUS= waiting for it comes first.
head -n 1 "$WORK/notify.log" | grep -q "^STATUS=not ready: this server has not compared its clock" &&
  sed -n 2p "$WORK/notify.log" | grep -q "^READY=1 | STATUS=" ||
  fail "READY=1 is not sent after the first clock reading: $(cat "$WORK/notify.log")"
[[ $(lease_state) == 2 ]] || fail "the ended lease was not reclaimed once the clocks agree (state $(lease_state))"
[[ $(ask '{"command": "leases-reclaim"}' | jq .result) == 0 ]] || fail "leases-reclaim refused within max-clock-skew 1m"
leased=$(run_clients 32)
echo "max-clock-skew 1m: clients leased: ${leased} of 20"
[[ $leased == 20 ]] || fail "only ${leased} of 20 clients leased within the limit"
landlord_stop_and_check
echo "PASS"
