#!/usr/bin/env bash
# The README's tools/demo-peers run with the test build (--build): two landlord peers on one
# throwaway PostgreSQL 15 cluster, A killed with -9 under load. It must end 0 with no invariant
# violation in the simulator's auditor, and its "== checks ==" lines must show the takeover:
# A held clients when it died and B took every one of them over keeping its address (rebound
# at T2, or granted again to a client whose last ACK was lost), at least one by a T2 rebind, and
# no client's lease ran out (a peer that left the rebinds unanswered lets them expire);
# B granted new clients after the kill; no client with two running leases; every address
# either server ACKed has its row in the store; the store holds a running lease for each client
# bound at the end. Root; ~50 s. The caller's lock (tools/test runs under
# `flock /tmp/landlord-netns.lock`) is not taken again: LANDLORD_NETNS_LOCK_HELD=1 (set here),
# and demo-peers' names are unique to its run, so it runs beside ctest's other lab tests.
#   demo_peers_smoke.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/demo_lib.sh"
pg_bin=${LANDLORD_PG_BIN:-/usr/lib/postgresql/15/bin}
[[ -x $pg_bin/initdb ]] || skip "no PostgreSQL 15 in $pg_bin (tools/install-deps installs postgresql-15)"
for tool in psql jq; do command -v "$tool" >/dev/null || skip "$tool is not installed (tools/install-deps)"; done

out=$(mktemp /tmp/demo-peers-smoke.XXXXXX)
trap 'rm -f "$out"' EXIT
# 100 clients: about 50 on each server before the kill, the run's length is the demo's timeline.
status=0
LANDLORD_NETNS_LOCK_HELD=1 timeout --signal=INT 180 "$repo/tools/demo-peers" --build "$build" --clients 100 \
  >"$out" 2>&1 || status=$?
((status == 0)) || fail "tools/demo-peers exited $status"

# The value of "name: N" in the demo's checks section.
check() {
  local value
  value=$(sed -n '/^== checks ==$/,$p' "$out" | sed -n "s/^$1: \\([0-9][0-9]*\\)$/\\1/p")
  [[ -n $value ]] || fail "no \"$1\" in the demo's checks" >&2  # from a subshell: seen on stderr
  echo "$value"
}
violations=$(check violations)
expirations=$(check expirations)
held=$(check "held by A at the kill")
rebound=$(check "rebound to B at T2")
taken=$(check "taken over by B")
new_by_b=$(check "granted by B after the kill")
double=$(check "clients with two running leases")
missing=$(check "ACKed addresses with no row")
bound=$(check "clients bound at the end")
running=$(check "running leases in the store")
echo "A held $held clients; B took $taken over ($rebound by a T2 rebind) and granted $new_by_b after the kill; $expirations expirations;" \
  "$double clients with two running leases; $missing ACKed addresses with no row; $bound clients bound at the end, $running running leases"
((violations == 0)) || fail "the simulator's auditor found $violations violations"
((expirations == 0)) || fail "$expirations leases ran out: the rebinds at T2 were not answered"
((held > 0)) || fail "A held no client when it was killed: nothing to take over"
((taken == held)) || fail "B took over $taken of the $held clients A held"
((rebound > 0)) || fail "no client of A rebound to B at T2"
((new_by_b > 0)) || fail "B granted no new client after the kill"
((double == 0)) || fail "$double clients hold two running leases"
((missing == 0)) || fail "$missing ACKed addresses have no row in the store"
((bound > 0)) || fail "no client ended bound"
((running >= bound)) || fail "$bound clients are bound but the store holds $running running leases"
echo "PASS: tools/demo-peers ran; B took over all $held clients of the killed A"
