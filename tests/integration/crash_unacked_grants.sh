#!/usr/bin/env bash
# Issue #16: grants whose ACK never left do not exhaust the pool after a full disk. The store
# lives on a 2 MiB tmpfs of our own (in a private mount namespace, so no mount outlives the
# test); a pool of 20 addresses; 4 clients are served, the disk is filled, 16 more clients ask
# and give up unanswered (each was granted an address that waited for the store), the disk is
# freed. Then 16 new clients must all be served: the 16 unanswered grants may hold their
# addresses no longer than an offer (offer-hold 5 s), not for the 10 min lease time.
# Reports the time from freeing the disk to the store's recovery and to the pool being whole.
# Usage: crash_unacked_grants.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: crash_unacked_grants.sh landlord crash_client}
CLIENT=${2:?usage: crash_unacked_grants.sh landlord crash_client}
if [[ $(id -u) -ne 0 ]] || ! unshare -m --propagation private true 2>/dev/null; then
  echo "SKIP: needs root and unshare -m for a tmpfs of its own"; exit 77
fi
if [[ -z ${CRASH_FAULTS_UNSHARED:-} ]]; then
  CRASH_FAULTS_UNSHARED=1 exec unshare -m --propagation private "$0" "$@"
fi
TEST_NAME=crash_unacked_grants
source "$(dirname "$0")/crash_lib.sh"
MOUNTED=""
test_cleanup() { [[ -z $MOUNTED ]] || umount "$MOUNTED" 2>/dev/null || true; }
PORT=$(free_udp_port) || fail "no free UDP port"
SERVER=127.0.0.1:$PORT
acked() { [[ -f $1 ]] && wc -l <"$1" || echo 0; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

mkdir -p "$WORK/store"
mount -t tmpfs -o size=2m tmpfs "$WORK/store"
MOUNTED="$WORK/store"
write_config "$WORK/landlord.yaml" "$PORT" "$WORK/store/leases.db" 10m "198.18.1.0-198.18.1.19"
start_server "$WORK/landlord.yaml"

"$CLIENT" dora --server "$SERVER" --ledger "$WORK/before" --clients 4 --seed 16 --duration-s 10 >/dev/null
[[ $(acked "$WORK/before") -eq 4 ]] || fail "no service before the fault"

dd if=/dev/zero of="$WORK/store/filler" bs=4k 2>/dev/null || true
sync
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/during" --clients 16 --seed 16 --first 100 \
  --duration-s 4 >"$WORK/during.out" || true
[[ $(acked "$WORK/during") -eq 0 ]] || fail "$(acked "$WORK/during") grants ACKed while the disk was full"
grep -q "store commit failed" "$SERVER_LOG" || fail "the log does not say the store failed"

rm -f "$WORK/store/filler"
freed_ms=$(now_ms)
recovered_ms=""
for _ in $(seq 200); do
  if grep -q "store recovered" "$SERVER_LOG"; then recovered_ms=$(now_ms); break; fi
  sleep 0.05
done
[[ -n $recovered_ms ]] || fail "the store did not recover: $(tail -5 "$SERVER_LOG")"

# New clients, never seen before: 16 addresses must be free for them.
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/after" --clients 16 --seed 16 --first 200 \
  --duration-s 20 >"$WORK/after.out" || true
after=$(acked "$WORK/after")
last_ack_ms=$(sort -k2 -n "$WORK/after" | tail -1 | cut -d' ' -f2)
echo "RESULT unacked_grants: before=4 during=0 after=$after/16;" \
     "store recovered $(( recovered_ms - freed_ms )) ms after the disk was freed;" \
     "last of the 16 new clients ACKed $(( ${last_ack_ms:-$freed_ms} - freed_ms )) ms after"
[[ $after -eq 16 ]] || fail "only $after of 16 new clients served: the unanswered grants kept the pool: $(tail -3 "$WORK/after.out")"
kill -0 "$SERVER_PID" 2>/dev/null || fail "landlord died"
stop_server || fail "landlord exited non-zero on SIGTERM: $(tail -3 "$SERVER_LOG")"
rows=$(sqlite3 -batch "$WORK/store/leases.db" "SELECT count(*) FROM leases WHERE state = 'bound';")
echo "RESULT bound leases in the store after the run: $rows (4 before + 16 after)"
[[ $rows -eq 20 ]] || fail "the store holds $rows bound leases, want 20"
echo "PASS: grants never acknowledged during a full disk did not exhaust the pool"
