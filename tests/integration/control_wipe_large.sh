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
source "$(dirname "$0")/daemon_checks.sh"
if ((EUID != 0)); then echo "SKIP: needs root (network namespace)"; exit 77; fi
for tool in curl jq sqlite3 ip; do
  command -v $tool >/dev/null || { echo "SKIP: needs $tool"; exit 77; }
done

repo_dir=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo_dir/tests/integration/control_lab.sh"
source "$repo_dir/bench/million.sh"  # million_fill: bound rows as landlord writes them

work=$(mktemp -d /tmp/control_wipe_large.XXXXXX)
cleanup() {
  control_lab_down
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
control_lab_up "llwipe$$" "$work"

control_start "$landlord" || exit 1  # creates the schema
daemon_stop_and_check "$control_pid" "$work/landlord.log" landlord || exit 1
control_pid=""
million_fill "$work/leases.db" "$leases"  # bound leases 10.x.y.z for MAC 02:10:00:x:y:z
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
held=$(sqlite3 "$work/leases.db" "SELECT state || ' ' || count(*) FROM leases WHERE subnet_id = 1 GROUP BY state")
if [[ $held != "released $leases" ]]; then
  echo "FAIL: the store holds in subnet 1: $held (want released $leases)"
  fail=1
fi
if grep -E 'commit queue full|store commit failed|not accepting writes' "$work/landlord.log"; then
  echo "FAIL: the daemon's log reports a refused or failed commit"
  fail=1
fi
daemon_stop_and_check "$control_pid" "$work/landlord.log" landlord || fail=1
control_pid=""
if ((fail)); then
  echo "---- landlord.log (last 20 lines)"; tail -20 "$work/landlord.log"
  exit 1
fi
echo "PASS: lease4-wipe of $leases leases, all durable, log clean"
