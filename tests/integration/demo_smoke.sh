#!/usr/bin/env bash
# The README's main command, tools/demo, run with the test build (--build): the namespace lab,
# landlord and landlord-sim over Ethernet frames, then the server's side through landlordctl.
# It must end 0 with no invariant violation, and what the server counted must cover what the
# clients saw: every lease, renewal (at T1) and rebind (at T2) a client got was granted by
# landlord (the server can count more: an ACK a client timed out on). Root; ~70 s.
#   demo_smoke.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/demo_lib.sh"
for tool in curl sqlite3; do command -v "$tool" >/dev/null || skip "$tool is not installed (tools/install-deps)"; done

out=$(mktemp /tmp/demo-smoke.XXXXXX)
trap 'rm -f "$out"' EXIT
rm -f "$build/demo-report.html"
# 45 s: long enough for the clients whose renewals fall in the demo's blocked window (25 s on)
# to rebind at T2.
status=0
timeout --signal=INT 150 "$repo/tools/demo" --build "$build" --clients 40 --duration 45s >"$out" 2>&1 || status=$?
((status == 0)) || fail "tools/demo exited $status"

# "name N" from the simulator's summary, or the value of a metric line from the server's.
sim_count() { sed -n "s/.*\\b$1 \\([0-9][0-9]*\\).*/\\1/p" "$out" | head -n 1; }
server_count() { awk -v name="$1" '$1 == name { print $2; exit }' "$out"; }
grep -q '^violations: 0$' "$out" || fail "the simulator's auditor found violations"
grep -q '^store sqlite: healthy' "$out" || fail "landlordctl status does not show a healthy store"
[[ -s $build/demo-report.html ]] || fail "no HTML report in $build/demo-report.html"

for pair in leases:grant renewals:renew rebinds:rebind; do
  seen=$(sim_count "${pair%%:*}")
  counted=$(server_count "landlord_lease_events_total{event=\"${pair#*:}\"}")
  [[ -n $seen && -n $counted ]] || fail "no ${pair%%:*} in the simulator's summary or no ${pair#*:} metric"
  echo "clients saw ${pair%%:*} $seen, landlord counted ${pair#*:} $counted"
  ((seen > 0)) || fail "the clients saw no ${pair%%:*}: the demo did not show it"
  ((counted >= seen)) || fail "landlord counted fewer ${pair#*:} ($counted) than clients saw ($seen)"
done
acks=$(server_count pkt4-ack-sent)
[[ -n $acks ]] && ((acks > 0)) || fail "landlordctl stats shows no ACK sent"
echo "PASS: tools/demo ran; $acks ACKs sent"
