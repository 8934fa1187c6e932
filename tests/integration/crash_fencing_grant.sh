#!/usr/bin/env bash
# Issue #4, fencing against a stale *grant* (crash_fencing.sh covers a stale extension):
#   1. daemon A starts on an empty store whose pool is the single address X, and is paused;
#   2. daemon B starts on the same store file and grants X to client 2;
#   3. A resumes. It still believes X was never granted, so it offers X to client 3 and, on
#      its REQUEST, writes a first grant of X. That write carries the same fencing token as B's
#      grant (both are "the first holder of X"), so a token-only fence lets it overwrite B's
#      grant: X would be ACKed to two clients at once.
# Expected: A does not ACK client 3, logs the store's refusal of the stale token, stays alive and
# answering, and stops cleanly (exit 0 on SIGTERM); the store still gives X to client 2.
# Usage: crash_fencing_grant.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: crash_fencing_grant.sh landlord crash_client}
CLIENT=${2:?usage: crash_fencing_grant.sh landlord crash_client}
TEST_NAME=crash_fencing_grant
source "$(dirname "$0")/crash_lib.sh"
two_servers_one_address

start_server "$WORK/a.yaml"
PID_A=$SERVER_PID LOG_A=$SERVER_LOG
EXTRA_PIDS+=("$PID_A")
kill -STOP "$PID_A"
start_server "$WORK/b.yaml"
PID_B=$SERVER_PID LOG_B=$SERVER_LOG
"$CLIENT" dora --server "127.0.0.1:$PORT_B" --ledger "$WORK/two.txt" --clients 1 --seed 22 \
  --duration-s 10 >"$WORK/two.out" || fail "crash_client: $(cat "$WORK/two.out")"
[[ $(wc -l <"$WORK/two.txt") -eq 1 ]] || fail "B granted nothing: $(cat "$WORK/two.out")"
granted=$(holder)
echo "B granted: $granted"

kill -CONT "$PID_A"
"$CLIENT" dora --server "127.0.0.1:$PORT_A" --ledger "$WORK/three.txt" --clients 1 --seed 23 \
  --duration-s 4 >"$WORK/three.out" || fail "crash_client: $(cat "$WORK/three.out")"
stale_acks=$(wc -l <"$WORK/three.txt")
echo "A, stale, to client 3: $(cat "$WORK/three.out"); store now: $(holder)"
echo "A's log: $(grep -m1 "198.18.1.10" "$LOG_A" || echo '<nothing about X>')"
echo "RESULT stale_grant_acked=$stale_acks store_after=\"$(holder)\""
((stale_acks == 0)) || fail "A ACKed X to client 3 while the store gave it to client 2"
[[ $(holder) == "$granted" ]] || fail "the stale grant overwrote the store: $(holder)"
# No ACK must be A's refusal, not A being gone: it logged the refused write and still answers.
wait_for_log "$LOG_A" "stale fencing token" 5 "$PID_A" ||
  fail "A did not log the store's refusal of its stale grant: $(tail -5 "$LOG_A")"
kill -0 "$PID_A" 2>/dev/null || fail "A stopped after the refusal: $(tail -5 "$LOG_A")"
"$CLIENT" probe --server "127.0.0.1:$PORT_A" >"$WORK/probe.out" ||
  fail "A does not answer after the refusal: $(cat "$WORK/probe.out")"
SERVER_PID=$PID_A
stop_server "$LOG_A" || fail "daemon A at the end"
SERVER_PID=$PID_B
stop_server "$LOG_B" || fail "daemon B at the end"
echo "RESULT refusals_logged=$(grep -c 'stale fencing token' "$LOG_A")"
echo "PASS: the stale daemon's grant was refused by the store, not acknowledged, and A kept serving"
