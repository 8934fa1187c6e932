#!/usr/bin/env bash
# landlord-sim's memory over a long run in real time: landlord on loopback (relay mode, no
# namespaces), CLIENTS clients on 10 s leases (a renewal every 5 s each) for MINUTES minutes
# with --timeline and --html on, and landlord-sim's RSS (VmRSS) printed once a minute. Flat
# memory means the distributions and the timeline stay bounded however long the run.
#   bench/sim_soak.sh [MINUTES] [CLIENTS]       (defaults 10 and 1000)
# Uses build/release/tools/landlord-sim/landlord-sim and a landlord from build/release or
# build/asan (the server's memory is not measured).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-10}
clients=${2:-1000}
sim=$repo/build/release/tools/landlord-sim/landlord-sim
landlord=$repo/build/release/tools/landlord/landlord
[[ -x $landlord ]] || landlord=$repo/build/asan/tools/landlord/landlord
[[ -x $sim && -x $landlord ]] || { echo "sim_soak: build landlord-sim (release) and landlord first" >&2; exit 2; }
source "$repo/tests/integration/veth_pair.sh"
veth_pair_prepare sim_soak lss
SIM_PID=""
stop_sim() { [[ -n $SIM_PID ]] && kill "$SIM_PID" 2>/dev/null || true; veth_pair_cleanup; }
trap stop_sim EXIT INT TERM

landlord_on_loopback "$landlord" 198.18.8.0-198.18.15.255 'lease:
  time: 10s
  renew: 50%
  rebind: 87.5%'
"$sim" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" --clients "$clients" \
  --rate 200 --duration "${minutes}m" --retransmit-base 1s --renew-min 1s \
  --timeline "$WORK/timeline.csv" --html "$WORK/report.html" --report "$WORK/report.json" \
  >"$WORK/sim.out" 2>&1 &
SIM_PID=$!
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$SIM_PID/status" 2>/dev/null || echo -; }
for ((minute = 1; minute <= minutes; minute++)); do
  sleep 60
  echo "sim_soak: minute $minute: landlord-sim VmRSS $(rss_kb) kB, renewals so far $(awk -F, -v c=0 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "renewals_per_s") c = i; next } { prev = t; t = $1; s += $c * (t - prev) } END { printf "%.0f", s }' "$WORK/timeline.csv")"
done
wait "$SIM_PID" || true
SIM_PID=""
tail -n 12 "$WORK/sim.out"
echo "sim_soak: timeline $(($(wc -l <"$WORK/timeline.csv") - 1)) lines, HTML $(wc -c <"$WORK/report.html") bytes"
