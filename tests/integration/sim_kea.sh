#!/usr/bin/env bash
# landlord-sim in L2 mode against ISC kea-dhcp4 in a namespace lab of its own:
#   ns "<prefix>s" (kea-dhcp4, raw sockets, 198.18.0.1/24) <-veth-> ns "<prefix>c" (landlord-sim)
# Short leases (24 s: T1 12 s, T2 21 s) so a bounded run (~60 s) sees renewals at 0.5 and, with
# renewals blocked for a while, rebinds at 0.875. The report must hold no violations.
# Usage: sim_kea.sh path/to/landlord-sim      Exit 77 (skip) without root, namespaces or Kea.
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: sim_kea.sh path/to/landlord-sim}
KEA=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
DURATION_S=${SIM_KEA_DURATION_S:-60}

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
[[ -x $KEA ]] || { echo "SKIP: no kea-dhcp4 at $KEA"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

veth_pair_prepare sim_kea lsk

veth_pair_up 198.18.0.1/24

cat > "$WORK/kea.json" <<JSON
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["$SERVER_IF"], "dhcp-socket-type": "raw" },
  "lease-database": { "type": "memfile", "persist": true, "name": "$WORK/leases.csv", "lfc-interval": 0 },
  "valid-lifetime": 24, "calculate-tee-times": true,
  "expired-leases-processing": { "reclaim-timer-wait-time": 1, "hold-reclaimed-time": 0 },
  "subnet4": [ { "id": 1, "subnet": "198.18.0.0/24",
                 "pools": [ { "pool": "198.18.0.10 - 198.18.0.250" } ] } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                 "output_options": [ { "output": "$WORK/kea.log" } ] } ]
} }
JSON
KEA_PIDFILE_DIR=$WORK KEA_LOCKFILE_DIR=$WORK KEA_LOGGER_DESTINATION=$WORK/kea.log \
  ip netns exec "$SERVER_NS" "$KEA" -c "$WORK/kea.json" >"$WORK/kea.out" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do
  grep -q DHCP4_STARTED "$WORK/kea.log" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/kea.out"; echo "FAIL: kea-dhcp4 did not start"; exit 1; }
  sleep 0.1
done

# 150 clients over 3 s; some release, vanish or decline; renewals unanswered from 30 s for 20 s.
status=0
timeout $((DURATION_S + 20)) ip netns exec "$CLIENT_NS" "$SIM" \
  --interface "$CLIENT_IF" --clients 150 --rate 50 --duration "${DURATION_S}s" --seed 7 \
  --retransmit-base 1s --renew-min 2s --release 0.1 --vanish 0.1 --decline 0.05 \
  --restart-clients 0.1 --block-unicast 30s+20s \
  --report "$WORK/report.json" --pcap "$WORK/traffic.pcap" || status=$?
[[ -s $WORK/report.json ]] || { echo "FAIL: no report (landlord-sim exit $status)"; exit 1; }
jq -c '{transport, clients, leases_acquired, renewals, rebinds, expirations, releases, declines,
        vanished, naks, timeouts, violation_count}' "$WORK/report.json"

fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
[[ $status -eq 0 ]] || fail "landlord-sim exited $status"
check() { jq -e "$1" "$WORK/report.json" >/dev/null || fail "$2"; }
check '.transport == "l2"' "transport is not l2"
check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
check '.leases_acquired >= 150' "not every client got a lease"
check '.renewals.count > 150' "too few renewals"
check '.renewals.lease_fraction_p50 >= 0.45 and .renewals.lease_fraction_p50 <= 0.55' "renewals not near T1 = 0.5"
check '.rebinds.count > 50' "too few rebinds while renewals were blocked"
check '.rebinds.lease_fraction_p50 >= 0.85 and .rebinds.lease_fraction_p50 <= 0.92' "rebinds not near T2 = 0.875"
check '.declines > 0 and .releases > 0' "no declines or releases exercised"
check '.latency_ms.renew.count > 0' "no renew latencies"
pid=$SERVER_PID SERVER_PID=""
daemon_stop_and_check "$pid" "$WORK/kea.out" kea-dhcp4 || { KEEP_WORK=1; exit 1; }
echo "PASS: landlord-sim L2 against kea-dhcp4: no violations"
