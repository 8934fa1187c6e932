#!/usr/bin/env bash
# The PostgreSQL change feed (issue #14): how long a server takes to learn another's write (from
# the writer's commit returning to the row reaching the reader's event loop), and what it costs
# the database, polling by snapshot every sync-interval (mode poll) against LISTEN/NOTIFY as a
# wake-up for the same poll (mode notify, store.sync-notify; its fallback poll every 1 s).
# bench/feed_lag (the daemon's server::ViewSync) against a throwaway cluster on a UNIX socket
# (tests/support/postgres_cluster.sh), for each mode:
#   lag:  400 single-lease commits 23 ms apart;
#   idle: 20 s of the feed with no writes;
#   load: 3000 commits of 8 leases back to back (the writer as fast as the database commits).
# Around idle and load runs: the cluster's CPU time (its processes' utime + stime, /proc) and
# its transactions (pg_stat_database xact_commit + xact_rollback of the run's database), per
# second. Mode none (no feed, the writer alone) is the baseline.
#   bench/feed_lag.sh [BUILD_DIR] [POLL_INTERVAL_MS...]   (default build/release, 100 10)
# FEED_LAG_PHASES (default "lag idle load") picks the phases; FEED_LAG_REPEAT (default 1) runs
# each phase's modes that many times, interleaved; FEED_LAG_NOTIFY_INTERVAL_MS (1000) is the
# notify mode's fallback poll; FEED_LAG_LOAD_WRITES (3000) the load's commits;
# FEED_LAG_NOTIFY_COALESCE_MS (unset: the store's kNotifyInterval) the writer's least gap between
# NOTIFYs (feed_lag --notify-interval-ms).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
shift || true
intervals=("$@")
((${#intervals[@]})) || intervals=(100 10)
notify_interval=${FEED_LAG_NOTIFY_INTERVAL_MS:-1000}
coalesce=()
[[ -z ${FEED_LAG_NOTIFY_COALESCE_MS:-} ]] || coalesce=(--notify-interval-ms "$FEED_LAG_NOTIFY_COALESCE_MS")
load_writes=${FEED_LAG_LOAD_WRITES:-3000}
phases=${FEED_LAG_PHASES:-lag idle load}
repeat=${FEED_LAG_REPEAT:-1}
program=$build/bench/feed_lag
[[ -x $program ]] || { echo "no $program (build the target feed_lag)" >&2; exit 1; }
pgdir=/tmp/llpg-feedlag-$$
cleanup() { "$repo/tests/support/postgres_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM
"$repo/tests/support/postgres_cluster.sh" start "$pgdir"
postmaster=$(head -n 1 "$pgdir/data/postmaster.pid")
ticks_per_s=$(getconf CLK_TCK)
psql_landlord() { psql -X -q -A -t "host=$pgdir user=landlord dbname=landlord" -c "$1"; }

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
transactions() {  # DATABASE: its transactions so far (a backend's count is in at its exit)
  psql_landlord "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$1'"
}
fresh_database() {  # a new database per run (called in $(...): the name cannot be a counter)
  local name="feed_$(date +%s%N)"
  psql_landlord "CREATE DATABASE $name"
  echo "$name"
}
# measured MODE INTERVAL ARGS...: one run in a fresh database; prints the program's line, then the
# cluster's CPU ms/s and transactions/s over the run's wall time, and both per commit
measured() {
  local mode=$1 interval=$2 database before_ticks before_xacts started ended line
  shift 2
  database=$(fresh_database)
  "$program" "host=$pgdir user=landlord dbname=$database" --mode "$mode" --interval-ms "$interval" \
    --writes 0 --idle-s 0 >/dev/null 2>&1  # creates the schema outside the measurement
  sleep 0.5
  before_xacts=$(transactions "$database")
  before_ticks=$(cluster_ticks)
  started=$(date +%s%N)
  line=$("$program" "host=$pgdir user=landlord dbname=$database" --mode "$mode" \
    --interval-ms "$interval" "${coalesce[@]}" "$@" 2>/dev/null)
  ended=$(date +%s%N)
  local ticks=$(( $(cluster_ticks) - before_ticks ))
  sleep 0.5
  local xacts=$(( $(transactions "$database") - before_xacts - 1 ))  # less our own reading
  awk -v line="$line" -v ticks="$ticks" -v hz="$ticks_per_s" -v ns=$((ended - started)) -v x="$xacts" \
    'BEGIN { s = ns / 1e9; split(line, f, " "); cpu = ticks * 1000 / hz
             if (f[3] > 0) per = sprintf(" %.2f %.2f", cpu / f[3], x / f[3]); else per = " - -"
             printf "%s %.1f %.0f%s\n", line, cpu / s, x / s, per }'
}

echo "# $(date -u '+%F %T UTC'); $(uptime)"
before=$(cluster_ticks)
sleep 10
echo "baseline (no client): cluster CPU $(( ($(cluster_ticks) - before) * 1000 / ticks_per_s / 10 )) ms/s"
runs=()
for interval in "${intervals[@]}"; do runs+=("poll $interval"); done
runs+=("notify $notify_interval")
header="mode interval_ms commits write_s commits_per_s lag_p50_ms lag_p99_ms lag_max_ms polls notified_polls notifies cluster_cpu_ms_per_s db_xacts_per_s cpu_ms_per_commit xacts_per_commit"
for phase in $phases; do
  case $phase in
    lag) echo "## lag: 400 commits of 1 lease, 23 ms apart"; phase_runs=("${runs[@]}")
         args=(--writes 400 --gap-ms 23 --batch 1 --idle-s 0) ;;
    idle) echo "## idle: 20 s, no writes"; phase_runs=("none 0" "${runs[@]}")
          args=(--writes 0 --idle-s 20) ;;
    load) echo "## load: $load_writes commits of 8 leases, back to back"; phase_runs=("none 0" "${runs[@]}")
          args=(--writes "$load_writes" --gap-ms 0 --batch 8 --idle-s 0) ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
  echo "$header"
  for ((round = 0; round < repeat; round++)); do
    for run in "${phase_runs[@]}"; do
      read -r mode interval <<<"$run"
      measured "$mode" "$interval" "${args[@]}"
    done
  done
done
echo "# $(date -u '+%F %T UTC'); $(uptime)"
