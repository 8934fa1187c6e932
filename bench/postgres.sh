#!/usr/bin/env bash
# landlord on PostgreSQL vs landlord on SQLite, side by side in one run (issue #14): the
# sustainable DORA/s that landlord-sim's closed loop finds (relay mode on loopback, 0.5 s steps
# x1.5, a step fails past 2.5 % of replies later than 1 s), against one server with each store.
# PostgreSQL is a throwaway cluster (tests/support/postgres_cluster.sh) on a UNIX socket, with
# its defaults (fsync on, synchronous_commit on). Nothing leaves 127.0.0.1.
#   bench/postgres.sh [BUILD_DIR] [SECONDS]      (default build/release, 40 s per server)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
seconds=${2:-40}
landlord=$build/tools/landlord/landlord
sim=$build/tools/landlord-sim/landlord-sim
[[ -x $landlord && -x $sim ]] || { echo "no landlord or landlord-sim in $build" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }

pgdir=/tmp/llpg-bench-$$
source "$repo/bench/loopback_lib.sh"
loopback_extra_cleanup() { "$repo/tests/support/postgres_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; }
loopback_setup postgres
"$repo/tests/support/postgres_cluster.sh" start "$pgdir"

run_one() {  # NAME STORE_YAML
  relay_config "$1" "$2"
  start_landlord "$1"
  local start_cpu end_cpu
  start_cpu=$(cpu_ticks "${loopback_pids[0]}")
  timeout $((seconds + 30)) "$sim" --server "127.0.0.1:$port" --bind "127.0.0.1:$((port + 1))" \
    --closed-loop --rate 200 --step 500ms --step-factor 1.5 --deadline 1s --max-miss 0.025 \
    --duration "${seconds}s" --clients 65000 --seed 5 --report "$work/$1.json" >/dev/null || true
  end_cpu=$(cpu_ticks "${loopback_pids[0]}")
  stop_landlords
  local dora acked
  dora=$(jq '.closed_loop.sustainable_dora_per_s' "$work/$1.json")
  acked=$(jq '.leases_acquired' "$work/$1.json")
  printf '%-12s sustainable %8s DORA/s  (stopped by %s; %s leases ACKed; server CPU %s ticks; violations %s)\n' \
    "$1" "$dora" "$(jq -r .closed_loop.stopped_by "$work/$1.json")" "$acked" \
    $((end_cpu - start_cpu)) "$(jq .violation_count "$work/$1.json")"
  next_port
}
echo "bench/postgres.sh: $(basename "$build") build, ${seconds}s closed loop per server, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run_one sqlite "  type: sqlite
  path: $work/leases.db"
run_one postgresql "  type: postgresql
  url: \"postgresql:///landlord?host=$pgdir&user=landlord\""
