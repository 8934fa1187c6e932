#!/usr/bin/env bash
# Does the control API slow packet handling? (issue #17) The same DORA load (landlord-sim, relay
# mode on loopback) runs twice against a fresh release landlord: calm, then while the API is
# abused on its socket: HAMMERS loops of lease4-get-all, statistic-get-all and GET /metrics back
# to back; a python3 client holding IDLE connections open (default 1,000; landlord serves at
# most 64 at once and, at that limit, closes the longest-idle one to admit a new connection);
# a slow-loris client that keeps one request unfinished (headers and the start of a body, then a
# byte a second) and opens another each time landlord closes it; and 10 MB bodies POSTed back to
# back (refused: the limit is 1 MiB). Prints DORA/s (leases acquired / arrival time) and
# REQUEST->ACK p50/p99 both ways, how many API calls were answered, what became of the abuse
# (connections held, unfinished requests closed and the longest kept, 10 MB bodies by HTTP
# code), landlord's open descriptors (most seen in the run, and after it) against its limit, and
# whether status-get answers after the abuse. Bounded: each run lasts DURATION seconds (default
# 20) and everything it started is killed by PID.
# Also prints how long landlord's loop thread waited for a CPU while runnable (schedstat) and each
# thread's CPU time; with LOOP_TURNS=1, the loop's turns over the run (bench/loop_turns.sh, perf).
# LOOP_NICE=N runs the loop thread alone at nice N (renice of its tid).
#   bench/api_abuse.sh [CLIENTS] [RATE] [DURATION] [HAMMERS]   (defaults 30000 2000 20 4)
# HAMMERS=0: the connection abuse alone (idle, slow-loris, 10 MB bodies).
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
hold_connections() {  # ${IDLE:-1000} idle connections for the run's length; how many opened in $1
  /usr/bin/python3 - "$WORK/control.sock" "$duration" "${IDLE:-1000}" "$1" <<'PY'
import resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for _ in range(int(sys.argv[3])):
    s = socket.socket(socket.AF_UNIX); s.settimeout(1)
    try: s.connect(sys.argv[1]); held.append(s)
    except OSError: s.close()
open(sys.argv[4], "w").write(f"{len(held)}\n")
time.sleep(int(sys.argv[2]))
PY
}
slow_loris() {  # an unfinished request at all times; "closed N longest S" in $1
  /usr/bin/python3 - "$WORK/control.sock" "$duration" "$1" <<'PY'
import socket, sys, time
deadline = time.monotonic() + int(sys.argv[2])
closed, longest = 0, 0.0
while time.monotonic() < deadline:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(sys.argv[1])
        s.sendall(b'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"comm')
        opened = time.monotonic()
        s.settimeout(1)
        while time.monotonic() < deadline:
            try:
                if s.recv(4096) == b"": break      # landlord closed it
            except socket.timeout:
                s.sendall(b"a")                     # one more byte a second, never the whole body
        else:
            continue
        closed += 1
        longest = max(longest, time.monotonic() - opened)
    except OSError:
        closed += 1
    finally:
        s.close()
open(sys.argv[3], "w").write(f"closed {closed} longest {longest:.1f}\n")
PY
}
big_bodies() {  # 10 MB bodies back to back until the deadline; their HTTP codes in $1 (000: dropped)
  local deadline=$(($(date +%s) + duration))
  while (($(date +%s) < deadline)); do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 --unix-socket "$WORK/control.sock" \
      --data-binary @"$WORK/big.json" http://landlord/ >>"$1" || true
  done
}
count_fds() { find "/proc/$SERVER_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
watch_fds() {  # the most descriptors landlord had open, sampled every 0.2 s, in $1
  local most=0 deadline=$(($(date +%s) + duration)) now
  while (($(date +%s) < deadline)); do now=$(count_fds); ((now > most)) && most=$now; sleep 0.2; done
  echo "$most" >"$1"
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
  local fds_before
  fds_before=$(count_fds)
  rm -f "$WORK/bodies" "$WORK/fds"
  if ((abuse)); then
    for i in $(seq "$hammers"); do hammer "$WORK/calls.$i" & HELPERS+=($!); done
    hold_connections "$WORK/held" & HELPERS+=($!)
    slow_loris "$WORK/loris" & HELPERS+=($!)
    big_bodies "$WORK/bodies" & HELPERS+=($!)
  fi
  watch_fds "$WORK/fds" & HELPERS+=($!)
  if [[ ${LOOP_TURNS:-0} == 1 ]]; then
    "$repo/bench/loop_turns.sh" "$SERVER_PID" "$duration" "api_abuse: $name: event loop" >"$WORK/turns" 2>&1 & turns_pid=$!
  fi
  "$sim" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" --clients "$clients" \
    --rate "$rate" --duration "${duration}s" --retransmit-base 1s --report "$WORK/$name.json" \
    >"$WORK/$name.out" 2>&1 || true
  for pid in "${HELPERS[@]}"; do wait "$pid" 2>/dev/null || true; done
  HELPERS=()
  sleep 1  # the abusers' connections end with them
  local status fds_after fd_limit
  status=$(curl -s --max-time 5 --unix-socket "$WORK/control.sock" -d '{"command":"status-get"}' http://landlord/ | jq -r '.result // "no answer"' || echo "no answer")
  fds_after=$(count_fds)
  fd_limit=$(awk '/^Max open files/ { print $4 }' "/proc/$SERVER_PID/limits")
  # The loop thread's (the main thread's) time waiting for a CPU while runnable, from schedstat.
  read -r _ delay_after _ </proc/"$SERVER_PID"/schedstat
  local threads_cpu
  threads_cpu=$(for task in /proc/"$SERVER_PID"/task/*; do read -r _ _ _ _ _ _ _ _ _ _ _ _ _ utime stime _ <"$task/stat" 2>/dev/null || true
                  echo "$(basename "$task") $(((utime + stime) * 10))"; done | sort -n | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $2 }')
  landlord_stop_and_check
  if [[ -n $turns_pid ]]; then wait "$turns_pid" || true; cat "$WORK/turns"; fi
  echo "api_abuse: $name: loop thread (nice ${LOOP_NICE:-inherited}) waited $(((delay_after - delay_before) / 1000000)) ms for a CPU; CPU ms by thread (loop first): $threads_cpu; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  local calls=0
  if ((abuse)); then
    for i in $(seq "$hammers"); do calls=$((calls + $(cat "$WORK/calls.$i"))); done
    echo "api_abuse: $name: idle connections opened $(cat "$WORK/held"); unfinished requests $(cat "$WORK/loris") s; 10 MB bodies by HTTP code: $(sort "$WORK/bodies" | uniq -c | awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')"
  fi
  echo "api_abuse: $name: landlord's descriptors: ${fds_before} at start, at most $(cat "$WORK/fds") during the run, ${fds_after} after (limit ${fd_limit}); status-get after the run: result ${status}"
  jq -r --arg name "$name" --argjson arrival "$(awk -v c="$clients" -v r="$rate" 'BEGIN { print c / r }')" --argjson calls "$calls" \
    '"api_abuse: \($name): leases \(.leases_acquired) of \(.clients), \(.leases_acquired / $arrival | floor) DORA/s, REQUEST->ACK p50 \(.latency_ms.request_ack.p50) ms p99 \(.latency_ms.request_ack.p99) ms, timeouts \(.timeouts), API calls answered \($calls)"' \
    "$WORK/$name.json"
}
head -c 10000000 /dev/zero | tr '\0' ' ' >"$WORK/big.json"
run calm 0
run abused 1
