#!/usr/bin/env bash
# lease4-wipe of a subnet with 100,000 leases in a SQLite store, against the running daemon
# (issue #17). The wipe revokes 1,024 leases per turn of the event loop and commits each piece;
# the store's commit queue takes 16,384 records and refuses beyond. Before the wipe kept at most
# four pieces at the store, it made pieces faster than SQLite committed them: the queue filled,
# a piece was refused and the wipe stopped after 20,480-51,200 revocations with "the lease store
# is not accepting writes" while the store was healthy, and nothing in the log said why.
# Checks: the wipe answers result 0 with deleted = 100,000; the store file then holds every
# lease of the subnet released, none bound; the daemon's log has no commit-queue or store
# error; the daemon stops cleanly. The leases are data only (bench/million.sh's million_fill
# writes them into the schema landlord created); landlord runs in control_lab.sh's namespace
# with nothing but loopback and is asked only on its control socket. Root (namespace); about 10 s.
# Usage: control_wipe_large.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
landlord=$1
leases=${WIPE_LEASES:-100000}
source "$(dirname "$0")/control_lab.sh"
control_lab_require

work=$(mktemp -d /tmp/control_wipe_large.XXXXXX)
cleanup() {
  control_lab_down
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
control_lab_up "llwipe$$" "$work"

control_fill "$landlord" "$leases"
control_start "$landlord" || exit 1
records=$(control_ask '{"command":"status-get"}' | jq '.arguments["lease-records"]')
if [[ $records != "$leases" ]]; then echo "FAIL: $records lease records loaded, want $leases"; exit 1; fi

started=$(date +%s%N)
answer=$(control_ask '{"command":"lease4-wipe","arguments":{"subnet-id":1,"confirm":true}}')
took_ms=$((($(date +%s%N) - started) / 1000000))
echo "lease4-wipe of $leases leases: $took_ms ms: $answer"
fail=0
if [[ $(jq '.result' <<<"$answer") != 0 || $(jq '.arguments.deleted' <<<"$answer") != "$leases" ]]; then
  echo "FAIL: lease4-wipe did not revoke all $leases leases"
  fail=1
fi
# Every piece was answered durable before the reply: the file holds them now.
control_store_holds released "$leases" || fail=1
control_check_end || fail=1
if ((fail)); then
  echo "---- landlord.log (last 20 lines)"; tail -20 "$work/landlord.log"
  exit 1
fi
echo "PASS: lease4-wipe of $leases leases, all durable, log clean"
