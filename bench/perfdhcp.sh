# Sourced by bench/run: driving perfdhcp from the client namespace and reading its report.
#
# perfdhcp runs on the client end of the veth (-l IFACE) as a relay agent: it broadcasts from
# port 67 with giaddr set to its own address, and servers answer it by unicast (tcpdump in the
# lab; bench/README.md). Every call has a duration
# (-p) or a count (-n) and an outer `timeout`, so no load loop can run unbounded.

perf_cpu="0"           # CPU perfdhcp is pinned to ("-" = not pinned); the server gets the other
perf_clients=100000    # distinct client MACs; fewer than the pool holds, so it never runs dry

# children_cpu_s FILE: user + system seconds of every child this shell has waited for, read
# later from FILE. `times` must run in this shell, not in a $(...) subshell: a fork starts
# its children's account at zero.
children_cpu_s() { times >"$1"; }
times_file_cpu_s() {
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

# perf_run OUT TIMEOUT_S ARGS...: one perfdhcp run; its whole report goes to OUT, and its CPU
# seconds (user + system; perfdhcp is the one process here doing real work) to perf_cpu_s.
# Exit status 3 (some exchanges not completed) is a measurement, not a failure.
perf_run() {
  local out=$1 limit_s=$2
  shift 2
  lab_prefix "$perf_cpu"
  local status=0
  children_cpu_s "$lab_dir/times-before.txt"
  ip netns exec "$lab_client_ns" timeout -k 5 "$limit_s" "${lab_prefix_command[@]}" \
    perfdhcp -4 -l "$lab_client_if" "$@" >"$out" 2>&1 || status=$?
  children_cpu_s "$lab_dir/times-after.txt"
  perf_cpu_s=$(awk -v a="$(times_file_cpu_s "$lab_dir/times-before.txt")" \
    -v b="$(times_file_cpu_s "$lab_dir/times-after.txt")" 'BEGIN { printf "%.3f", b - a }')
  if ((status != 0 && status != 3)); then
    lab_log "perfdhcp $* exited $status; see $out"
    tail -5 "$out" >&2
    return 1
  fi
}

# perf_stat OUT SECTION KEY: one number from a "***Statistics for: SECTION***" block,
# e.g. perf_stat f REQUEST-ACK "received packets"; units (" ms", " %") are dropped.
perf_stat() {
  awk -v section="$2" -v key="$3" '
    /^\*\*\*Statistics for: / { inside = index($0, section) > 0; next }
    /^\*\*\*/ { inside = 0 }
    inside && index($0, key ":") == 1 { split($0, kv, ": "); sub(/ .*/, "", kv[2]); print kv[2]; exit }
  ' "$1"
}

# perf_packets OUT: DHCP packets perfdhcp sent and received, all four kinds.
perf_packets() {
  awk '/^(sent|received) packets: / { n += $3 } END { print n + 0 }' "$1"
}

# perf_rate OUT: perfdhcp's own "Rate:" line, 4-way exchanges completed per second.
perf_rate() { awk '/^Rate: / { print $2; exit }' "$1"; }

# perf_latency_ms OUT: p50 p99 p99.9 max (ms, nearest rank) of REQUEST->ACK over every
# completed exchange, from the per-exchange timestamps `-x t` prints. perfdhcp's own report
# has only min/avg/max/stddev.
perf_latency_ms() {
  awk '
    /^\*\*\*Timestamps for packets: / { inside = index($0, "REQUEST-ACK") > 0; next }
    /^\*\*\*/ { inside = 0 }
    inside && /^sent \/ received: / { printf "%.6f\n", ($6 - $4) * 1000 }
  ' "$1" | sort -g | awk '
    { v[NR] = $1 }
    function rank(p) { r = int(p * NR + 0.999999); if (r < 1) r = 1; if (r > NR) r = NR; return v[r] }
    END { if (NR == 0) { print "- - - -"; exit } printf "%.3f %.3f %.3f %.3f\n", rank(0.50), rank(0.99), rank(0.999), v[NR] }
  '
}

# perf_unique_leases OUT: distinct addresses ACKed, from the `-x l` lease listing.
perf_unique_leases() {
  awk '
    /^\*\*\*Leases for / { inside = index($0, "REQUEST-ACK") > 0; next }
    /^\*\*\*/ { inside = 0 }
    inside && /^[0-9a-f]+,[0-9.]+,/ { split($0, f, ","); print f[2] }
  ' "$1" | sort -u | wc -l
}

# perf_warm_up: a DORA from a client outside the benchmark's MAC range, retried a few times,
# so each server has answered once (lazy set-up) before anything is measured. perfdhcp -n N
# stops at the Nth DISCOVER without waiting for its exchange, so N = 3 completes 1 or 2.
perf_warm_up() {
  local out=$lab_dir/warm-up.txt tries
  for ((tries = 0; tries < 10; tries++)); do
    perf_run "$out" 10 -b mac=02:00:00:ff:ff:01 -R 1 -n 3 -r 20 || true
    if (("$(perf_stat "$out" REQUEST-ACK "received packets")" >= 1)); then
      return 0
    fi
  done
  lab_log "warm-up DORA never completed; see $out"
  return 1
}
