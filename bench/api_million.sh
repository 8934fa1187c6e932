#!/usr/bin/env bash
# Whole-table control commands at 1,000,000 leases (issue #17), not in CI. The leases are data
# only (bench/million.sh's million_fill: bound rows in 10.0.0.0/12 written into landlord's own
# SQLite schema); landlord runs in a network namespace of its own with nothing but loopback, so
# no packet can leave it whatever the data says, and is asked only on its control socket.
# Prints, for each command, the time curl took for the whole answer and its size, landlord's
# VmRSS before and after and its peak (VmHWM), and how long status-get (answered on the event
# loop, between the pieces of a scan) took while lease4-get-all, then lease4-wipe of the whole
# subnet, were in progress, with the event loop's turns meanwhile (bench/loop_turns.sh, if perf).
#   flock /tmp/landlord-netns.lock bench/api_million.sh [LEASES]   (default 1000000; needs root)
# Uses build/release/tools/landlord/landlord (LANDLORD= overrides), curl, jq and sqlite3.
# WIPE_ONLY=1 goes from the loaded table straight to lease4-wipe. landlord's log is kept in
# /tmp/api_million.PID.landlord.log (API_MILLION_LOG= overrides); the work directory is removed.
# LOOP_TURNS_SCHED=1 splits each loop turn into time on and off a CPU (bench/loop_turns.sh).
# LOOP_NICE=N runs the loop thread alone at nice N (renice of its tid, as bench/api_abuse.sh).
# WIPE_PROFILE=FILE records the loop thread's stacks during lease4-wipe into FILE (perf record
# -g --call-graph dwarf -F 199; read it with perf report -i FILE).
set -euo pipefail
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
leases=${1:-1000000}
landlord=${LANDLORD:-$repo_dir/build/release/tools/landlord/landlord}
[[ -x $landlord ]] || { echo "api_million: build the release preset first" >&2; exit 2; }
for tool in curl jq sqlite3; do command -v $tool >/dev/null || { echo "api_million: needs $tool" >&2; exit 2; }; done
source "$repo_dir/bench/million.sh"  # million_fill, million_lease_time_ms
source "$repo_dir/tests/integration/control_lab.sh"  # control_lab_up, control_start, control_ask

WORK=$(mktemp -d /tmp/api_million.XXXXXX)
# landlord's log outlives the work directory (the store file does not: it is hundreds of MB).
KEPT_LOG=${API_MILLION_LOG:-/tmp/api_million.$$.landlord.log}
cleanup() {
  control_lab_down
  if [[ -f $WORK/landlord.log ]]; then
    cp "$WORK/landlord.log" "$KEPT_LOG" && echo "api_million: landlord's log kept in $KEPT_LOG ($(wc -l <"$KEPT_LOG") lines)"
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
control_lab_up "llapi$$" "$WORK"
ask() { control_ask "$1" 600; }
start() {
  control_start "$landlord" || exit 1
  SERVER_PID=$control_pid
  if [[ -n ${LOOP_NICE:-} ]]; then renice -n "$LOOP_NICE" -p "$SERVER_PID" >/dev/null; fi
}
stop() { control_stop; SERVER_PID=""; }
SERVER_PID=""
rss() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$SERVER_PID/status"; }
timed() {  # NAME BODY|GET-PATH: seconds and bytes of the whole answer
  local out
  if [[ $2 == /* ]]; then
    out=$(curl -s --max-time 600 --unix-socket "$WORK/control.sock" -o "$WORK/answer" -w '%{time_total} %{size_download}' "http://landlord$2")
  else
    out=$(curl -s --max-time 600 --unix-socket "$WORK/control.sock" -d "$2" -o "$WORK/answer" -w '%{time_total} %{size_download}' http://landlord/)
  fi
  read -r seconds bytes <<<"$out"
  printf 'api_million: %-34s %8.3f s %12d bytes\n' "$1" "$seconds" "$bytes"
}

start  # creates the schema
stop
million_fill "$WORK/leases.db" "$leases"
start
records=$(ask '{"command":"status-get"}' | jq '.arguments["lease-records"]')
echo "api_million: loop thread at nice ${LOOP_NICE:-inherited}"
echo "api_million: $records lease records loaded; VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
timed status-get '{"command":"status-get"}'
timed statistic-get-all '{"command":"statistic-get-all"}'
timed "GET /metrics" /metrics
last_mac=$(printf '02:10:00:%02x:%02x:%02x' $((leases >> 16)) $(((leases >> 8) & 255)) $((leases & 255)))
timed "lease4-get by hw-address (a scan)" "{\"command\":\"lease4-get\",\"arguments\":{\"identifier-type\":\"hw-address\",\"identifier\":\"$last_mac\",\"subnet-id\":1}}"
jq -e '.result == 0' "$WORK/answer" >/dev/null || echo "api_million: lease4-get by hw-address did not find the last lease"

# lease4-get-all, with status-get asked back to back meanwhile: how long the event loop keeps
# a request waiting while the table is read in pieces and the answer serialised on the worker.
# With perf, bench/loop_turns.sh also records every turn of the event loop meanwhile.
status_meanwhile() {  # PID: status-get back to back until PID ends; sets calls and max_ms
  max_ms=0 calls=0
  while kill -0 "$1" 2>/dev/null; do
    ms=$(curl -s --max-time 60 --unix-socket "$WORK/control.sock" -d '{"command":"status-get"}' -o /dev/null -w '%{time_total}' http://landlord/ | awk '{ printf "%d", $1 * 1000 }')
    calls=$((calls + 1))
    if ((ms > max_ms)); then max_ms=$ms; fi
  done
  return 0
}
turns_meanwhile() {  # LABEL PID: loop_turns.sh until PID ends, into $WORK/turns
  if command -v perf >/dev/null; then "$repo_dir/bench/loop_turns.sh" "$SERVER_PID" 900 "$1" "$2" >"$WORK/turns" 2>&1 & turns_pid=$!
  else echo "$1: perf missing, turns not recorded" >"$WORK/turns"; turns_pid=""; fi
}
if [[ ${WIPE_ONLY:-0} == 0 ]]; then
ask '{"command":"lease4-get-all"}' >"$WORK/all.json" &
all_pid=$!
turns_meanwhile "api_million: event loop during lease4-get-all" "$all_pid"
start_ns=$(date +%s%N)
status_meanwhile "$all_pid"
wait "$all_pid"
all_s=$(awk -v a="$start_ns" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
if [[ -n $turns_pid ]]; then wait "$turns_pid" || true; fi
echo "api_million: lease4-get-all                      $all_s s $(stat -c %s "$WORK/all.json") bytes, $(jq '.arguments.leases | length' "$WORK/all.json") leases; meanwhile $calls status-get answered, slowest $max_ms ms"
cat "$WORK/turns"
echo "api_million: after lease4-get-all: VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB"
rm -f "$WORK/all.json"

from=start pages=0 paged=0 page_start=$(date +%s%N)
while :; do
  ask "{\"command\":\"lease4-get-page\",\"arguments\":{\"from\":\"$from\",\"limit\":65536}}" >"$WORK/page.json"
  [[ $(jq .result "$WORK/page.json") == 0 ]] || break
  pages=$((pages + 1)); paged=$((paged + $(jq .arguments.count "$WORK/page.json")))
  from=$(jq -r '.arguments.leases[-1]["ip-address"]' "$WORK/page.json")
done
echo "api_million: lease4-get-page, limit 65536: $pages pages, $paged leases in $(awk -v a="$page_start" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') s (jq's parsing included)"
echo "api_million: after paging: VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB"
fi  # WIPE_ONLY

# lease4-wipe of the million-lease subnet: revoked in pieces, each piece durable before the answer.
ask '{"command":"lease4-wipe","arguments":{"subnet-id":1,"confirm":true}}' >"$WORK/wipe.json" &
wipe_pid=$!
turns_meanwhile "api_million: event loop during lease4-wipe" "$wipe_pid"
profile_pid=""
if [[ -n ${WIPE_PROFILE:-} ]]; then
  perf record -q -F 199 -g --call-graph dwarf,16384 -t "$SERVER_PID" -o "$WIPE_PROFILE" \
    -- timeout 600 bash -c "while kill -0 $wipe_pid 2>/dev/null; do sleep 0.1; done" >/dev/null 2>&1 &
  profile_pid=$!
fi
start_ns=$(date +%s%N)
status_meanwhile "$wipe_pid"
wait "$wipe_pid"
wipe_s=$(awk -v a="$start_ns" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
if [[ -n $turns_pid ]]; then wait "$turns_pid" || true; fi
if [[ -n $profile_pid ]]; then wait "$profile_pid" || true; fi
echo "api_million: lease4-wipe subnet 1                $wipe_s s: $(jq -c '{result, text}' "$WORK/wipe.json"); meanwhile $calls status-get answered, slowest $max_ms ms"
cat "$WORK/turns"
# What the store holds of subnet 1 once the commits in flight have landed (read beside the
# server, as WAL allows): the answer's counts must match it.
sleep 2
echo "api_million: after lease4-wipe the store holds in subnet 1: $(sqlite3 "$WORK/leases.db" "SELECT group_concat(state || ' ' || n, ', ') FROM (SELECT state, count(*) AS n FROM leases WHERE subnet_id = 1 GROUP BY state)")"
echo "api_million: at the end: VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB"
stop
