#!/usr/bin/env bash
# One million simulated clients against a real landlord over sockets (issue #13): a release
# landlord-sim drives CLIENTS clients (default 1,000,000) at RATE per second against a release
# landlord on loopback (relay mode, no namespaces). A /15 holds 131,072 addresses, fewer than
# the clients, so every client RELEASEs after a short stay (2-6 s) and its address goes back to
# the pool; at 4,000/s about 16,000 leases are held at once. Prints landlord-sim's peak memory
# per client (VmHWM / clients), landlord's peak RSS, and whether every client got a lease (a
# client RELEASEs only a lease it holds: releases == clients means each one had its lease).
#   bench/sim_million.sh [CLIENTS] [RATE]         (defaults 1000000 and 4000; bounded by
#                                                   CLIENTS / RATE + 120 s)
# Uses build/release/tools/{landlord,landlord-sim} (LANDLORD= and SIM= override).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
clients=${1:-1000000}
rate=${2:-4000}
sim=${SIM:-$repo/build/release/tools/landlord-sim/landlord-sim}
landlord=${LANDLORD:-$repo/build/release/tools/landlord/landlord}
[[ -x $sim && -x $landlord ]] || { echo "sim_million: build the release preset first" >&2; exit 2; }
source "$repo/tests/integration/veth_pair.sh"
veth_pair_prepare sim_million lsm
SIM_PID=""
stop_sim() { [[ -n $SIM_PID ]] && kill "$SIM_PID" 2>/dev/null || true; veth_pair_cleanup; }
trap stop_sim EXIT INT TERM

# The whole /15 (198.18.0.0-198.19.255.255), less the network's first and last few addresses.
SERVER_PORT=$((20000 + $$ % 20000))
while ss -Huln "sport = :$SERVER_PORT or sport = :$((SERVER_PORT + 1))" | grep -q .; do
  SERVER_PORT=$((SERVER_PORT + 2))
done
RELAY_PORT=$((SERVER_PORT + 1))
cat >"$WORK/landlord.yaml" <<YAML
server:
  listen: 127.0.0.1:$SERVER_PORT
store:
  type: sqlite
  path: $WORK/leases.db
lease:
  time: 1h
subnets:
  - subnet: 198.18.0.0/15
    pools: [198.18.0.10-198.19.255.250]
    relays: [127.0.0.1]
log:
  level: warn
YAML
"$landlord" --allow-root -c "$WORK/landlord.yaml" >"$WORK/landlord.log" 2>&1 &
SERVER_PID=$!
landlord_ready "" "$SERVER_PORT" 127.0.0.1

seconds=$(((clients + rate - 1) / rate + 60))  # 60 s for the last ones to finish
start=$(date +%s)
"$sim" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" \
  --clients "$clients" --rate "$rate" --duration "${seconds}s" --release 1 --stay 4s \
  --retransmit-base 1s --report "$WORK/report.json" >"$WORK/sim.out" 2>&1 &
SIM_PID=$!
sim_hwm=0 landlord_hwm=0
while kill -0 "$SIM_PID" 2>/dev/null; do
  sleep 5
  # --duration ends the run; this bounds it if the simulator itself hangs.
  (($(date +%s) - start > seconds + 60)) && { echo "sim_million: too long, stopped" >&2; kill "$SIM_PID"; }
  s=$(awk '/^VmHWM/ { print $2 }' "/proc/$SIM_PID/status" 2>/dev/null || echo 0)
  l=$(awk '/^VmHWM/ { print $2 }' "/proc/$SERVER_PID/status" 2>/dev/null || echo 0)
  ((s > sim_hwm)) && sim_hwm=$s
  ((l > landlord_hwm)) && landlord_hwm=$l
done
status=0
wait "$SIM_PID" || status=$?
SIM_PID=""
elapsed=$(($(date +%s) - start))
landlord_stop_and_check
tail -n 14 "$WORK/sim.out"
jq -r --argjson clients "$clients" '"sim_million: clients \(.clients), leases_acquired \(.leases_acquired), releases \(.releases), naks \(.naks), gave_up \(.gave_up), timeouts \(.timeouts), violations \(.violation_count); every client got a lease: \(.releases == $clients and .clients == $clients)"' "$WORK/report.json"
echo "sim_million: exit $status, ${elapsed}s; landlord-sim VmHWM ${sim_hwm} kB = $((sim_hwm * 1024 / clients)) bytes per client; landlord VmHWM ${landlord_hwm} kB"
