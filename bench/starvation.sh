#!/usr/bin/env bash
# Pool starvation, landlord (a release build) and Kea 2.2 side by side (issue #16), in the
# namespace lab (tools/lab: addresses from 198.18.0.0/15 only, nothing on the host). For each
# server and each attack, a fresh lab:
#   - the attack, from the client namespace on the directly served link (ll-srv0, a pool of
#     100 addresses), bounded by `timeout`:
#       dhcpstarv  Debian's dhcpstarv for 20 s (its interface's own Ethernet source, a new
#                  random chaddr per DISCOVER);
#       dhcpig     DHCPig for 20 s (the same, from a copy with its BOOTP flags fixed, as
#                  tests/integration/lab_starvation.sh does);
#       flood      landlord-sim --clients 100000 --rate 20000 for 5 s, each client from its own
#                  spoofed Ethernet source address;
#       none       no attack (named only on request): the baseline of the same run;
#   - the legitimate clients: a landlord-sim fleet of 40 behind dhcrelay (option 82) arriving
#     at 2 a second from the start (so through the attack), on 20 s leases renewing at T1 and,
#     with unicast blocked from 12 s to 20 s, rebinding at T2; dhcpcd behind the relay too; and
#     a witness dhclient on another port of the attacked link, started 8 s into the attack.
# Reported per server and attack: the attacker's share of the direct pool, the fleet's success
# (leases acquired of 40, gave up, timeouts), its p50/p99 DISCOVER->OFFER, REQUEST->ACK, renew
# and rebind latencies over the run (the attack covers most of it), dhcpcd's and the witness's
# addresses. `uptime` before each run: the box may be shared.
# landlord runs with its admission defaults (verify-chaddr on, per-client and per-host limits)
# plus an operator's cap on the attacked link (relay-leases 50); Kea with its defaults (it has
# no such defence). Both keep leases on disk (landlord SQLite, Kea memfile).
# Not a CI test: the figures for bench/README.md. Bounded: each run is under 90 s.
# Usage: sudo [STARVATION_STORE=disk|tmpfs|memory] [STARVATION_SERVERS="landlord kea"] \
#          bench/starvation.sh [LANDLORD] [LANDLORD-SIM] [ATTACK...]
#        (defaults: build/release/tools/landlord/landlord, build/release/tools/landlord-sim/landlord-sim,
#         all three attacks, both servers)
# STARVATION_ATTACK_NICE=N runs the attack at nice N (0): on this 2-core box the attacker shares
# the server's CPUs, which an attacker on another host does not.
# STARVATION_STORE says where landlord keeps its leases, to tell the disk from the code: disk
# (default: SQLite in the lab's directory under /tmp), tmpfs (SQLite on a tmpfs this script
# mounts: the same fsyncs, costing nothing), memory (store.type memory: no store write at all).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/tests/integration/lab_lib.sh"

attack_s=20
witness_after_s=8
fleet_clients=40

# ---- inside the lab -----------------------------------------------------------------------

kea_config() {  # the same two subnets as landlord's config below
  cat <<EOF
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["ll-srv0", "ll-srv1"], "dhcp-socket-type": "raw" },
  "lease-database": { "type": "memfile", "persist": true, "name": "$LAB_DIR/kea-leases.csv", "lfc-interval": 0 },
  "calculate-tee-times": true,
  "subnet4": [
    { "id": 1, "subnet": "198.18.0.0/24", "interface": "ll-srv0", "valid-lifetime": 600,
      "pools": [ { "pool": "198.18.0.100 - 198.18.0.199" } ],
      "option-data": [ { "name": "routers", "data": "198.18.0.1" } ] },
    { "id": 2, "subnet": "198.18.2.0/24", "valid-lifetime": 20,
      "relay": { "ip-addresses": ["198.18.2.1"] },
      "pools": [ { "pool": "198.18.2.10 - 198.18.2.250" } ],
      "option-data": [ { "name": "routers", "data": "198.18.2.1" } ] } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "WARN",
                 "output_options": [ { "output": "$LAB_DIR/kea.log" } ] } ]
} }
EOF
}

# Addresses of the direct pool held by anyone but the witness.
attacker_leases() {  # SERVER WITNESS_MAC WITNESS_BOUND(0/1)
  if [[ "$1" == kea ]]; then
    # memfile CSV: address,hwaddr,client_id,valid_lifetime,expire,subnet_id,...,state; the
    # last line per address wins; state 0 is a lease in use.
    awk -F, -v witness="$2" 'NR > 1 && $6 == 1 { last[$1] = $2 "," $10 }
      END { for (a in last) { split(last[a], f, ","); if (f[1] != witness && f[2] == 0) n++ } print n + 0 }' \
      "$LAB_DIR/kea-leases.csv" 2>/dev/null || echo 0
  elif [[ "$BENCH_STORE" == memory ]]; then
    # No file to ask: the bound leases of the attacked subnet on /metrics, less the witness's.
    local bound
    bound="$(curl -sS --max-time 5 --unix-socket "$BENCH_CONTROL_SOCKET" http://landlord/metrics |
      awk '$1 == "landlord_leases{subnet_id=\"1\",subnet=\"198.18.0.0/24\",state=\"bound\"}" { print $2 }')"
    echo $(( ${bound:-0} - ($3 ? 1 : 0) ))
  else
    sqlite3 -cmd ".timeout 2000" "$LAB_STORE" \
      "select count(*) from leases where subnet_id = 1 and state = 'bound' and hwaddr != '$2'" 2>/dev/null || echo 0
  fi
}

# histogram_ms NAME FILE: [p50, p99] in ms of a Prometheus histogram (the upper bounds of the
# buckets the quantiles fall in), or null.
histogram_ms() {
  local result
  result="$(awk -v name="$1" '
    index($1, name "_bucket{le=\"") == 1 {
      le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le); bound[n] = le; count[n++] = $2 }
    $1 == name "_count" { total = $2 }
    function ms(le) { return le == "+Inf" ? "null" : le * 1000 }
    END {
      if (total == 0) { print "null"; exit }
      for (i = 0; i < n; i++) {
        if (p50 == "" && count[i] >= 0.5 * total) p50 = bound[i]
        if (p99 == "" && count[i] >= 0.99 * total) p99 = bound[i]
      }
      print "[" ms(p50) "," ms(p99) "]"
    }' "$2" 2>/dev/null)"
  echo "${result:-null}"
}

attack() {  # NAME: runs the attack in the client namespace, bounded
  local nice_attack=(nice -n "${STARVATION_ATTACK_NICE:-0}")
  case "$1" in
    none)  # the baseline: the same run with no attacker
      sleep "$attack_s" ;;
    dhcpstarv)
      ip netns exec "$LAB_NS_CLIENT" "${nice_attack[@]}" timeout "$attack_s" dhcpstarv -i ll-cli0 >"$LAB_DIR/attack.log" 2>&1 ;;
    dhcpig)
      # Debian 12's dhcpig 1.5-3 dies on its first DISCOVER under scapy 2.5 (BOOTP flags
      # 0xFFFFFF, Python 2 option values): the fixed copy lab_starvation.sh uses.
      sed -e 's/flags=0xFFFFFF/flags=0x8000/g' -e 's/chr(\([0-9]*\))/\1/g' \
        -e 's/("client_id", 1, mac2str(m))/("client_id", b"\\x01" + mac2str(m))/' \
        "$(command -v dhcpig)" >"$LAB_DIR/dhcpig"
      ip netns exec "$LAB_NS_CLIENT" "${nice_attack[@]}" timeout "$attack_s" "$(head -n 1 "$(command -v dhcpig)" | cut -c3-)" \
        "$LAB_DIR/dhcpig" -v 10 ll-cli0 >"$LAB_DIR/attack.log" 2>&1 ;;
    flood)
      ip netns exec "$LAB_NS_CLIENT" "${nice_attack[@]}" timeout "$attack_s" "$SIM" --interface ll-cli0 --clients 100000 \
        --rate 20000 --duration 5s --stay 10m --seed 9 --report "$LAB_DIR/flood.json" >"$LAB_DIR/attack.log" 2>&1 ;;
  esac
}

inside() {
  local server="$BENCH_SERVER" attack_name="$BENCH_ATTACK" witness_mac kea_pid=""
  witness_mac="$(link_mac "$LAB_NS_CLIENT1")"
  if [[ "$server" == kea ]]; then
    kea_config >"$LAB_DIR/kea.json"
    ip netns exec "$LAB_NS_SERVER" env KEA_PIDFILE_DIR="$LAB_DIR" KEA_LOCKFILE_DIR="$LAB_DIR" \
      kea-dhcp4 -c "$LAB_DIR/kea.json" >"$LAB_DIR/kea.out" 2>&1 &
    kea_pid=$!
    wait_until 10 "kea-dhcp4 listening" bash -c "ip netns exec '$LAB_NS_SERVER' ss -Huln 'sport = :67' | grep -q ."
  fi
  ip netns exec "$LAB_NS_RELAY_CLIENT" timeout 60 "$SIM" --interface ll-rcl0 --clients "$fleet_clients" \
    --rate 2 --duration 32s --stay 10m --seed 5 --retransmit-base 1s --renew-min 1s \
    --block-unicast 12s+8s --report "$LAB_DIR/fleet.json" >"$LAB_DIR/fleet.log" 2>&1 &
  local fleet_pid=$!
  start_dhcpcd dhcpcd "$LAB_NS_RELAY_CLIENT" ll-rcl0
  sleep 2
  attack "$attack_name" &
  local attack_pid=$!
  sleep "$witness_after_s"
  start_dhclient witness "$LAB_NS_CLIENT1"
  local started=$SECONDS witness_s=-1 witness_address=""
  while ((SECONDS - started < 15)); do
    if has_address "$LAB_NS_CLIENT1"; then
      witness_address="$(client_address "$LAB_NS_CLIENT1")"
      witness_s=$((SECONDS - started))
      break
    fi
    sleep 0.2
  done
  wait "$attack_pid" 2>/dev/null || true
  local attacker
  attacker="$(attacker_leases "$server" "$witness_mac" "$([[ -n "$witness_address" ]] && echo 1 || echo 0)")"
  wait "$fleet_pid" || true
  local dhcpcd_address
  dhcpcd_address="$(awk '$1 == "BOUND" || $1 == "REBOOT" { a = $2 } END { print a }' "$LAB_DIR/dhcpcd.events" 2>/dev/null)"
  stop_client witness
  stop_client dhcpcd
  # landlord's own view: how long its commits (fsync) and REQUEST->ACK took, from /metrics.
  local commit_ms=null ack_ms=null threads=null
  if [[ "$server" == landlord ]]; then
    # CPU time and time runnable but waiting for a CPU over the run (schedstat, ms) of
    # landlord's event loop (its main thread) and of its other threads together (the store's
    # worker, its checkpointer, ...): what a busy box costs it.
    threads="$(for task in /proc/"$LAB_SERVER_PID"/task/*; do
        printf '%s %s\n' "$([[ ${task##*/} == "$LAB_SERVER_PID" ]] && echo loop || echo others)" "$(cat "$task/schedstat")"
      done 2>/dev/null | awk '{ cpu[$1] += $2 / 1e6; wait[$1] += $3 / 1e6 }
        END { printf "{"; for (t in cpu) printf "%s\"%s\":[%.0f,%.0f]", n++ ? "," : "", t, cpu[t], wait[t]; print "}" }')"
    [[ -n "$threads" ]] || threads=null
    curl -sS --max-time 5 --unix-socket "$BENCH_CONTROL_SOCKET" http://landlord/metrics >"$LAB_DIR/metrics.txt" || true
    commit_ms="$(histogram_ms landlord_commit_duration_seconds "$LAB_DIR/metrics.txt")"
    ack_ms="$(histogram_ms landlord_request_to_ack_seconds "$LAB_DIR/metrics.txt")"
  fi
  if [[ -n "$kea_pid" ]]; then kill "$kea_pid" 2>/dev/null || true; wait "$kea_pid" 2>/dev/null || true; fi
  local keep="$BENCH_LOGS/$server-$attack_name"
  mkdir -p "$keep"
  cp "$LAB_DIR"/*.log "$LAB_DIR"/*.json "$LAB_DIR"/*.txt "$LAB_DIR"/*.out "$keep"/ 2>/dev/null || true
  [[ -s "$LAB_DIR/fleet.json" ]] || fail "no fleet report: $(tail -n 5 "$LAB_DIR/fleet.log")"
  local flood_sent=null
  [[ -s "$LAB_DIR/flood.json" ]] && flood_sent="$(jq .packets.sent "$LAB_DIR/flood.json")"
  jq -c --arg server "$server" --arg attack "$attack_name" --argjson attacker "$attacker" \
    --argjson witness_s "$witness_s" --arg witness "$witness_address" --arg dhcpcd "$dhcpcd_address" \
    --argjson flood_sent "$flood_sent" --arg load "$BENCH_LOAD" --arg store "$BENCH_STORE" \
    --argjson attack_nice "${STARVATION_ATTACK_NICE:-0}" \
    --argjson commit_ms "$commit_ms" --argjson server_ack_ms "$ack_ms" --argjson threads "$threads" \
    '{server: $server, attack: $attack, store: (if $server == "kea" then "memfile" else $store end),
      load: $load, attack_nice: $attack_nice, attacker_leases_of_100: $attacker,
      server_commit_p50_p99_ms: $commit_ms, server_request_to_ack_p50_p99_ms: $server_ack_ms,
      server_threads_cpu_and_runqueue_wait_ms: $threads,
      flood_packets_sent: $flood_sent, witness_address: $witness, witness_seconds: $witness_s,
      dhcpcd_address: $dhcpcd,
      fleet: {clients, leases_acquired, gave_up, timeouts, naks: .naks, renewals: .renewals.count,
              rebinds: .rebinds.count, violation_count,
              discover_offer_ms: [.latency_ms.discover_offer.p50, .latency_ms.discover_offer.p99],
              request_ack_ms: [.latency_ms.request_ack.p50, .latency_ms.request_ack.p99],
              renew_ms: [.latency_ms.renew.p50, .latency_ms.renew.p99],
              rebind_ms: [.latency_ms.rebind.p50, .latency_ms.rebind.p99]}}' \
    "$LAB_DIR/fleet.json" >>"$BENCH_RESULTS"
  tail -n 1 "$BENCH_RESULTS"
}

# ---- on the host --------------------------------------------------------------------------

landlord_config() {
  cat <<EOF
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
store:
  type: $BENCH_STORE_TYPE
  path: /tmp/landlord-bench-placeholder.db
subnets:
  - subnet: 198.18.0.0/24          # the attacked link
    interfaces: [ll-srv0]
    pools: [198.18.0.100-198.18.0.199]
    lease: {time: 10m}
    admission: {relay-leases: 50}  # the operator's cap for the link; the rest are defaults
    options: {routers: [198.18.0.1]}
  - subnet: 198.18.2.0/24          # behind the relay
    pools: [198.18.2.10-198.18.2.250]
    relays: [198.18.1.2]
    lease: {time: 20s, renew: 50%, rebind: 87.5%}
    options: {routers: [198.18.2.1]}
control:
  socket: $BENCH_CONTROL_SOCKET
log:
  level: warn
EOF
}

main() {
  local landlord="${1:-$repo/build/release/tools/landlord/landlord}"
  local sim="${2:-$repo/build/release/tools/landlord-sim/landlord-sim}"
  shift $(($# < 2 ? $# : 2))
  local attacks=("$@")
  ((${#attacks[@]})) || attacks=(dhcpstarv dhcpig flood)
  [[ $(id -u) -eq 0 ]] || { echo "needs root (network namespaces)"; exit 1; }
  local tool
  for tool in dhclient dhcpcd dhcrelay dhcpstarv dhcpig sqlite3 jq kea-dhcp4; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (tools/install-deps)"; exit 1; }
  done
  [[ -x "$landlord" && -x "$sim" ]] || { echo "build the release preset first: $landlord, $sim"; exit 1; }
  local store="${STARVATION_STORE:-disk}" servers=(${STARVATION_SERVERS:-landlord kea})
  [[ "$store" =~ ^(disk|tmpfs|memory)$ ]] || { echo "STARVATION_STORE: disk, tmpfs or memory"; exit 2; }
  local results server attack_name
  results="$(mktemp /tmp/landlord-bench-starvation.XXXXXX.jsonl)"
  BENCH_LOGS="$(mktemp -d /tmp/landlord-bench-starvation.XXXXXX)"  # each run's logs, kept
  export BENCH_LOGS
  bench_config="$(mktemp /tmp/landlord-bench-config.XXXXXX.yaml)"
  store_dir=""
  trap 'rm -f "$bench_config" "${bench_config%.yaml}.sock"; if [[ -n "$store_dir" ]]; then umount "$store_dir"; rmdir "$store_dir"; fi' EXIT
  local store_args=()
  if [[ "$store" == tmpfs ]]; then
    store_dir="$(mktemp -d /tmp/landlord-bench-store.XXXXXX)"
    mount -t tmpfs -o size=64m tmpfs "$store_dir"
    store_args=(--store-dir "$store_dir")
  fi
  local config="$bench_config"
  BENCH_STORE_TYPE="$([[ "$store" == memory ]] && echo memory || echo sqlite)" \
    BENCH_CONTROL_SOCKET="${bench_config%.yaml}.sock" landlord_config >"$config"
  for attack_name in "${attacks[@]}"; do
    for server in "${servers[@]}"; do
      local no_server=()
      [[ "$server" == kea ]] && no_server=(--no-server)
      [[ -n "$store_dir" ]] && rm -f "$store_dir"/leases.db*  # a fresh store per run
      echo "== $server under $attack_name, store $store; $(uptime)"
      BENCH_SERVER="$server" BENCH_ATTACK="$attack_name" BENCH_RESULTS="$results" SIM="$(realpath "$sim")" \
        BENCH_CONTROL_SOCKET="${bench_config%.yaml}.sock" BENCH_STORE="$store" \
        BENCH_LOAD="$(cut -d' ' -f1-3 /proc/loadavg)" \
        timeout --signal=INT 90 "$repo/tools/lab" --config "$config" --landlord "$landlord" --relay --clients 2 \
        --log-level warn "${store_args[@]}" "${no_server[@]}" run bash "$(realpath "$0")" inside ||
        echo "run failed: $server $attack_name"
    done
  done
  echo "---- results ($results; logs in $BENCH_LOGS)"
  cat "$results"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  main "$@"
fi
