#!/usr/bin/env bash
# Issue #31, the held port: nothing landlord opens may outlive it in another process. Every
# descriptor of the running daemon (UDP socket, control listeners on UNIX and TCP, the
# connections they accepted, the store's files, the loop's own) must be close-on-exec, as
# /proc/PID/fdinfo shows; the events.exec hook gets only 0-2; and a hook that leaves a child
# running in the background (`sleep 300 &`) must not keep a restarted landlord from its port
# (before the fix: "port N on 127.0.0.1 is in use by another process").
# Usage: landlord_descriptors.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: landlord_descriptors.sh landlord crash_client}
CLIENT=${2:?usage: landlord_descriptors.sh landlord crash_client}
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
TEST_NAME=descriptors
source "$(dirname "$0")/crash_lib.sh"
test_cleanup() {
  local pid
  for pid in $(cat "$WORK"/background.* 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
}
PORT=$(free_udp_port) || fail "no free UDP port"
CONTROL_PORT=$(( (PORT + 1000) % 40000 + 20000 ))

cat >"$WORK/hook.sh" <<HOOK
#!/bin/sh
# left running after the hook exits, as a careless hook would
sleep 300 &
echo \$! > $WORK/background.\$\$
ls /proc/\$!/fd > $WORK/background-fds.\$\$
HOOK
chmod 755 "$WORK/hook.sh"
echo secret-token >"$WORK/token"
write_config "$WORK/landlord.yaml" "$PORT" "$WORK/leases.db" 10m "198.18.1.10-198.18.1.20"
cat >>"$WORK/landlord.yaml" <<YAML
control:
  socket: $WORK/control.sock
  listen: 127.0.0.1:$CONTROL_PORT
  token-file: $WORK/token
events:
  exec: $WORK/hook.sh
YAML
start_server "$WORK/landlord.yaml"

# Connections the listeners accepted, held open while we look.
curl -sN --max-time 30 --unix-socket "$WORK/control.sock" http://landlord/events >/dev/null 2>&1 &
EXTRA_PIDS+=($!)
curl -sN --max-time 30 -H "Authorization: Bearer secret-token" "http://127.0.0.1:$CONTROL_PORT/events" >/dev/null 2>&1 &
EXTRA_PIDS+=($!)
"$CLIENT" dora --server "127.0.0.1:$PORT" --ledger "$WORK/ledger" --clients 2 --seed 7 --window 2 \
  --duration-s 10 >"$WORK/dora.out" || true
[[ $(wc -l <"$WORK/ledger") -eq 2 ]] || fail "no service: $(tail -3 "$WORK/dora.out")"
for _ in $(seq 100); do
  compgen -G "$WORK/background-fds.*" >/dev/null && break
  sleep 0.1
done
compgen -G "$WORK/background-fds.*" >/dev/null || fail "the hook did not run: $(tail -3 "$SERVER_LOG")"
sleep 0.5  # the event streams' connections are accepted by now

# Every descriptor the daemon opened: the flags field of fdinfo is octal; O_CLOEXEC is 02000000.
# Not its standard streams, nor what it inherited from this shell (a test runner's descriptors:
# the numbers this shell holds open without close-on-exec are taken in the daemon by them).
inherited=" 0 1 2 "
for info in /proc/$$/fdinfo/*; do
  flags=$(awk '$1 == "flags:" { print $2 }' "$info" 2>/dev/null) || continue
  [[ -n $flags ]] && (( (8#$flags & 8#2000000) == 0 )) && inherited+="${info##*/} "
done
open_without=()
count=0
for info in /proc/"$SERVER_PID"/fdinfo/*; do
  fd=${info##*/}
  [[ $inherited == *" $fd "* ]] && continue
  flags=$(awk '$1 == "flags:" { print $2 }' "$info" 2>/dev/null) || continue
  [[ -n $flags ]] || continue
  count=$((count + 1))
  (( (8#$flags & 8#2000000) != 0 )) || open_without+=("$fd -> $(readlink "/proc/$SERVER_PID/fd/$fd" 2>/dev/null)")
done
echo "landlord holds $count descriptors: $(ls -l /proc/"$SERVER_PID"/fd | awk 'NR > 1 { print $NF }' | sort | uniq -c | awk '{ printf "%s×%s ", $1, $2 }')"
(( ${#open_without[@]} == 0 )) || fail "descriptors without close-on-exec: ${open_without[*]}"
(( count >= 8 )) || fail "only $count descriptors seen: did the test look at the daemon?"
ls -l /proc/"$SERVER_PID"/fd | grep -q "socket:" || fail "the daemon holds no socket?"

# The hook's background child: descriptors 0-2 only.
for listing in "$WORK"/background-fds.*; do
  extra=$(grep -vxE '[012]' "$listing" || true)
  [[ -z $extra ]] || fail "the hook's background child holds descriptors $(echo $extra) besides 0-2"
done

# A restart, the hook's children still running: the port is free.
pids=$(cat "$WORK"/background.*)
for pid in $pids; do kill -0 "$pid" 2>/dev/null || fail "the hook's background child $pid is gone already (the test needs it)"; done
stop_server || fail "landlord exited non-zero on SIGTERM"
start_server "$WORK/landlord.yaml"
grep -q "in use by another process" "$SERVER_LOG" && fail "restart: $(grep -m1 'in use' "$SERVER_LOG")"
stop_server || fail "the restarted landlord exited non-zero on SIGTERM"
echo "PASS: $count descriptors, all close-on-exec; the hook's background children ($(echo $pids)) held only 0-2; the restart bound port $PORT"
