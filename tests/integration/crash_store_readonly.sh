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
# clients' reboots (INIT-REBOOT) and rebinds get an ACK cut to what remains of the lease the
# store holds (no further), never a NAK; landlord keeps running, the log says why and /metrics
# shows the store unhealthy with the failures counted by reason. On the first read-only failure
# landlord closes the store's files, so the file system can be remounted (immutable: it is
# remounted read-only and back) or unmounted, checked with e2fsck and mounted again on the same
# directory (remount-ro: Linux makes an ext4 file system in its emergency read-only state
# writable only that way, and unmounts only what nobody holds open). Either way landlord must
# then serve again by itself, without a restart — reopening the same store, not creating one
# in the bare mountpoint while the file system is away — and every ACK be in the store.
# A phase shm (issue #31) makes only SQLite's WAL index, leases.db-shm, immutable: SQLite writes
# it through a shared mapping, and the kernel answers a write to it with SIGBUS (which killed
# landlord on the next commit); it must be the same read-only fault as above, named, and the
# service back after `chattr -i`, nothing lost.
# A third phase, checkpoint, makes only the database file immutable: commits (to the WAL) go on
# and every ACK must still be in the store, while the failed checkpoints are counted by reason
# on /metrics and logged.
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
# clients (none ACKed), the bound ones rebooting (INIT-REBOOT) and rebinding (an ACK cut to the
# durable lease, no NAK), the log and /metrics.
under_fault() {
  local name=$1 seed=$2 naks_before during status said
  naks_before=$(naks "$name")
  "$CLIENT" dora --server "$SERVER" --ledger "$WORK/$name.during" --clients "$CLIENTS" --seed "$seed" \
    --first 100 --window 8 --duration-s 4 >"$WORK/$name.during.out" || true
  # Their reboots (option 50, no ciaddr, relayed): answered from the lease the store holds,
  # with what remains of it, never past it, and without a write.
  status=0
  "$CLIENT" check --server "$SERVER" --ledger "$WORK/$name.before" --expect durable-reboot \
    >"$WORK/$name.check.out" 2>&1 || status=$?
  [[ $status -eq 0 ]] || fail "$name: bound clients' reboots under the fault (exit $status): $(tail -3 "$WORK/$name.check.out")"
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
  local reboots
  reboots=$(awk '$1 == "landlord_store_down_reboots_answered_total" { print $2 }' "$WORK/$name.metrics")
  [[ ${reboots:-0} -ge $CLIENTS ]] || fail "$name: /metrics counts ${reboots:-no} reboots answered from the durable lease, not $CLIENTS"
  grep -q "reboot .* answered from its durable lease" "$SERVER_LOG" || fail "$name: the log does not say reboots were answered from the durable lease"
  said=$(grep -m1 "store commit failed" "$SERVER_LOG" || true)
  echo "$name: during the fault: 0 of $CLIENTS new clients ACKed; no NAK; bound clients' reboots ACKed from the durable lease" \
       "($(tail -1 "$WORK/$name.check.out")), their rebinds too ($(tail -1 "$WORK/$name.rebind.out")); read_only failures $read_only"
  echo "$name: log: ${said:-<nothing>}"
  grep -q "not acknowledging grants" <<<"$said" || fail "$name: the log does not say why grants are not ACKed"
  grep -q "closed the store's files" "$SERVER_LOG" || fail "$name: the log does not say the store's files were closed"
}

# retry TRIES COMMAND...: COMMAND until it succeeds, TRIES times 0.5 s apart (landlord's retry
# opens the store for a moment each second: a mount change may meet it once).
retry() {
  local tries=$1 i; shift
  for i in $(seq "$tries"); do
    "$@" 2>/dev/null && return 0
    sleep 0.5
  done
  "$@"
}

# served_again NAME SEED WHAT: without a restart, new clients are all ACKed, the bound ones
# ACKed again, the store reopened and healthy; prints the first ACK's delay after CLEARED_MS.
served_again() {
  local name=$1 seed=$2 what=$3 after first_ms
  "$CLIENT" dora --server "$SERVER" --ledger "$WORK/$name.after" --clients "$CLIENTS" --seed "$seed" \
    --first 100 --window 8 --duration-s 15 >"$WORK/$name.after.out" || true
  after=$(acked "$WORK/$name.after")
  [[ $after -eq $CLIENTS ]] || fail "$name: service did not come back: $after of $CLIENTS: $(tail -3 "$WORK/$name.after.out")"
  first_ms=$(sort -k2 -n "$WORK/$name.after" | head -1 | cut -d' ' -f2)
  "$CLIENT" check --server "$SERVER" --ledger "$WORK/$name.before" --expect ack >/dev/null ||
    fail "$name: bound clients not served again after the fault"
  grep -q "store recovered" "$SERVER_LOG" || fail "$name: the log does not say the store recovered"
  grep -q "opened again" "$SERVER_LOG" || fail "$name: the log does not say the store was opened again"
  [[ $(metric "$name" landlord_store_healthy) == 1 ]] || fail "$name: /metrics still shows the store unhealthy"
  [[ $(metric "$name" landlord_store_reopened_total) -ge 1 ]] || fail "$name: /metrics does not count the store reopened"
  echo "RESULT $name: first ACK $(( first_ms - CLEARED_MS )) ms after $what;" \
       "$after of $CLIENTS new clients ACKed; bound clients served again; no restart"
  stop_server || fail "$name: landlord exited non-zero on SIGTERM: $(tail -3 "$SERVER_LOG")"
  cat "$WORK/$name.before" "$WORK/$name.after" >"$WORK/$name.all"
  store_holds "$WORK/$name/leases.db" "$WORK/$name.all" || fail "$name: an ACKed lease is not in the store"
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
# landlord holds no file of the file system open for writing any more: Linux lets it go
# read-only (it refuses while a process writes to it), and back.
retry 10 mount -o remount,ro "$WORK/immutable" ||
  fail "immutable: the file system cannot be remounted read-only: landlord still holds its files"
sleep 1.5  # a retry or two meet the read-only file system
kill -0 "$SERVER_PID" || fail "immutable: landlord died on the read-only file system"
mount -o remount,rw "$WORK/immutable"
chattr -i "$WORK/immutable/leases.db" "$WORK/immutable/leases.db-wal"
CLEARED_MS=$(( $(date +%s%N) / 1000000 ))
served_again immutable 53 "the file system was writable again"

# ---- shm: chattr +i on the WAL index only, then -i --------------------------------------------
mount_ext4 "$WORK/shm"
config shm "$WORK/shm/leases.db"
start_server "$WORK/shm.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/shm.before" --clients "$CLIENTS" --seed 55 \
  --window 8 --duration-s 10 >/dev/null || true
[[ $(acked "$WORK/shm.before") -eq $CLIENTS ]] || fail "shm: no service before the fault"
[[ -f $WORK/shm/leases.db-shm ]] || fail "shm: the store has no -shm"
chattr +i "$WORK/shm/leases.db-shm"
under_fault shm 56
grep -m1 "store commit failed" "$SERVER_LOG" | grep -q "leases.db-shm, SQLite's shared index of the WAL, is immutable" ||
  fail "shm: the log does not name the immutable -shm: $(grep -m1 "store commit failed" "$SERVER_LOG")"
chattr -i "$WORK/shm/leases.db-shm"
CLEARED_MS=$(( $(date +%s%N) / 1000000 ))
served_again shm 57 "the -shm was writable again"

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
# The operator's way back, landlord running: unmount (Linux refuses while a process holds files
# of it open), check, mount the same file system on the same directory again.
retry 10 umount "$WORK/remount" || fail "remount-ro: cannot unmount: landlord still holds the store's files"
sleep 2.5  # landlord's retries meet the bare mountpoint: no store there, none may be created
[[ ! -e $WORK/remount/leases.db ]] || fail "remount-ro: landlord created a store in the bare mountpoint"
kill -0 "$SERVER_PID" || fail "remount-ro: landlord died while the file system was away"
status=0
e2fsck -f -y "$WORK/remount.img" >"$WORK/remount.fsck" 2>&1 || status=$?
[[ $status -le 1 ]] || fail "remount-ro: e2fsck exit $status: $(tail -3 "$WORK/remount.fsck")"
mount -o loop,errors=remount-ro "$WORK/remount.img" "$WORK/remount"
CLEARED_MS=$(( $(date +%s%N) / 1000000 ))
served_again remount 63 "the checked file system was mounted again"

# ---- checkpoint: the database file immutable, its WAL not: commits go on, checkpoints fail ----
# Every ACK stays durable (in the WAL); the failed checkpoints are counted and logged, and they
# resume once the file is writable again. 1,000 WAL pages wake the checkpointer, and how many
# pages a DORA costs depends on how many share a transaction (700 made 341 pages in one run; 2,400
# made fewer than 1,000 in another, where the commit queue's linger put 16 in most): rounds of
# 1,200 DORAs, at most 10, until a failed checkpoint is counted.
mount_ext4 "$WORK/checkpoint"
write_config "$WORK/checkpoint.yaml" "$PORT" "$WORK/checkpoint/leases.db" 10m "198.18.2.0-198.18.63.255"
printf 'control:\n  socket: %s\n' "$WORK/checkpoint.sock" >>"$WORK/checkpoint.yaml"
start_server "$WORK/checkpoint.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/checkpoint.before" --clients 4 --seed 71 \
  --window 4 --duration-s 10 >/dev/null || true
[[ $(acked "$WORK/checkpoint.before") -eq 4 ]] || fail "checkpoint: no service before the fault"
chattr +i "$WORK/checkpoint/leases.db"
: >"$WORK/checkpoint.during"
failed=0
rounds=0
while (( rounds < 10 && ${failed:-0} == 0 )); do
  rounds=$((rounds + 1))
  "$CLIENT" dora --server "$SERVER" --ledger "$WORK/checkpoint.round.$rounds" --clients 1200 \
    --seed $((71 + rounds)) --first $((100 + (rounds - 1) * 1200)) --window 16 --duration-s 60 \
    >"$WORK/checkpoint.round.out" || true
  round_acked=$(acked "$WORK/checkpoint.round.$rounds")
  [[ $round_acked -eq 1200 ]] ||
    fail "checkpoint: $round_acked of 1200 ACKed in round $rounds while only checkpoints failed: $(tail -3 "$WORK/checkpoint.round.out")"
  cat "$WORK/checkpoint.round.$rounds" >>"$WORK/checkpoint.during"
  failed=$(metric checkpoint 'landlord_store_checkpoint_failures_total{reason="read_only"}')
done
during=$(acked "$WORK/checkpoint.during")
echo "checkpoint: $rounds rounds of 1200 DORAs"
for _ in $(seq 1 20); do  # the last round's checkpoint runs in the background
  (( ${failed:-0} > 0 )) && break
  sleep 0.1
  failed=$(metric checkpoint 'landlord_store_checkpoint_failures_total{reason="read_only"}')
done
[[ ${failed:-0} -gt 0 ]] ||
  fail "checkpoint: /metrics counts no failed checkpoint after $during DORAs: $(metrics checkpoint | grep checkpoint_failures)"
[[ $(metric checkpoint landlord_store_healthy) == 1 ]] || fail "checkpoint: the store is not healthy while commits succeed"
wait_for_log "$SERVER_LOG" "store checkpoint failed" 5 || fail "checkpoint: the log does not say checkpoints failed"
echo "checkpoint: log: $(grep -m1 "store checkpoint failed" "$SERVER_LOG")"
# No commit now, and none wakes the checkpointer: every failure counted, also those after the
# last commit (the background pass that commit woke), is in the log within its 5 s limit — the
# last line's count is /metrics' total (not logged until the next commit before).
logged_count() { grep "store checkpoint failed" "$SERVER_LOG" | tail -n 1 | sed -n 's/.*(\([0-9]*\) failed checkpoints so far).*/\1/p'; }
counted() { metrics checkpoint | awk 'index($1, "landlord_store_checkpoint_failures_total{") == 1 { n += $2 } END { print n + 0 }'; }
total=$(counted)
for _ in $(seq 1 80); do
  [[ "$(logged_count)" == "$total" ]] && break
  sleep 0.1
  total=$(counted)
done
[[ "$(logged_count)" == "$total" ]] ||
  fail "checkpoint: the log's last line counts $(logged_count) failed checkpoints, /metrics $total, 8 s after the last commit"
echo "checkpoint: the last log line counts all $total failed checkpoints"
wal_kib=$(( $(stat -c %s "$WORK/checkpoint/leases.db-wal") / 1024 ))
chattr -i "$WORK/checkpoint/leases.db"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/checkpoint.after" --clients 300 --seed 99 \
  --first 13000 --window 16 --duration-s 60 >/dev/null || true
[[ $(acked "$WORK/checkpoint.after") -eq 300 ]] || fail "checkpoint: service after the fault"
stop_server || fail "checkpoint: landlord exited non-zero on SIGTERM: $(tail -3 "$SERVER_LOG")"
cat "$WORK/checkpoint.before" "$WORK/checkpoint.during" "$WORK/checkpoint.after" >"$WORK/checkpoint.all"
store_holds "$WORK/checkpoint/leases.db" "$WORK/checkpoint.all" || fail "checkpoint: an ACKed lease is not in the store"
echo "RESULT checkpoint: $during of $during ACKed while checkpoints failed ($failed failed checkpoints counted as read_only," \
     "WAL at $wal_kib KiB); all $(wc -l <"$WORK/checkpoint.all") ACKed leases in the store after"
! grep -q "AddressSanitizer\|runtime error:" "$WORK"/server.*.log || fail "sanitizer report"
echo "PASS: no grant or extension ACKed while the store was read-only; bound clients never NAKed, their reboots and rebinds answered from the durable lease; service back by itself after remount and after unmount, fsck and mount; failed checkpoints counted; nothing lost"
