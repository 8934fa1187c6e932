#!/usr/bin/env bash
# leases-reclaim of 100,000 ended leases in a SQLite store, against the running daemon (issue
# #17), with a relay agent's clients served meanwhile. The daemon starts with every lease of
# subnet 1 ended an hour ago, so its expiry timer reclaims them too from the first turn; the
# operator's leases-reclaim is asked at once and the two share the work (no lease is reclaimed
# twice). Both go in pieces with at most four at the store (control/change_in_pieces.hpp, the
# server's reclaim()). Before, the timer's 256-record batches, one per turn, filled the store's
# commit queue (16,384 records) in a fraction of a second, and leases-reclaim reclaimed at most
# 65,536 in one turn and one commit: it answered result 1, "the store's commit queue is full".
# Checks: leases-reclaim answers result 0; its count plus the timer's are every lease once
# (statistic reclaimed-leases = 100,000); the store file then holds all of subnet 1 expired;
# crash_client's DORAs (relayed on loopback, subnet 2) are all ACKed, some while the reclaim
# was in progress; the log has no refused or failed commit; the daemon stops cleanly. The leases
# are data only (bench/million.sh's million_fill, then moved an hour and a lease into the past);
# landlord runs in control_lab.sh's namespace with nothing but loopback. Root; about 10 s.
# Usage: control_reclaim_large.sh LANDLORD CRASH_CLIENT   (exit 77 = skipped)
set -euo pipefail
landlord=$1
client=$2
leases=${RECLAIM_LEASES:-100000}
source "$(dirname "$0")/control_lab.sh"
control_lab_require

work=$(mktemp -d /tmp/control_reclaim_large.XXXXXX)
client_pid=""
cleanup() {
  [[ -n $client_pid ]] && kill "$client_pid" 2>/dev/null && wait "$client_pid" 2>/dev/null
  control_lab_down
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
control_lab_up "llrecl$$" "$work"

control_fill "$landlord" "$leases"
sqlite3 "$work/leases.db" "UPDATE leases SET granted_at_ms = granted_at_ms - lease_time_ms - 3600000"
control_start "$landlord" || exit 1

# DORAs for 200 clients of subnet 2, one at a time, from a relay agent on 198.18.0.1.
ip netns exec "$control_ns" "$client" dora --server 198.18.0.1:67 --ledger "$work/ledger" --clients 200 \
  --window 1 --duration-s 60 >"$work/client.out" 2>&1 &
client_pid=$!
started_ms=$(($(date +%s%N) / 1000000))
answer=$(control_ask '{"command":"leases-reclaim","arguments":{"remove":false}}' 120)
ended_ms=$(($(date +%s%N) / 1000000))
echo "leases-reclaim with $leases ended leases: $((ended_ms - started_ms)) ms: $answer"
fail=0
if [[ $(jq '.result' <<<"$answer") != 0 ]]; then
  echo "FAIL: leases-reclaim did not answer result 0"
  fail=1
fi
by_command=$(jq '.arguments.reclaimed' <<<"$answer")
# Every reclaimed lease counted once, whoever reclaimed it (the command or the expiry timer).
all=$(control_ask '{"command":"statistic-get-all"}' | jq '.arguments["reclaimed-leases"][0][0]')
echo "reclaimed: $by_command by leases-reclaim, $all in all"
if [[ $all != "$leases" ]]; then
  echo "FAIL: $all leases reclaimed in all, want $leases"
  fail=1
fi
if ! [[ $by_command =~ ^[0-9]+$ ]] || ((by_command == 0)); then
  echo "FAIL: leases-reclaim reclaimed none itself"
  fail=1
fi
# Every piece (the command's and the timer's, committed in order before its last) is durable now.
control_store_holds expired "$leases" || fail=1
if ! wait "$client_pid"; then
  echo "FAIL: crash_client's DORAs were not all ACKed: $(tail -3 "$work/client.out")"
  fail=1
fi
client_pid=""
acks=$(wc -l <"$work/ledger")
during=$(awk -v a="$started_ms" -v b="$ended_ms" '$1 == "ack" && $2 >= a && $2 <= b' "$work/ledger" | wc -l)
echo "DHCP: $acks ACKs, $during of them while leases-reclaim was in progress"
if ((acks != 200)) || ((during == 0)); then
  echo "FAIL: want 200 ACKs, some of them during the reclaim"
  fail=1
fi
control_check_end || fail=1
if ((fail)); then
  control_fail_report "$work/client.out"
  exit 1
fi
echo "PASS: leases-reclaim of $leases ended leases, all durable, DHCP answered meanwhile, log clean"
