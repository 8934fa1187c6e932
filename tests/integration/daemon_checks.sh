# Sourced by every integration script (and tools/lab) that starts a daemon: the end-of-test
# checks that a daemon which served the test is still alive, stops cleanly on SIGTERM and left
# no sanitizer report in its log. Each prints one FAIL line and returns 1 on a violation.

# daemon_log_clean LOG NAME: no ASan, LeakSanitizer or UBSan report in LOG.
daemon_log_clean() {
  local log=$1 name=$2
  if grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$log" 2>/dev/null; then
    echo "FAIL: sanitizer report in $name's log $log:"
    grep -m 5 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$log"
    return 1
  fi
}

# daemon_wait_exit PID SECONDS: waits (bounded) for PID to exit; false if it is still running.
daemon_wait_exit() {
  local pid=$1 seconds=$2 i
  for i in $(seq $((seconds * 20))); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
  ! kill -0 "$pid" 2>/dev/null
}

# daemon_stop_and_check PID LOG NAME: PID (a child of this shell) must still be running; it gets
# SIGTERM and must exit with status 0 within 10 s; then its log must be clean.
daemon_stop_and_check() {
  local pid=$1 log=$2 name=$3 status=0
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || status=$?
    echo "FAIL: $name (pid $pid) died during the test (exit status $status): $(tail -5 "$log")"
    return 1
  fi
  daemon_term_and_check "$pid" "$log" "$name"
}

# daemon_term_and_check PID LOG NAME: SIGTERM to PID if it still runs (a test may have sent it
# already), then its exit status must be 0 and its log clean.
daemon_term_and_check() {
  local pid=$1 log=$2 name=$3 status=0
  kill -TERM "$pid" 2>/dev/null || true
  if ! daemon_wait_exit "$pid" 10; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "FAIL: $name (pid $pid) did not exit within 10 s of SIGTERM"
    return 1
  fi
  wait "$pid" 2>/dev/null || status=$?
  if ((status != 0)); then
    echo "FAIL: $name (pid $pid) exit status $status on SIGTERM, want 0: $(tail -5 "$log")"
    return 1
  fi
  daemon_log_clean "$log" "$name"
}

# daemon_wait_listening PID SECONDS NETNS PORT [ADDRESS]: until something listens on UDP PORT
# (on ADDRESS if given) in network namespace NETNS ("" for this one). False if PID exits first
# or SECONDS pass: what "the daemon is ready" means, instead of a fixed sleep.
daemon_wait_listening() {
  local pid=$1 seconds=$2 netns=$3 port=$4 address=${5:-} filter i
  filter="sport = :$port"
  [[ -z $address ]] || filter="src $address and $filter"
  local run=()
  [[ -z $netns ]] || run=(ip netns exec "$netns")
  for i in $(seq $((seconds * 20))); do
    kill -0 "$pid" 2>/dev/null || return 1
    "${run[@]}" ss -Huln "$filter" 2>/dev/null | grep -q . && return 0
    sleep 0.05
  done
  return 1
}
