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
# With LOOP_TURNS_SCHED=1 it also records the scheduler's switches (sched:sched_switch) and
# splits each turn into time on a CPU (the handlers' own work) and time off it, preempted
# (runnable, waiting for a CPU) or blocked (a lock, a page fault's I/O): a second line with the
# on-CPU p50 / p99 / max and the longest turn's parts, so a long turn is told apart from a turn
# that waited for a CPU.
set -euo pipefail
pid=$1
seconds=$2
label=${3:-loop}
watch=${4:-}
command -v perf >/dev/null || { echo "loop_turns: needs perf" >&2; exit 2; }
data=$(mktemp /tmp/loop_turns.XXXXXX)
trap 'rm -f "$data" "$data.turns" "$data.cpu" "$data.by"' EXIT
# System-wide (-a): this kernel records no syscall tracepoints for perf record -t; only the loop
# thread's events are kept below.
sched=()
if [[ ${LOOP_TURNS_SCHED:-0} == 1 ]]; then sched=(-e sched:sched_switch); fi
perf record -q -a -e syscalls:sys_enter_epoll_wait -e syscalls:sys_exit_epoll_wait "${sched[@]}" -o "$data" \
  -- timeout "$seconds" bash -c "while [[ -z '$watch' ]] || kill -0 '$watch' 2>/dev/null; do sleep 0.1; done" \
  >/dev/null 2>&1 || true
if [[ ${LOOP_TURNS_SCHED:-0} == 1 ]]; then
  # Per turn: wall, off-CPU preempted, off-CPU blocked (ms). A switch out of the loop thread is
  # an event of that thread (prev_pid); the switch back in is another task's (next_pid).
  perf script -i "$data" -F tid,time,event,trace 2>/dev/null | awk -v tid="$pid" '
    { gsub(":", "", $2); t = $2 + 0 }
    /sys_exit_epoll_wait/ { if ($1 == tid) { left = t; off_r = 0; off_s = 0; out = 0 } next }
    /sys_enter_epoll_wait/ {
      if ($1 == tid && left > 0) printf "%.6f %.6f %.6f\n", (t - left) * 1000, off_r * 1000, off_s * 1000
      if ($1 == tid) left = 0
      next
    }
    /sched_switch/ {
      if (left == 0) next
      if (index($0, "prev_pid=" tid " ") > 0) {
        out = t; runnable = (index($0, "prev_state=R") > 0)
        by = $0; sub(/.*next_comm=/, "", by); sub(/ next_pid=.*/, "", by)
      } else if (out > 0 && index($0, "next_pid=" tid " ") > 0) {
        if (runnable) { off_r += t - out; taken[by] += t - out } else off_s += t - out
        out = 0
      }
    }
    END { for (c in taken) printf "%.1f %s\n", taken[c] * 1000, c > "/dev/stderr" }' >"$data.turns" 2>"$data.by"
  sort -g -k1,1 "$data.turns" | awk -v label="$label" '
    { n++; cpu = $1 - $2 - $3; tr += $2; ts += $3; lw = $1; lr = $2; ls = $3; print cpu > "/dev/stderr" }
    END {
      if (n == 0) exit
      printf "%s: off-CPU in turns: preempted %.1f ms, blocked %.1f ms in all; longest turn %.3f ms = %.3f on CPU + %.3f preempted + %.3f blocked\n",
        label, tr, ts, lw, lw - lr - ls, lr, ls
    }' 2>"$data.cpu"
  sort -g "$data.cpu" | awk -v label="$label" '
    { c[++n] = $1 }
    function at(q) { i = int(n * q) + 1; return c[i > n ? n : i] }
    END { if (n > 0) printf "%s: on-CPU per turn p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms\n", label, at(0.5), at(0.99), at(0.999), c[n] }'
  # Who ran instead while the loop thread waited for a CPU in a turn (the task switched to when it
  # was preempted; others may have run before it got the CPU back), the five largest.
  sort -gr "$data.by" | head -5 | awk -v label="$label" '
    { line = line (NR > 1 ? ", " : "") $2 " " $1 " ms" }
    END { if (NR > 0) printf "%s: preempted by (ms of the turns): %s\n", label, line }'
  rm -f "$data.turns" "$data.cpu" "$data.by"
fi
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
