#!/usr/bin/env bash
# landlord-sim --closed-loop against the landlord daemon: the search raises the rate of fresh
# clients step by step until more than 2.5 % of the replies miss 1 s, and reports the last
# rate that held. Checks the search ran and judged sanely, not a speed (bench/ does figures).
#   relay: landlord on 127.0.0.1 (private ports), the simulator as a relay agent. No root.
#   l2:    landlord in a namespace lab of its own ("<prefix>s", 198.18.0.1/16), the simulator
#          speaking Ethernet from "<prefix>c" over a veth. Needs root; skips (77) otherwise.
# Usage: sim_closed_loop.sh path/to/landlord-sim path/to/landlord relay|l2 [seconds]
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: sim_closed_loop.sh landlord-sim landlord relay|l2 [seconds]}
LANDLORD=${2:?usage: sim_closed_loop.sh landlord-sim landlord relay|l2 [seconds]}
MODE=${3:?usage: sim_closed_loop.sh landlord-sim landlord relay|l2 [seconds]}
DURATION_S=${4:-40}
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

veth_pair_prepare sim_closed_loop lcl

# Every DORA of the search is a fresh allocation: the pool must hold the clients of all steps.
# 198.18.1.0-198.18.254.255 has 65024 addresses; --clients stops the search before it runs dry.
POOL=198.18.1.0-198.18.254.255
POOL_SIZE=65024
lease_config="lease:
  time: 1h
  offer-hold: 10s"

case $MODE in
  relay)
    landlord_on_loopback "$LANDLORD" "$POOL" "$lease_config"
    RUN=("$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT")
    ;;
  l2)
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
    command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
    landlord_on_lab "$LANDLORD" 16 "$POOL" "$lease_config"
    RUN=(ip netns exec "$CLIENT_NS" "$SIM" --interface "$CLIENT_IF")
    ;;
  *) echo "mode must be relay or l2"; exit 2 ;;
esac
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
check() { jq -e "$1" "$WORK/report.json" >/dev/null || fail "$2"; }

# From 100 new clients/s, ×1.25 every 2 s step. --rate, --step and --duration bound the run.
status=0
timeout $((DURATION_S + 30)) "${RUN[@]}" --closed-loop --rate "${CLOSED_LOOP_RATE:-100}" \
  --step "${CLOSED_LOOP_STEP:-2s}" --duration "${DURATION_S}s" --clients "$POOL_SIZE" --seed 9 \
  --report "$WORK/report.json" | tee "$WORK/summary.txt" || status=$?
[[ -s $WORK/report.json ]] || { echo "FAIL: no report (landlord-sim exit $status)"; exit 1; }
jq -c '.closed_loop | {sustainable_dora_per_s, stopped_by,
       steps: [.steps[] | [.rate, .completed_per_s, .miss_fraction]]}' "$WORK/report.json"

landlord_stop_and_check
[[ $status -eq 0 ]] || fail "landlord-sim exited $status: $(jq -c .violations "$WORK/report.json")"
check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
check '.closed_loop.steps | length >= 2' "fewer than two steps"
check '.closed_loop.steps[0].passed' "the first step (100/s) failed"
check '.closed_loop.sustainable_dora_per_s > 0' "no sustainable rate"
# Passing steps are the ones at or under the threshold, and only the last step may fail.
check '[.closed_loop.steps[] | select(.passed) | .miss_fraction <= 0.025] | all' "a passing step above 2.5 % missed"
check '[.closed_loop.steps[:-1][] | .passed] | all' "a step failed before the last"
check '.closed_loop.sustainable_dora_per_s == ([.closed_loop.steps[] | select(.passed)] | last | .completed_per_s)' \
  "sustainable is not the last passing step's completed rate"
# Fresh clients only: every step's clients are new, and each completed DORA was a lease.
check '.clients == ([.closed_loop.steps[].clients] | add)' "clients reused across steps"
check '.leases_acquired >= ([.closed_loop.steps[].completed] | add)' "completed DORAs without leases"
check '.closed_loop.stopped_by != "interrupted"' "search did not finish"
echo "PASS: closed loop ($MODE) against landlord: sustainable $(jq .closed_loop.sustainable_dora_per_s "$WORK/report.json") DORA/s, stopped by $(jq -r .closed_loop.stopped_by "$WORK/report.json")"
