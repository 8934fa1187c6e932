#!/usr/bin/env bash
# One server per port: a second landlord on a port another one holds must refuse to start
# (exit 1, "port N on ADDR is in use by another process") rather than share it — two lease
# tables answering the same clients hand out the same addresses twice. A restart right after
# SIGTERM still binds (UDP has no TIME_WAIT). Two daemons on different ports stay possible.
# Usage: landlord_port_in_use.sh path/to/landlord
set -euo pipefail
LANDLORD=${1:?usage: landlord_port_in_use.sh landlord}
TEST_NAME=port_in_use
source "$(dirname "$0")/crash_lib.sh"
PORT=$(free_udp_port) || fail "no free UDP port"

write_config "$WORK/first.yaml" "$PORT" "$WORK/first.db" 60s "198.18.1.10-198.18.1.20"
write_config "$WORK/second.yaml" "$PORT" "$WORK/second.db" 60s "198.18.1.10-198.18.1.20"
start_server "$WORK/first.yaml"
FIRST_PID=$SERVER_PID

status=0
timeout 10 "$LANDLORD" --allow-root --config "$WORK/second.yaml" >"$WORK/second.log" 2>&1 || status=$?
echo "second instance on port $PORT: exit $status: $(tail -1 "$WORK/second.log")"
[[ $status -eq 1 ]] || fail "the second instance exited $status, expected 1: $(cat "$WORK/second.log")"
grep -q "port $PORT on 127.0.0.1 is in use by another process" "$WORK/second.log" ||
  fail "the second instance does not say the port is in use: $(cat "$WORK/second.log")"
! grep -q "serving on" "$WORK/second.log" || fail "the second instance served"
kill -0 "$FIRST_PID" 2>/dev/null || fail "the first instance died"

# Another port is another server: allowed.
OTHER_PORT=$(free_udp_port) || fail "no free UDP port"
write_config "$WORK/other.yaml" "$OTHER_PORT" "$WORK/other.db" 60s "198.18.1.10-198.18.1.20"
"$LANDLORD" --allow-root --config "$WORK/other.yaml" >"$WORK/other.log" 2>&1 &
OTHER_PID=$!
EXTRA_PIDS+=("$OTHER_PID")
wait_for_log "$WORK/other.log" "serving on" 20 "$OTHER_PID" ||
  fail "a server on another port did not start: $(tail -3 "$WORK/other.log")"
daemon_stop_and_check "$OTHER_PID" "$WORK/other.log" "the server on another port" || fail "see above"

# Restart right after SIGTERM: binds at once.
stop_server || fail "landlord exited non-zero on SIGTERM"
start_server "$WORK/first.yaml"
stop_server || fail "the restarted landlord exited non-zero on SIGTERM"
echo "PASS: a second landlord on port $PORT refused to start; another port and a restart work"
