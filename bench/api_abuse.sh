#!/usr/bin/env bash
# Does the control API slow packet handling? (issue #17) The same DORA load (landlord-sim, relay
# mode on loopback) runs twice against a fresh release landlord: calm, then while the API is
# hammered: HAMMERS loops of lease4-get-all, statistic-get-all and GET /metrics back to back on
# the control socket, plus a python3 client holding IDLE connections open (default 40; landlord
# serves at most 64 at once and, at that limit, closes the longest-idle one to admit a new
# connection, so IDLE=500 no longer locks the hammer loops out). Prints DORA/s
# (leases acquired / arrival time) and REQUEST->ACK p50/p99 both ways, and how many API calls
# were answered. Bounded: each run lasts DURATION seconds (default 20) and everything it
# started is killed by PID.
# Also prints how long landlord's loop thread waited for a CPU while runnable (schedstat) and each
# thread's CPU time; with LOOP_TURNS=1, the loop's turns over the run (bench/loop_turns.sh, perf).
# LOOP_NICE=N runs the loop thread alone at nice N (renice of its tid).
#   bench/api_abuse.sh [CLIENTS] [RATE] [DURATION] [HAMMERS]   (defaults 30000 2000 20 4)
# Uses build/release/tools/{landlord,landlord-sim} (LANDLORD= and SIM= override).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
clients=${1:-30000}
rate=${2:-2000}
duration=${3:-20}
hammers=${4:-4}
sim=${SIM:-$repo/build/release/tools/landlord-sim/landlord-sim}
landlord=${LANDLORD:-$repo/build/release/tools/landlord/landlord}
[[ -x $sim && -x $landlord ]] || { echo "api_abuse: build the release preset first" >&2; exit 2; }
command -v curl >/dev/null && command -v jq >/dev/null || { echo "api_abuse: needs curl and jq" >&2; exit 2; }
source "$repo/tests/integration/veth_pair.sh"
veth_pair_prepare api_abuse laa
HELPERS=()
stop_all() { for pid in "${HELPERS[@]}"; do kill "$pid" 2>/dev/null || true; done; veth_pair_cleanup; }
trap stop_all EXIT INT TERM

hammer() {  # one loop of whole-table calls until the deadline; counts answers in $1
  local count=0 deadline=$(($(date +%s) + duration))
  while (($(date +%s) < deadline)); do
    for body in '{"command":"lease4-get-all"}' '{"command":"statistic-get-all"}'; do
      curl -s --max-time 10 --unix-socket "$WORK/control.sock" -d "$body" http://landlord/ -o /dev/null && count=$((count + 1))
    done
    curl -s --max-time 10 --unix-socket "$WORK/control.sock" http://landlord/metrics -o /dev/null && count=$((count + 1))
  done
  echo "$count" >"$1"
}
hold_connections() {  # ${IDLE:-40} idle connections for the run's length
  /usr/bin/python3 - "$WORK/control.sock" "$duration" "${IDLE:-40}" <<'PY'
import socket, sys, time
held = []
for _ in range(int(sys.argv[3])):
    s = socket.socket(socket.AF_UNIX); s.settimeout(1)
    try: s.connect(sys.argv[1]); held.append(s)
    except OSError: s.close()
time.sleep(int(sys.argv[2]))
PY
}

run() {  # run NAME ABUSE(0|1): one fresh landlord, one load
  local name=$1 abuse=$2
  rm -f "$WORK/leases.db"
  landlord_on_loopback "$landlord" 198.18.16.0-198.18.255.250 "lease:
  time: 1h
control:
  socket: $WORK/control.sock"
  for _ in $(seq 50); do [[ -S $WORK/control.sock ]] && break; sleep 0.1; done
  # LOOP_NICE=N: the loop thread (the main thread; its tid is the PID) at nice N, the other
  # threads left as they are, as an operator's renice of that thread would (N < 0 needs root or
  # CAP_SYS_NICE).
  if [[ -n ${LOOP_NICE:-} ]]; then renice -n "$LOOP_NICE" -p "$SERVER_PID" >/dev/null; fi
  HELPERS=()
  local turns_pid=""
  read -r _ delay_before _ </proc/"$SERVER_PID"/schedstat
  if ((abuse)); then
    for i in $(seq "$hammers"); do hammer "$WORK/calls.$i" & HELPERS+=($!); done
    hold_connections & HELPERS+=($!)
  fi
  if [[ ${LOOP_TURNS:-0} == 1 ]]; then
    "$repo/bench/loop_turns.sh" "$SERVER_PID" "$duration" "api_abuse: $name: event loop" >"$WORK/turns" 2>&1 & turns_pid=$!
  fi
  "$sim" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" --clients "$clients" \
    --rate "$rate" --duration "${duration}s" --retransmit-base 1s --report "$WORK/$name.json" \
    >"$WORK/$name.out" 2>&1 || true
  for pid in "${HELPERS[@]}"; do wait "$pid" 2>/dev/null || true; done
  HELPERS=()
  # The loop thread's (the main thread's) time waiting for a CPU while runnable, from schedstat.
  read -r _ delay_after _ </proc/"$SERVER_PID"/schedstat
  local threads_cpu
  threads_cpu=$(for task in /proc/"$SERVER_PID"/task/*; do read -r _ _ _ _ _ _ _ _ _ _ _ _ _ utime stime _ <"$task/stat" 2>/dev/null || true
                  echo "$(basename "$task") $(((utime + stime) * 10))"; done | sort -n | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $2 }')
  landlord_stop_and_check
  if [[ -n $turns_pid ]]; then wait "$turns_pid" || true; cat "$WORK/turns"; fi
  echo "api_abuse: $name: loop thread (nice ${LOOP_NICE:-inherited}) waited $(((delay_after - delay_before) / 1000000)) ms for a CPU; CPU ms by thread (loop first): $threads_cpu; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  local calls=0
  if ((abuse)); then for i in $(seq "$hammers"); do calls=$((calls + $(cat "$WORK/calls.$i"))); done; fi
  jq -r --arg name "$name" --argjson arrival "$(awk -v c="$clients" -v r="$rate" 'BEGIN { print c / r }')" --argjson calls "$calls" \
    '"api_abuse: \($name): leases \(.leases_acquired) of \(.clients), \(.leases_acquired / $arrival | floor) DORA/s, REQUEST->ACK p50 \(.latency_ms.request_ack.p50) ms p99 \(.latency_ms.request_ack.p99) ms, timeouts \(.timeouts), API calls answered \($calls)"' \
    "$WORK/$name.json"
}
run calm 0
run abused 1
