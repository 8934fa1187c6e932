#!/usr/bin/env bash
# Issue #16, a store that turns read-only while landlord runs under load. Two faults, each on an
# ext4 file system of the test's own (a loop-mounted image in a private mount namespace, so no
# mount or loop device outlives the test):
#   immutable:   the database file and its WAL are made immutable (chattr +i: even root's open
#                descriptors may no longer write; chmod would not stop a root daemon), then
#                writable again;
#   remount-ro:  the file system under the store and its WAL goes read-only as ext4 does on an
#                I/O error (errors=remount-ro, set off through ext4's trigger_fs_error).
# Under each fault: no grant or extension may be ACKed (an ACK promises a durable lease); bound
# clients' reboots get silence, never a NAK, and their rebinds an ACK cut to what remains of
# the lease the store holds (no further); landlord keeps running, the log says why and /metrics
# shows the store unhealthy with the failures counted by reason. The immutable store must then serve
# again by itself, without a restart, and every ACK be in the store. A file system the kernel
# made read-only after an error cannot be made writable again without unmounting it, which the
# daemon's open store prevents: there the operator stops landlord, checks and remounts the file
# system, starts landlord again, and nothing ACKed may be missing.
# Needs root, unshare -m, mkfs.ext4, chattr, curl and sqlite3; exits 77 (skipped) without them.
# Usage: crash_store_readonly.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: crash_store_readonly.sh landlord crash_client}
CLIENT=${2:?usage: crash_store_readonly.sh landlord crash_client}
for tool in sqlite3 mkfs.ext4 e2fsck chattr curl unshare; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (mounts)"; exit 77; }
if [[ -z ${CRASH_READONLY_UNSHARED:-} ]]; then
  unshare -m --propagation private true 2>/dev/null || { echo "SKIP: no unshare -m"; exit 77; }
  CRASH_READONLY_UNSHARED=1 exec unshare -m --propagation private "$0" "$@"
fi
TEST_NAME=crash_store_readonly
source "$(dirname "$0")/crash_lib.sh"
MOUNTS=()
test_cleanup() {
  local mount
  for mount in "${MOUNTS[@]}"; do umount "$mount" 2>/dev/null || true; done
}
PORT=$(free_udp_port) || fail "no free UDP port"
SERVER=127.0.0.1:$PORT
CLIENTS=24  # each phase's load: 24 bound clients, 24 new ones during the fault

acked() { [[ -f $1 ]] && wc -l <"$1" || echo 0; }
# store_holds DB LEDGER: every ledger line is a bound lease of its client in the store.
store_holds() {
  local address chaddr row
  while read -r _ _ _ chaddr _ address _; do
    row=$(sqlite3 -batch "$1" "SELECT state || ' ' || hwaddr FROM leases WHERE address = '$address';")
    [[ $row == "bound $chaddr" ]] || { echo "LOST $address $chaddr store: ${row:-no row}"; return 1; }
  done <"$2"
}
# An ext4 file system of 32 MiB at DIR, from the image DIR.img.
mount_ext4() {
  truncate -s 32M "$1.img"
  mkfs.ext4 -q -F "$1.img"
  mkdir -p "$1"
  mount -o loop,errors=remount-ro "$1.img" "$1"
  MOUNTS+=("$1")
}
# config NAME DB: the crash tests' config with a control socket for /metrics.
config() {
  write_config "$WORK/$1.yaml" "$PORT" "$2" 10m "198.18.1.0-198.18.1.255"
  printf 'control:\n  socket: %s\n' "$WORK/$1.sock" >>"$WORK/$1.yaml"
}
metrics() { curl -sS --max-time 5 --unix-socket "$WORK/$1.sock" http://landlord/metrics; }
metric() {  # metric NAME SERIES: its value, 0 when absent
  metrics "$1" | awk -v series="$2" '$1 == series { print $2; found = 1 } END { if (!found) print 0 }'
}
naks() { metric "$1" 'landlord_messages_sent_total{type="nak"}'; }

# under_fault NAME SEED: what must hold while the store cannot write, checked under load: new
# clients (none ACKed), the bound ones asking for their addresses again (silence, no NAK), the
# log and /metrics.
under_fault() {
  local name=$1 seed=$2 naks_before during status said
  naks_before=$(naks "$name")
  "$CLIENT" dora --server "$SERVER" --ledger "$WORK/$name.during" --clients "$CLIENTS" --seed "$seed" \
    --first 100 --window 8 --duration-s 4 >"$WORK/$name.during.out" || true
  status=0
  "$CLIENT" check --server "$SERVER" --ledger "$WORK/$name.before" --expect no-ack \
    >"$WORK/$name.check.out" 2>&1 || status=$?
  [[ $status -eq 0 ]] || fail "$name: bound clients' requests under the fault (exit $status): $(tail -3 "$WORK/$name.check.out")"
  # Their rebinds (ciaddr set, as at T2): answered from the lease the store holds, with what
  # remains of it, never past it, and without a write.
  status=0
  "$CLIENT" check --server "$SERVER" --ledger "$WORK/$name.before" --expect durable \
    >"$WORK/$name.rebind.out" 2>&1 || status=$?
  [[ $status -eq 0 ]] || fail "$name: bound clients' rebinds under the fault (exit $status): $(tail -3 "$WORK/$name.rebind.out")"
  during=$(acked "$WORK/$name.during")
  kill -0 "$SERVER_PID" 2>/dev/null || fail "$name: landlord died under the fault: $(tail -5 "$SERVER_LOG")"
  [[ $during -eq 0 ]] || fail "$name: $during grants ACKed while the store could not write"
  [[ $(naks "$name") == "$naks_before" ]] || fail "$name: bound clients were NAKed under the fault"
  metrics "$name" >"$WORK/$name.metrics"
  if command -v promtool >/dev/null; then
    promtool check metrics <"$WORK/$name.metrics" >/dev/null 2>&1 || fail "$name: promtool rejects /metrics"
  fi
  grep -qx 'landlord_store_healthy 0' "$WORK/$name.metrics" || fail "$name: /metrics does not show the store unhealthy"
  local read_only
  read_only=$(awk '$1 == "landlord_store_commit_failures_total{reason=\"read_only\"}" { print $2 }' "$WORK/$name.metrics")
  [[ ${read_only:-0} -gt 0 ]] || fail "$name: /metrics does not count the failures as read_only: $(grep commit_failures "$WORK/$name.metrics")"
  local answered
  answered=$(awk '$1 == "landlord_store_down_renewals_answered_total" { print $2 }' "$WORK/$name.metrics")
  [[ ${answered:-0} -ge $CLIENTS ]] || fail "$name: /metrics counts ${answered:-no} rebinds answered from the durable lease, not $CLIENTS"
  grep -q "answered from its durable lease" "$SERVER_LOG" || fail "$name: the log does not say rebinds were answered from the durable lease"
  said=$(grep -m1 "store commit failed" "$SERVER_LOG" || true)
  echo "$name: during the fault: 0 of $CLIENTS new clients ACKed; $CLIENTS bound clients' reboots unanswered, no NAK;" \
       "their rebinds ACKed from the durable lease ($(tail -1 "$WORK/$name.rebind.out")); read_only failures $read_only"
  echo "$name: log: ${said:-<nothing>}"
  grep -q "not acknowledging grants" <<<"$said" || fail "$name: the log does not say why grants are not ACKed"
}

# ---- immutable: chattr +i on the database file and its WAL, then -i --------------------------
mount_ext4 "$WORK/immutable"
config immutable "$WORK/immutable/leases.db"
start_server "$WORK/immutable.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/immutable.before" --clients "$CLIENTS" --seed 51 \
  --window 8 --duration-s 10 >/dev/null || true
[[ $(acked "$WORK/immutable.before") -eq $CLIENTS ]] || fail "immutable: no service before the fault"
[[ -f $WORK/immutable/leases.db-wal ]] || fail "immutable: the store has no WAL"
chattr +i "$WORK/immutable/leases.db" "$WORK/immutable/leases.db-wal"
under_fault immutable 52
grep -m1 "store commit failed" "$SERVER_LOG" | grep -q "Operation not permitted" ||
  fail "immutable: the log does not give the system's reason"
chattr -i "$WORK/immutable/leases.db" "$WORK/immutable/leases.db-wal"
cleared_ms=$(( $(date +%s%N) / 1000000 ))
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/immutable.after" --clients "$CLIENTS" --seed 52 \
  --first 100 --window 8 --duration-s 15 >"$WORK/immutable.after.out" || true
after=$(acked "$WORK/immutable.after")
[[ $after -eq $CLIENTS ]] || fail "immutable: service did not come back: $after of $CLIENTS: $(tail -3 "$WORK/immutable.after.out")"
first_ms=$(sort -k2 -n "$WORK/immutable.after" | head -1 | cut -d' ' -f2)
"$CLIENT" check --server "$SERVER" --ledger "$WORK/immutable.before" --expect ack >/dev/null ||
  fail "immutable: bound clients not served again after the fault"
grep -q "store recovered" "$SERVER_LOG" || fail "immutable: the log does not say the store recovered"
[[ $(metric immutable landlord_store_healthy) == 1 ]] || fail "immutable: /metrics still shows the store unhealthy"
echo "RESULT immutable: first ACK $(( first_ms - cleared_ms )) ms after the files were writable again;" \
     "$after of $CLIENTS new clients ACKed; bound clients served again"
stop_server || fail "immutable: landlord exited non-zero on SIGTERM: $(tail -3 "$SERVER_LOG")"
cat "$WORK/immutable.before" "$WORK/immutable.after" >"$WORK/immutable.all"
store_holds "$WORK/immutable/leases.db" "$WORK/immutable.all" || fail "immutable: an ACKed lease is not in the store"

# ---- remount-ro: ext4 turns itself read-only on an error, under the running daemon -------------
mount_ext4 "$WORK/remount"
config remount "$WORK/remount/leases.db"
start_server "$WORK/remount.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/remount.before" --clients "$CLIENTS" --seed 61 \
  --window 8 --duration-s 10 >/dev/null || true
[[ $(acked "$WORK/remount.before") -eq $CLIENTS ]] || fail "remount-ro: no service before the fault"
device=$(basename "$(findmnt -n -o SOURCE "$WORK/remount")")
echo 1 >"/sys/fs/ext4/$device/trigger_fs_error"
# Older kernels remount it `ro`; since Linux 6.x ext4 keeps the mount `rw` and marks the file
# system `emergency_ro` instead (writes and opens for writing get EROFS all the same).
findmnt -n -o OPTIONS "$WORK/remount" | grep -qE '(^|,)(ro|emergency_ro)(,|$)' ||
  fail "remount-ro: the file system did not go read-only: $(findmnt -n -o OPTIONS "$WORK/remount")"
under_fault remount 62
grep -m1 "store commit failed" "$SERVER_LOG" | grep -q "Read-only file system" ||
  fail "remount-ro: the log does not give the system's reason"
# Stopping with records the store cannot take waits out the daemon's drain limit (10 s), then
# says so: longer than stop_server allows.
kill -TERM "$SERVER_PID"
daemon_wait_exit "$SERVER_PID" 25 || fail "remount-ro: landlord did not stop within 25 s of SIGTERM"
status=0
wait "$SERVER_PID" || status=$?
SERVER_PID=""
[[ $status -eq 0 ]] || fail "remount-ro: landlord exited $status on SIGTERM: $(tail -3 "$SERVER_LOG")"
grep -q "stopping with [0-9]* lease records not written" "$SERVER_LOG" ||
  fail "remount-ro: the log does not say what was left unwritten: $(tail -3 "$SERVER_LOG")"
! grep -q "AddressSanitizer\|runtime error:" "$SERVER_LOG" || fail "remount-ro: sanitizer report"
# The operator's way back: unmount, check, mount again, start again.
umount "$WORK/remount"
status=0
e2fsck -f -y "$WORK/remount.img" >"$WORK/remount.fsck" 2>&1 || status=$?
[[ $status -le 1 ]] || fail "remount-ro: e2fsck exit $status: $(tail -3 "$WORK/remount.fsck")"
mount -o loop,errors=remount-ro "$WORK/remount.img" "$WORK/remount"
start_server "$WORK/remount.yaml"
store_holds "$WORK/remount/leases.db" "$WORK/remount.before" || fail "remount-ro: an ACKed lease is not in the store"
"$CLIENT" check --server "$SERVER" --ledger "$WORK/remount.before" --expect ack >/dev/null ||
  fail "remount-ro: bound clients not served after the restart"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/remount.after" --clients "$CLIENTS" --seed 62 \
  --first 100 --window 8 --duration-s 15 >/dev/null || true
[[ $(acked "$WORK/remount.after") -eq $CLIENTS ]] || fail "remount-ro: new clients not served after the restart"
stop_server || fail "remount-ro: landlord exited non-zero on SIGTERM: $(tail -3 "$SERVER_LOG")"
echo "RESULT remount-ro: $CLIENTS ACKed leases all in the store after fsck and restart; service back"
echo "PASS: no grant or extension ACKed while the store was read-only; bound clients never NAKed, their rebinds answered from the durable lease; nothing lost"
