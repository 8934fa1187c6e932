#!/usr/bin/env bash
# landlord (a release build) and Kea 2.2 side by side under the same dhcpstarv attack, in the
# namespace lab (tools/lab: addresses from 198.18.0.0/15 only, nothing on the host):
#   - dhcpstarv on the direct link (ll-srv0) for 12 s, from one host with random chaddrs;
#   - a witness dhclient on another port of that link, started 8 s into the attack;
#   - a 40-client landlord-sim fleet behind dhcrelay (option 82), 10 new clients a second.
# Reported per server: the attacker's share of the direct pool (100 addresses), whether the
# witness got an address, and the fleet's success and p99 DISCOVER->OFFER / REQUEST->ACK.
# landlord runs with its defaults (admission verify-chaddr on); Kea with its defaults (it has
# no such defence). Both store leases on disk (landlord SQLite, Kea memfile). Bounded: each
# server's run is under 90 s. Not a CI test: figures for docs/testing.md.
# Usage: sudo bench/starvation.sh [LANDLORD] [LANDLORD-SIM]
#        (defaults: build/release/tools/landlord/landlord, build/release/tools/landlord-sim/landlord-sim)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/tests/integration/lab_lib.sh"

attack_s=12
witness_after_s=8
fleet_clients=40

# ---- inside the lab -----------------------------------------------------------------------

kea_config() {  # the same two subnets as landlord's config below
  cat <<EOF
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["ll-srv0", "ll-srv1"], "dhcp-socket-type": "raw" },
  "lease-database": { "type": "memfile", "persist": true, "name": "$LAB_DIR/kea-leases.csv", "lfc-interval": 0 },
  "valid-lifetime": 600, "calculate-tee-times": true,
  "subnet4": [
    { "id": 1, "subnet": "198.18.0.0/24", "interface": "ll-srv0",
      "pools": [ { "pool": "198.18.0.100 - 198.18.0.199" } ],
      "option-data": [ { "name": "routers", "data": "198.18.0.1" } ] },
    { "id": 2, "subnet": "198.18.2.0/24", "relay": { "ip-addresses": ["198.18.1.2"] },
      "pools": [ { "pool": "198.18.2.10 - 198.18.2.250" } ],
      "option-data": [ { "name": "routers", "data": "198.18.2.1" } ] } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "WARN",
                 "output_options": [ { "output": "$LAB_DIR/kea.log" } ] } ]
} }
EOF
}

# Addresses of the direct pool held by anyone but the witness.
attacker_leases() {  # SERVER WITNESS_MAC
  if [[ "$1" == kea ]]; then
    # memfile CSV: address,hwaddr,client_id,valid_lifetime,expire,subnet_id,...,state; the last line per address wins
    awk -F, -v witness="$2" 'NR > 1 && $6 == 1 { last[$1] = $2 "," $10 }
      END { for (a in last) { split(last[a], f, ","); if (f[1] != witness && f[2] == 0) n++ } print n + 0 }' \
      "$LAB_DIR/kea-leases.csv" 2>/dev/null || echo 0
  else
    sqlite3 -cmd ".timeout 2000" "$LAB_STORE" \
      "select count(*) from leases where subnet_id = 1 and state = 'bound' and hwaddr != '$2'" 2>/dev/null || echo 0
  fi
}

inside() {
  local server="$BENCH_SERVER" witness_mac kea_pid=""
  witness_mac="$(link_mac "$LAB_NS_CLIENT1")"
  if [[ "$server" == kea ]]; then
    kea_config >"$LAB_DIR/kea.json"
    ip netns exec "$LAB_NS_SERVER" env KEA_PIDFILE_DIR="$LAB_DIR" KEA_LOCKFILE_DIR="$LAB_DIR" \
      kea-dhcp4 -c "$LAB_DIR/kea.json" >"$LAB_DIR/kea.out" 2>&1 &
    kea_pid=$!
    wait_until 10 "kea-dhcp4 listening" bash -c "ip netns exec '$LAB_NS_SERVER' ss -Huln 'sport = :67' | grep -q ."
  fi
  ip netns exec "$LAB_NS_RELAY_CLIENT" timeout 60 "$SIM" --interface ll-rcl0 --clients "$fleet_clients" \
    --rate 10 --duration 30s --stay 10m --seed 5 --retransmit-base 1s \
    --report "$LAB_DIR/fleet.json" >"$LAB_DIR/fleet.log" 2>&1 &
  local fleet_pid=$!
  sleep 2
  ip netns exec "$LAB_NS_CLIENT" timeout "$attack_s" dhcpstarv -i ll-cli0 >"$LAB_DIR/dhcpstarv.log" 2>&1 &
  local starv_pid=$!
  sleep "$witness_after_s"
  start_dhclient witness "$LAB_NS_CLIENT1"
  local started=$SECONDS witness_s=-1
  while ((SECONDS - started < 15)); do
    if has_address "$LAB_NS_CLIENT1"; then witness_s=$((SECONDS - started)); break; fi
    sleep 0.2
  done
  wait "$starv_pid" 2>/dev/null || true
  wait "$fleet_pid" || true
  stop_client witness
  local attacker
  attacker="$(attacker_leases "$server" "$witness_mac")"
  if [[ -n "$kea_pid" ]]; then kill "$kea_pid" 2>/dev/null || true; wait "$kea_pid" 2>/dev/null || true; fi
  [[ -s "$LAB_DIR/fleet.json" ]] || fail "no fleet report: $(tail -n 5 "$LAB_DIR/fleet.log")"
  jq -c --arg server "$server" --argjson attacker "$attacker" --argjson witness_s "$witness_s" \
    '{server: $server, attacker_leases_of_100: $attacker, witness_seconds: $witness_s,
      fleet: {clients, leases_acquired, gave_up, discover_offer_p99_ms: .latency_ms.discover_offer.p99,
              request_ack_p99_ms: .latency_ms.request_ack.p99, request_ack_p50_ms: .latency_ms.request_ack.p50}}' \
    "$LAB_DIR/fleet.json" >>"$BENCH_RESULTS"
}

# ---- on the host --------------------------------------------------------------------------

landlord_config() {
  cat <<EOF
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
store:
  type: sqlite
  path: /tmp/landlord-bench-placeholder.db
lease:
  time: 10m
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    pools: [198.18.0.100-198.18.0.199]
    options: {routers: [198.18.0.1]}
  - subnet: 198.18.2.0/24
    pools: [198.18.2.10-198.18.2.250]
    relays: [198.18.1.2]
    options: {routers: [198.18.2.1]}
log:
  level: warn
EOF
}

main() {
  local landlord="${1:-$repo/build/release/tools/landlord/landlord}"
  local sim="${2:-$repo/build/release/tools/landlord-sim/landlord-sim}"
  [[ $(id -u) -eq 0 ]] || { echo "needs root (network namespaces)"; exit 1; }
  local tool
  for tool in dhclient dhcrelay dhcpstarv sqlite3 jq kea-dhcp4; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (tools/install-deps --bench)"; exit 1; }
  done
  [[ -x "$landlord" && -x "$sim" ]] || { echo "build the release preset first: $landlord, $sim"; exit 1; }
  local results config server
  results="$(mktemp /tmp/landlord-bench-starvation.XXXXXX.jsonl)"
  config="$(mktemp /tmp/landlord-bench-config.XXXXXX.yaml)"
  landlord_config >"$config"
  for server in landlord kea; do
    local no_server=()
    [[ "$server" == kea ]] && no_server=(--no-server)
    BENCH_SERVER="$server" BENCH_RESULTS="$results" SIM="$(realpath "$sim")" \
      timeout --signal=INT 90 "$repo/tools/lab" --config "$config" --landlord "$landlord" --relay --clients 2 \
      --log-level warn "${no_server[@]}" run bash "$(realpath "$0")" inside
  done
  rm -f "$config"
  echo "---- results ($results)"
  cat "$results"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  main "$@"
fi
