#!/usr/bin/env bash
# What durability costs, counted rather than timed (issue #12): CPU time on a shared box moves
# with the load (a busy box makes batches grow), counts of kernel entries do much less. Runs
# landlord (relay mode, loopback) with each STORE (memory, sqlite on disk, sqlite on tmpfs),
# landlord-sim driving RATE new clients a second for SECONDS, and `perf stat` (software
# tracepoints, no hardware counters needed) on the server for the run. Prints per DORA: system
# calls in all and by name, context switches, store transactions, and the records per
# transaction (landlord's /metrics); then the same per thread (the event loop is `landlord`,
# the commit worker `store-commit`, the SQLite checkpointer `store-checkpt`), and the commit
# worker's per transaction. Nothing leaves 127.0.0.1. Needs perf, jq and curl.
#   bench/durability_counts.sh [BUILD_DIR] [RATE] [SECONDS] [STORE...]
#                              (default build/release 4000 5 memory sqlite sqlite-tmpfs)
# STORE_KEYS adds store keys to every server's config, e.g. STORE_KEYS='batch-linger: 2ms'.
# DURABILITY_PROFILE_DIR=DIR also samples the server for the run (`perf record -F 2999 -e
# cpu-clock`, DURABILITY_PROFILE_G=-g for call graphs) into DIR/STORE.data, for
# `perf report -i DIR/STORE.data --sort comm,dso`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
rate=${2:-4000}
seconds=${3:-5}
shift $(($# < 3 ? $# : 3))
stores=("$@")
((${#stores[@]})) || stores=(memory sqlite sqlite-tmpfs)
landlord=$build/tools/landlord/landlord
sim=$build/tools/landlord-sim/landlord-sim
[[ -x $landlord && -x $sim ]] || { echo "no landlord or landlord-sim in $build" >&2; exit 1; }
for tool in perf jq curl; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }; done
((rate * seconds <= 60000)) || { echo "RATE x SECONDS must fit the 65,024-address pool" >&2; exit 2; }

source "$repo/bench/loopback_lib.sh"
loopback_setup durability-counts
shm=$(mktemp -d /dev/shm/bench-durability-counts.XXXXXX)
loopback_extra_cleanup() { rm -rf "$shm"; }
syscalls=(futex fdatasync pwrite64 pread64 fcntl newfstatat epoll_wait epoll_ctl recvmmsg sendmmsg
          write read mprotect)
events=raw_syscalls:sys_enter,context-switches
for name in "${syscalls[@]}"; do events+=",syscalls:sys_enter_$name"; done

metric() { curl -s --unix-socket "$work/$1.sock" http://landlord/metrics | awk -v m="$2" '$1 == m { print $2 }'; }

echo "durability counts: ${rate} new clients/s for ${seconds}s, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
for store in "${stores[@]}"; do
  case $store in
    memory) yaml="  type: memory" ;;
    sqlite) yaml="  type: sqlite
  path: $work/$store.db" ;;
    sqlite-tmpfs) yaml="  type: sqlite
  path: $shm/$store.db" ;;
    *) echo "unknown store $store (memory, sqlite, sqlite-tmpfs)" >&2; exit 2 ;;
  esac
  relay_config "$store" "$yaml${STORE_KEYS:+
  $STORE_KEYS}"
  start_landlord "$store"
  pid=${loopback_pids[-1]}
  commits_before=$(metric "$store" landlord_store_commits_total)
  records_before=$(metric "$store" landlord_store_records_written_total)
  perf stat --per-thread -x, -e "$events" -p "$pid" -o "$work/$store.perf" &
  perf_pid=$!
  record_pid=""
  if [[ -n ${DURABILITY_PROFILE_DIR:-} ]]; then
    perf record -F 2999 -e cpu-clock ${DURABILITY_PROFILE_G:-} -p "$pid" \
      -o "$DURABILITY_PROFILE_DIR/$store.data" 2>/dev/null &
    record_pid=$!
  fi
  sleep 0.5
  timeout $((seconds + 60)) "$sim" --server "127.0.0.1:$port" --bind "127.0.0.1:$((port + 1))" \
    --clients $((rate * seconds)) --rate "$rate" --duration "$((seconds + 3))s" --seed 1 \
    --report "$work/$store.json" >"$work/$store.sim" 2>&1 || true
  kill -INT "$perf_pid" 2>/dev/null || true; wait "$perf_pid" || true
  if [[ -n $record_pid ]]; then kill -INT "$record_pid" 2>/dev/null || true; wait "$record_pid" || true; fi
  commits=$(($(metric "$store" landlord_store_commits_total) - commits_before))
  records=$(($(metric "$store" landlord_store_records_written_total) - records_before))
  stop_landlords
  next_port
  leases=$(jq '.leases_acquired' "$work/$store.json")
  awk -F, -v store="$store" -v n="$leases" -v commits="$commits" -v records="$records" '
    function show(label, thread, per,   i, line) {
      line = ""
      for (i = 1; i <= k; i++) if (count[thread, order[i]] / per >= 0.005) line = line sprintf("  %s %.2f", order[i], count[thread, order[i]] / per)
      printf "%-12s %-26s%s\n", store, label, line
    }
    $2 ~ /^[0-9]+$/ {
      thread = $1; sub(/-[0-9]+$/, "", thread); name = $4
      sub(/^syscalls:sys_enter_/, "", name); sub(/^raw_syscalls:sys_enter$/, "syscalls", name)
      if (!((0, name) in seen)) { seen[0, name] = 1; order[++k] = name }
      if (!(thread in threads)) { threads[thread] = 1; names[++t] = thread }
      count[thread, name] += $2; count["", name] += $2
    }
    END {
      printf "%-12s %d DORAs, %.3f transactions/DORA (%.1f records each)\n", store, n,
             commits / n, (commits > 0 ? records / commits : 0)
      show("per DORA:", "", n)
      for (i = 1; i <= t; i++) show(names[i] " per DORA:", names[i], n)
      if (commits > 0 && ("store-commit" in threads)) show("store-commit per commit:", "store-commit", commits)
    }' "$work/$store.perf"
done
