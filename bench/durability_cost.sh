#!/usr/bin/env bash
# What durability costs in server CPU at an everyday load (issue #12): landlord with the memory
# store against landlord with SQLite (every ACK after its fdatasync, group commit), each driven
# by landlord-sim as a relay agent on loopback with RATE new clients a second (open loop) for
# SECONDS, ROUNDS times alternating. The server's CPU (utime + stime of all its threads, from
# /proc/PID/stat, 10 ms ticks) is read just before and after each run and divided by the
# leases landlord-sim got. Prints each run, the medians and the ratio SQLite / memory.
# A third server keeps its SQLite file on tmpfs (/dev/shm: the same code, fdatasync free), and
# before each round bench/fsync_probe times the disk's own fdatasync at RATE/s in the work
# directory: an ACK that waits for its commit's fdatasync can be no faster than that, so the
# REQUEST->ACK p99 on tmpfs is landlord's part of the p99 and the probe's is the disk's.
#   bench/durability_cost.sh [BUILD_DIR] [RATE] [SECONDS] [ROUNDS]
#                            (default build/release, 4000/s, 15 s, 3 rounds)
# STORE_KEYS adds store keys to every server's config, e.g. STORE_KEYS='batch-linger: 2ms'.
# Nothing leaves 127.0.0.1.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
rate=${2:-4000}
seconds=${3:-15}
rounds=${4:-3}
landlord=$build/tools/landlord/landlord
sim=$build/tools/landlord-sim/landlord-sim
probe=$build/bench/fsync_probe
[[ -x $landlord && -x $sim && -x $probe ]] || { echo "no landlord, landlord-sim or bench/fsync_probe in $build" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
((rate * seconds <= 60000)) || { echo "RATE x SECONDS must fit the 65,024-address pool" >&2; exit 2; }

source "$repo/bench/loopback_lib.sh"
loopback_setup durability
shm=$(mktemp -d /dev/shm/bench-durability.XXXXXX)
loopback_extra_cleanup() { rm -rf "$shm"; }
ticks_per_s=$(getconf CLK_TCK)
declare -A results p99s
run_one() {  # NAME STORE_YAML ROUND
  local name=$1 dir=$work/$1.$3
  mkdir -p "$dir"
  relay_config "$1.$3/landlord" "$2${STORE_KEYS:+
  $STORE_KEYS}"
  start_landlord "$1.$3/landlord"
  local start_cpu end_cpu leases cpu_us
  start_cpu=$(cpu_ticks "${loopback_pids[0]}")
  timeout $((seconds + 60)) "$sim" --server "127.0.0.1:$port" --bind "127.0.0.1:$((port + 1))" \
    --clients $((rate * seconds)) --rate "$rate" --duration "$((seconds + 5))s" \
    --seed "$3" --report "$dir/report.json" >"$dir/sim.out" 2>&1 || true
  end_cpu=$(cpu_ticks "${loopback_pids[0]}")
  stop_landlords
  leases=$(jq '.leases_acquired' "$dir/report.json")
  cpu_us=$(awk -v t=$((end_cpu - start_cpu)) -v hz="$ticks_per_s" -v n="$leases" \
    'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  local p99
  p99=$(jq -r '.latency_ms.request_ack.p99 // .request_ack_ms.p99 // "?"' "$dir/report.json")
  printf '%-12s round %d: %6d leases of %d, server CPU %5.1f us/DORA, REQUEST->ACK p99 %s ms\n' \
    "$name" "$3" "$leases" $((rate * seconds)) "$cpu_us" "$p99"
  results[$name]+="$cpu_us "
  p99s[$name]+="$p99 "
}
echo "durability cost: ${rate} new clients/s for ${seconds}s, ${rounds} rounds, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
for ((round = 1; round <= rounds; round++)); do
  run_one memory "  type: memory" "$round"
  run_one sqlite "  type: sqlite
  path: $work/leases.$round.db" "$round"
  run_one sqlite-tmpfs "  type: sqlite
  path: $shm/leases.$round.db" "$round"
  printf '%-12s round %d: %s\n' disk "$round" "$("$probe" "$work" "$rate" 5)"
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
memory=$(echo "${results[memory]}" | median)
sqlite=$(echo "${results[sqlite]}" | median)
tmpfs=$(echo "${results[sqlite-tmpfs]}" | median)
awk -v m="$memory" -v s="$sqlite" -v t="$tmpfs" 'BEGIN { printf "median server CPU per DORA: memory %.1f us, sqlite %.1f us, sqlite on tmpfs %.1f us: sqlite/memory %.2fx (target <= 1.5x)\n", m, s, t, (m > 0 ? s / m : 0) }'
echo "median REQUEST->ACK p99: memory $(echo "${p99s[memory]}" | median) ms, sqlite $(echo "${p99s[sqlite]}" | median) ms, sqlite on tmpfs $(echo "${p99s[sqlite-tmpfs]}" | median) ms"
