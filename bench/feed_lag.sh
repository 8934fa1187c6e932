#!/usr/bin/env bash
# The PostgreSQL change feed (issue #14): how long a server takes to learn another's write
# (from the writer's commit returning to the row reaching the reader's event loop), and what the
# polling costs the database, for each sync-interval given. bench/feed_lag (the daemon's
# server::ViewSync against a throwaway cluster on a UNIX socket, tests/support/postgres_cluster.sh):
# 400 single-lease commits 23 ms apart per interval, then 20 s of polling with no writes, during
# which the cluster's CPU time (its processes' utime + stime, /proc) is read; the same with no
# feed at all is the baseline.
#   bench/feed_lag.sh [BUILD_DIR] [INTERVAL_MS...]     (default build/release, 100 10)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
shift || true
intervals=("$@")
((${#intervals[@]})) || intervals=(100 10)
program=$build/bench/feed_lag
[[ -x $program ]] || { echo "no $program (build the target feed_lag)" >&2; exit 1; }
pgdir=/tmp/llpg-feedlag-$$
cleanup() { "$repo/tests/support/postgres_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM
"$repo/tests/support/postgres_cluster.sh" start "$pgdir"
postmaster=$(head -n 1 "$pgdir/data/postmaster.pid")
ticks_per_s=$(getconf CLK_TCK)

cluster_ticks() {  # CPU time of the cluster, in clock ticks: the postmaster's own and that of
  # its children gone (cutime, cstime: a backend ends with its connection), plus the live ones'
  local total pid fields
  fields=$(cut -d')' -f2 "/proc/$postmaster/stat")
  total=$(awk '{print $12 + $13 + $14 + $15}' <<<"$fields")
  for pid in $(ps -o pid= --ppid "$postmaster"); do
    fields=$(cut -d')' -f2 "/proc/$pid/stat" 2>/dev/null) || continue
    total=$((total + $(awk '{print $12 + $13}' <<<"$fields")))
  done
  echo "$total"
}
cpu_ms_per_s() {  # TICKS_BEFORE TICKS_AFTER SECONDS
  echo $(( ($2 - $1) * 1000 / ticks_per_s / $3 ))
}

before=$(cluster_ticks)
sleep 10
echo "baseline (no feed): cluster CPU $(cpu_ms_per_s "$before" "$(cluster_ticks)" 10) ms/s"
echo "interval_ms writes lag_p50_ms lag_p99_ms lag_max_ms idle_cluster_cpu_ms_per_s"
for interval in "${intervals[@]}"; do
  url="host=$pgdir user=landlord dbname=lag$interval"
  psql -X -q "host=$pgdir user=landlord dbname=landlord" -c "CREATE DATABASE lag$interval"
  lags=$("$program" "$url" --interval-ms "$interval" --writes 400 --gap-ms 23 --idle-s 0 2>/dev/null)
  before=$(cluster_ticks)
  "$program" "$url" --interval-ms "$interval" --writes 0 --idle-s 20 >/dev/null 2>&1
  echo "$lags $(cpu_ms_per_s "$before" "$(cluster_ticks)" 20)"
done
