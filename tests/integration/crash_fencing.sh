#!/usr/bin/env bash
# Issue #4, fencing at the daemon level: an old writer that was paused must not overwrite a
# grant made while it slept, and must not ACK it.
#   1. daemon A (port PA) grants the single pool address X to client 1;
#   2. A is paused (SIGSTOP), as a hung or partitioned server would be;
#   3. daemon B starts on the same store file (port PB): client 1 releases X through B and
#      client 2 is granted X by B, which raises X's fencing token;
#   4. A resumes (SIGCONT) and client 1 asks A to extend X (INIT-REBOOT). A still believes
#      client 1 holds X: its engine says ACK, the store refuses the stale token, and A must send
#      nothing, log the refusal, and keep serving. The store still gives X to client 2.
# Usage: crash_fencing.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: crash_fencing.sh landlord crash_client}
CLIENT=${2:?usage: crash_fencing.sh landlord crash_client}
TEST_NAME=crash_fencing
source "$(dirname "$0")/crash_lib.sh"
two_servers_one_address

start_server "$WORK/a.yaml"
PID_A=$SERVER_PID LOG_A=$SERVER_LOG
EXTRA_PIDS+=("$PID_A")
"$CLIENT" dora --server "127.0.0.1:$PORT_A" --ledger "$WORK/one.txt" --clients 1 --seed 21 \
  --duration-s 10 >"$WORK/one.out" || fail "crash_client: $(cat "$WORK/one.out")"
[[ $(wc -l <"$WORK/one.txt") -eq 1 ]] || fail "client 1 got no lease from A: $(cat "$WORK/one.out")"
echo "A granted: $(holder)"

kill -STOP "$PID_A"
start_server "$WORK/b.yaml"
PID_B=$SERVER_PID LOG_B=$SERVER_LOG
"$CLIENT" release --server "127.0.0.1:$PORT_B" --ledger "$WORK/one.txt" >/dev/null
wait_for_log "$LOG_B" "release 198.18.1.10" 5 "$PID_B" || fail "B did not log client 1's release"
"$CLIENT" dora --server "127.0.0.1:$PORT_B" --ledger "$WORK/two.txt" --clients 1 --seed 22 \
  --duration-s 10 >"$WORK/two.out" || fail "crash_client: $(cat "$WORK/two.out")"
[[ $(cut -d' ' -f6 "$WORK/two.txt") == 198.18.1.10 ]] || fail "B did not re-grant X to client 2: $(cat "$WORK/two.out")"
after_regrant=$(holder)
echo "B re-granted: $after_regrant"

kill -CONT "$PID_A"
status=0
"$CLIENT" check --server "127.0.0.1:$PORT_A" --ledger "$WORK/one.txt" --expect no-ack \
  >"$WORK/stale.out" || status=$?
echo "client 1 asks A to extend: $(tail -1 "$WORK/stale.out")"
case $status in
  0) ;;
  1) fail "A acknowledged a lease the store had given to another client: $(cat "$WORK/stale.out")" ;;
  3) fail "A did not answer after SIGCONT (silence from a dead server is no refusal): $(cat "$WORK/stale.out")" ;;
  *) fail "crash_client check exited $status: $(cat "$WORK/stale.out")" ;;
esac
grep -q "stale fencing token" "$LOG_A" || fail "A did not log the refused write: $(tail -5 "$LOG_A")"
kill -0 "$PID_A" 2>/dev/null || fail "A stopped after the refusal"
[[ $(holder) == "$after_regrant" ]] || fail "the store changed under the stale writer: $(holder)"
"$CLIENT" check --server "127.0.0.1:$PORT_B" --ledger "$WORK/two.txt" --expect ack >"$WORK/holder.out" ||
  fail "B no longer honours client 2: $(cat "$WORK/holder.out")"

stop_server || fail "daemon B at the end"
SERVER_PID=$PID_A
stop_server "$LOG_A" || fail "daemon A at the end"
echo "RESULT stale_extension_acked=0 refusals_logged=$(grep -c 'stale fencing token' "$LOG_A")" \
     "store: $after_regrant"
echo "PASS: the paused writer's extension was refused by the store and not acknowledged"
