#!/usr/bin/env bash
# Instructions per DORA of two landlord binaries, and where they differ: each daemon runs under
# valgrind's callgrind (SQLite store, loopback, relay mode), landlord-sim makes 20 warm-up
# DORAs, the counters are zeroed (callgrind_control -z), then CLIENTS new clients at RATE/s
# each make one DORA, and the dump's total Ir / ACKs is the figure. Then the functions whose
# inclusive count per DORA changed most. Repeatable on a busy machine; user space only.
#   bench/callgrind_compare.sh BEFORE_LANDLORD AFTER_LANDLORD [LANDLORD_SIM] [CLIENTS] [RATE]
# (defaults: build/release's landlord-sim, 1000 clients, 25/s as bench/run --callgrind).
# A binary without --allow-root (older than 2026-11-30) is started without it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
before=$1 after=$2
sim=${3:-$repo/build/release/tools/landlord-sim/landlord-sim}
clients=${4:-1000}
rate=${5:-25}
for tool in valgrind callgrind_control callgrind_annotate jq; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install valgrind jq)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/callgrind-compare.XXXXXX)
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

measure() {  # NAME BINARY -> $work/NAME.tsv (function \t Ir per DORA), prints Ir per DORA
  local name=$1 binary=$2 dir=$work/$1 port
  mkdir -p "$dir"
  port=$((30000 + RANDOM % 20000))
  while ss -Huln "sport = :$port or sport = :$((port + 1))" | grep -q .; do port=$((port + 2)); done
  cat >"$dir/landlord.yaml" <<YAML
server:
  listen: 127.0.0.1:$port
store:
  type: sqlite
  path: $dir/leases.db
lease:
  time: 1h
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.0-198.18.254.255]
    relays: [127.0.0.1]
log:
  level: warn
YAML
  local root_flag=()
  "$binary" --help 2>&1 | grep -q -- --allow-root && root_flag=(--allow-root)
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$binary" "${root_flag[@]}" -c "$dir/landlord.yaml" \
    >"$dir/landlord.log" 2>&1 &
  server_pid=$!
  sleep 8
  local sim_args=(--server "127.0.0.1:$port" --bind "127.0.0.1:$((port + 1))" --stay 1h)
  "$sim" "${sim_args[@]}" --clients 20 --rate 20 --duration 4s --seed 1 >/dev/null 2>&1 || true
  callgrind_control -z "$server_pid" >/dev/null
  "$sim" "${sim_args[@]}" --clients "$clients" --rate "$rate" --duration "$((clients / rate + 6))s" --seed 7 \
    --report "$dir/report.json" >"$dir/sim.out" 2>&1 || true
  callgrind_control -d "$server_pid" >/dev/null
  sleep 1
  kill -TERM "$server_pid"; wait "$server_pid" || true
  server_pid=""
  local dump acks
  dump=$(ls -t "$dir"/cg.out.* | head -1)
  acks=$(jq '.leases_acquired' "$dir/report.json")
  ((acks > 0)) || { echo "$name: no DORA completed (see $dir)" >&2; exit 1; }
  callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$dump" 2>/dev/null |
    awk -v acks="$acks" '/^ *[0-9,]+ +\( *[0-9.]+%\) / {
        ir = $1; gsub(",", "", ir); line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line)
        sub(/ \[[^]]*\]$/, "", line); sub(/^[^ ]*\.(cpp|hpp|h|c|S|ipp|tcc):/, "", line); sub(/^\?\?\?:/, "", line)
        if (line !~ /lambda/) sub(/\(.*$/, "", line)
        if (ir / acks > sum[line]) sum[line] = ir / acks }  # inclusive: a function listed under two files counts once
      END { for (f in sum) printf "%s\t%.0f\n", f, sum[f] }' | sort >"$work/$name.tsv"
  awk -F'\t' '$1 == "PROGRAM TOTALS" { print $2 }' "$work/$name.tsv"
}

ir_before=$(measure before "$before")
ir_after=$(measure after "$after")
echo "instructions per DORA: before $ir_before, after $ir_after ($(awk -v a="$ir_before" -v b="$ir_after" 'BEGIN { printf "%+.1f %%", (b - a) * 100 / a }'))"
echo "functions whose inclusive instructions per DORA changed most (before, after, change):"
join -t$'\t' -a1 -a2 -e0 -o 0,1.2,2.2 "$work/before.tsv" "$work/after.tsv" |
  awk -F'\t' '$1 !~ /^(0x|\(below main\)|PROGRAM TOTALS|__libc_start|main$|clone|start_thread)/ {
      d = $3 - $2; printf "%d\t%8d %8d %+8d  %s\n", (d < 0 ? -d : d), $2, $3, d, substr($1, 1, 110) }' |
  sort -t$'\t' -k1,1nr | head -n 25 | cut -f2-
