#!/usr/bin/env bash
# The cost of admission.verify-chaddr (the packet socket that reads each direct request's frame):
# the same burst of direct clients from landlord-sim (each from its own MAC) in the namespace
# lab with the check on and off; prints landlord's CPU time (user + system) for each run. Each
# client releases its lease after ~0.2 s, so the lab's /24 pool (241 addresses) is enough.
# Usage (root, under the lab lock):
#   flock /tmp/landlord-netns.lock bench/verify_chaddr_cost.sh LANDLORD LANDLORD-SIM [CLIENTS] [RATE]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
landlord="$(realpath "$1")" sim="$(realpath "$2")" clients="${3:-3000}" rate="${4:-500}"
for verify in true false; do
  config="$(mktemp /tmp/landlord-cost.XXXXXX.yaml)"
  cat >"$config" <<YAML
server: {interfaces: [ll-srv0], listen: 0.0.0.0:67, server-id: 198.18.0.1}
store: {type: sqlite, path: /tmp/landlord-cost-placeholder.db}
lease: {time: 10m}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    pools: [198.18.0.10-198.18.0.250]
    admission: {verify-chaddr: $verify}
log: {level: warn}
YAML
  LAB_KEEP_DIR="${LAB_KEEP_DIR:-0}" "$repo/tools/lab" --config "$config" --landlord "$landlord" --log-level warn run bash -c '
    timeout 60 ip netns exec "$LAB_NS_CLIENT" "$0" --interface ll-cli0 --clients "$1" --rate "$2" \
      --duration $(( $1 / $2 + 5 ))s --stay 200ms --release 1 --seed 3 --report "$LAB_DIR/report.json" >/dev/null 2>&1 || true
    read -r -a stat < "/proc/$LAB_SERVER_PID/stat"
    ticks=$(getconf CLK_TCK)
    jq -c --arg verify "$3" --argjson cpu "$(echo "scale=2; (${stat[13]} + ${stat[14]}) / $ticks" | bc)" \
      "{verify_chaddr: \$verify, landlord_cpu_s: \$cpu, clients, leases_acquired, request_ack_p99_ms: .latency_ms.request_ack.p99}" \
      "$LAB_DIR/report.json"' "$sim" "$clients" "$rate" "$verify"
  rm -f "$config"
done
