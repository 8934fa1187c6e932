#!/usr/bin/env bash
# How long landlord's event loop goes without looking for packets (issue #17): records, for
# SECONDS, the epoll_wait(2) calls of the daemon's loop thread (its main thread) with perf's
# syscall tracepoints, and prints the gaps between leaving one and entering the next. Each gap is
# one turn of the loop: the handlers that were ready when it last polled, run back to back, plus
# any time the thread was preempted meanwhile; a datagram that arrives during a turn is not
# seen before the turn ends. Read-only: perf watches and changes nothing.
#   bench/loop_turns.sh PID SECONDS [LABEL [WATCH_PID]]    (root; needs perf with syscall tracepoints)
# With WATCH_PID, recording stops as soon as that process ends (SECONDS is then the most).
# Prints: LABEL turns N, gap p50 / p99 / p99.9 / max in ms.
set -euo pipefail
pid=$1
seconds=$2
label=${3:-loop}
watch=${4:-}
command -v perf >/dev/null || { echo "loop_turns: needs perf" >&2; exit 2; }
data=$(mktemp /tmp/loop_turns.XXXXXX)
trap 'rm -f "$data"' EXIT
# System-wide (-a): this kernel records no syscall tracepoints for perf record -t; only the loop
# thread's events are kept below.
perf record -q -a -e syscalls:sys_enter_epoll_wait -e syscalls:sys_exit_epoll_wait -o "$data" \
  -- timeout "$seconds" bash -c "while [[ -z '$watch' ]] || kill -0 '$watch' 2>/dev/null; do sleep 0.1; done" \
  >/dev/null 2>&1 || true
perf script -i "$data" -F tid,time,event 2>/dev/null | awk -v tid="$pid" '
  $1 != tid { next }
  { gsub(":", "", $2); t = $2 + 0 }
  /sys_exit_epoll_wait/ { left = t; next }
  /sys_enter_epoll_wait/ { if (left > 0) printf "%.6f\n", (t - left) * 1000; left = 0 }' |
  sort -g | awk -v label="$label" '
  { gap[++n] = $1 }
  function at(q) { i = int(n * q) + 1; return gap[i > n ? n : i] }
  END {
    if (n == 0) { printf "%s: no turns recorded\n", label; exit }
    printf "%s: turns %d, gap p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms\n", label, n, at(0.5), at(0.99), at(0.999), gap[n]
  }'
