#!/usr/bin/env bash
# landlord-sim against the landlord daemon: the auditor must find nothing.
#   relay: landlord on 127.0.0.1 (private port), the simulator as a relay agent. No root.
#   l2:    landlord in a namespace lab of its own ("<prefix>s", 198.18.0.1/24) and the simulator
#          speaking Ethernet from "<prefix>c" over a veth: broadcast DORA, unicast RENEW, and
#          landlord's unicast replies to renewing clients found through the simulator's ARP
#          answers. Needs root; skips (77) otherwise.
#   expiry: relay again, with a pool of 40 addresses for 80 clients of which half vanish without
#          a RELEASE: every client still there can only end up bound if the server let the
#          vanished clients' leases expire and handed their addresses out again — and the auditor
#          checks none was handed out before its lease ran out.
# Leases of 24 s (T1 12 s, T2 21 s) so renewals, and rebinds while renewals are blocked, happen
# in a bounded run.
# Usage: sim_landlord.sh path/to/landlord-sim path/to/landlord relay|l2|expiry
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: sim_landlord.sh landlord-sim landlord relay|l2}
LANDLORD=${2:?usage: sim_landlord.sh landlord-sim landlord relay|l2}
MODE=${3:?usage: sim_landlord.sh landlord-sim landlord relay|l2}
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

veth_pair_prepare sim_landlord lsl

lease_config='lease:
  time: 24s
  renew: 50%
  rebind: 87.5%
  offer-hold: 5s
  decline-hold: 30s'

pool=198.18.1.0-198.18.254.255
if [[ $MODE == expiry ]]; then
  lease_config='lease:
  time: 8s
  offer-hold: 2s'
  pool=198.18.1.0-198.18.1.39
fi

case $MODE in
  relay|expiry)
    landlord_on_loopback "$LANDLORD" "$pool" "$lease_config"
    RUN=("$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT")
    DURATION_S=45
    ;;
  l2)
    [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
    command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
    landlord_on_lab "$LANDLORD" 24 198.18.0.10-198.18.0.250 "$lease_config"
    RUN=(ip netns exec "$CLIENT_NS" "$SIM" --interface "$CLIENT_IF" --pcap "$WORK/traffic.pcap")
    DURATION_S=60
    ;;
  *) echo "mode must be relay, l2 or expiry"; exit 2 ;;
esac
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
check() { jq -e "$1" "$WORK/report.json" >/dev/null || fail "$2"; }

if [[ $MODE == expiry ]]; then
  # 80 clients over 20 s; half vanish 3-9 s after arriving. 45 s leaves time for the last
  # vanished leases (8 s) to run out and their addresses to reach the clients still waiting.
  status=0
  timeout 80 "${RUN[@]}" --clients 80 --rate 4 --duration 45s --stay 6s --vanish 0.5 --seed 3 \
    --retransmit-base 1s --renew-min 1s --report "$WORK/report.json" || status=$?
  [[ -s $WORK/report.json ]] || { echo "FAIL: no report (landlord-sim exit $status)"; exit 1; }
  jq -c '{clients, leases_acquired, vanished, renewals: .renewals.count, expirations,
          states_at_end, violation_count}' "$WORK/report.json"
  [[ $status -eq 0 ]] || fail "landlord-sim exited $status: $(jq -c .violations "$WORK/report.json")"
  check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
  check '.vanished >= 30' "too few clients vanished to need their addresses back"
  check '.leases_acquired > 40' "no more leases than the 40 addresses: vanished leases not reclaimed"
  check '.states_at_end.bound + .states_at_end.renewing + .states_at_end.rebinding == .clients - .vanished' \
    "not every remaining client holds a lease at the end: vanished leases not reclaimed"
  landlord_stop_and_check
  echo "PASS: landlord let vanished clients' leases expire and reused the addresses, no violations"
  exit 0
fi

# Renewals go unanswered from 25 s for 20 s: every client reaches T2 once and rebinds.
status=0
timeout $((DURATION_S + 30)) "${RUN[@]}" --clients 150 --rate 50 --duration "${DURATION_S}s" \
  --seed 7 --retransmit-base 1s --renew-min 2s --release 0.1 --vanish 0.1 --decline 0.05 \
  --restart-clients 0.1 --block-unicast 25s+20s --report "$WORK/report.json" || status=$?
[[ -s $WORK/report.json ]] || { echo "FAIL: no report (landlord-sim exit $status)"; exit 1; }
jq -c '{transport, clients, leases_acquired, renewals, rebinds, expirations, releases, declines,
        vanished, naks, timeouts, violation_count}' "$WORK/report.json"

landlord_stop_and_check
[[ $status -eq 0 ]] || fail "landlord-sim exited $status: $(jq -c .violations "$WORK/report.json")"
check ".transport == \"$MODE\"" "transport is not $MODE"
check '.violation_count == 0' "violations: $(jq -c .violations "$WORK/report.json")"
check '.leases_acquired >= 150' "not every client got a lease"
check '.renewals.count > 150' "too few renewals"
check '.renewals.lease_fraction_p50 >= 0.45 and .renewals.lease_fraction_p50 <= 0.55' "renewals not near T1 = 0.5"
check '.rebinds.count > 50' "too few rebinds while renewals were blocked"
check '.rebinds.lease_fraction_p50 >= 0.8 and .rebinds.lease_fraction_p50 <= 0.92' "rebinds not near T2 = 0.875"
check '.expirations == 0' "leases expired although the server was answering"
check '.declines > 0 and .releases > 0' "no declines or releases exercised"
echo "PASS: landlord-sim ($MODE) against landlord: no violations"
