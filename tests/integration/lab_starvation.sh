#!/usr/bin/env bash
# Pool starvation in the namespace lab: Debian's dhcpstarv, then DHCPig, attack the served link
# from one namespace (both send every DISCOVER from their interface's own Ethernet address with
# a random chaddr), while legitimate clients keep being served:
#   - a real dhclient on another port of the attacked link, started once the attack has run
#     for a while (the witness: the issue saw it get nothing once the pool was drained);
#   - dhcpcd and a steady landlord-sim fleet behind a relay (dhcrelay, option 82) in another
#     namespace, getting leases, renewing at T1 and, with unicast blocked for a while,
#     rebinding at T2 (20 s leases).
# Three runs of the same attack, each in a fresh lab:
#   off     no defences (verify-chaddr off, no limits): asserts the attack works (the attacker
#           holds most of the direct pool, the witness gets nothing), so the test has teeth;
#   verify  the defaults (verify-chaddr on): the attackers get no address at all;
#   caps    verify-chaddr off, the link capped (relay-leases 20, relay-rate 2/s) and each sending
#           host on it (source-leases 8, source-offers 4, by its frames' source address): the
#           attackers hold at most 8 addresses, the rest stay free.
# In verify and caps every legitimate client behind the relay is served: dhcpcd and the fleet's
# clients all get leases, renew and rebind, nobody gives up, no violation, request p99 bounded.
# In verify and caps the witness on the attacked link gets an address too: in caps the attacker
# meets its own host's cap before the link's, so the link has room for its neighbours.
# A fourth run, flood: landlord-sim's own flood (100,000 clients at 20,000/s, each from its own
# spoofed Ethernet address, for 5 s) on the attacked link, with the link capped (relay-leases 50)
# and server.discover-max-wait 100ms; asserted: the flood holds at most 50 addresses, and dhcpcd
# and the fleet behind the relay are all served; the DISCOVERs shed for waiting too long are
# printed (the link's cap refuses the flood before the receive queue backs up). Spoofed sources look like 100,000 hosts, so the witness is not asserted.
# The figures (attacker's share, legitimate success and latency) are printed per run and
# written to $STARVATION_REPORT (default: $LAB_DIR/..., printed) when set.
# Attacks are bounded by `timeout`; everything runs inside the lab's namespaces.
# DHCPig runs from a copy with its BOOTP flags fixed (see inside()).
# Usage: lab_starvation.sh LANDLORD LANDLORD-SIM [off verify caps flood]   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

attack_s=${ATTACK_SECONDS:-24}      # dhcpstarv for the first half, DHCPig for the second
witness_after_s=${WITNESS_AFTER:-14}  # the direct dhclient starts this long into the attack
fleet_clients=${FLEET_CLIENTS:-40}
# Asserted, loosely: the ASan build on a shared 2-core box behind dhcrelay; the figure is reported
# (the issue's 10 ms target is bench/starvation.sh's, Release). 250 ms failed once at load 13
# (316 ms, builds beside it): the bound says "answered before the client's first retransmission".
p99_limit_ms=${P99_LIMIT_MS:-1000}

# ---- inside the lab (run by tools/lab) ---------------------------------------------------

attacker_leases() {  # bound leases in the direct subnet that are not the witness's
  sqlite3 -cmd ".timeout 2000" "$LAB_STORE" \
    "select count(*) from leases where subnet_id = 1 and state = 'bound' and hwaddr != '$1'" 2>/dev/null || echo 0
}

# The flood: landlord-sim's clients on the attacked link, bounded (5 s of arrivals, 20 s at most).
inside_flood() {
  local results="$STARVATION_RESULTS"
  note "[flood] landlord-sim flood in $LAB_NS_CLIENT, fleet and dhcpcd behind the relay"
  ip netns exec "$LAB_NS_RELAY_CLIENT" timeout 40 "$SIM" --interface ll-rcl0 --clients "$fleet_clients" \
    --rate 10 --duration 14s --stay 10m --seed 5 --retransmit-base 1s \
    --report "$LAB_DIR/fleet.json" >"$LAB_DIR/fleet.log" 2>&1 &
  local fleet_pid=$!
  start_dhcpcd dhcpcd "$LAB_NS_RELAY_CLIENT" ll-rcl0
  sleep 2
  ip netns exec "$LAB_NS_CLIENT" timeout 20 "$SIM" --interface ll-cli0 --clients 100000 --rate 20000 \
    --duration 5s --stay 10m --seed 9 --report "$LAB_DIR/flood.json" >"$LAB_DIR/flood.log" 2>&1 || true
  local attacker
  attacker="$(attacker_leases none)"
  wait "$fleet_pid" || true
  local dhcpcd_address
  dhcpcd_address="$(awk '$1 == "BOUND" || $1 == "REBOOT" { a = $2 } END { print a }' "$LAB_DIR/dhcpcd.events" 2>/dev/null)"
  stop_client dhcpcd
  kill -USR1 "$LAB_SERVER_PID" || fail "[flood] landlord is not running"
  wait_until 5 "the counters in the log" log_has "admission: admitted="
  [[ -s "$LAB_DIR/fleet.json" ]] || fail "no fleet report: $(tail -n 5 "$LAB_DIR/fleet.log")"
  [[ -s "$LAB_DIR/flood.json" ]] || fail "no flood report: $(tail -n 5 "$LAB_DIR/flood.log")"
  local counters shed fleet
  counters="$(grep -o 'admission: .*' "$LAB_SERVER_LOG" | tail -n 1)"
  shed="$(grep -o 'discover_shed=[0-9]*' <<<"$counters" | cut -d= -f2)"
  fleet="$(jq -c --argjson attacker "$attacker" --arg dhcpcd "$dhcpcd_address" --arg counters "$counters" \
    --arg overflow "$(grep -o 'receive_queue_overflow=[0-9]*' "$LAB_SERVER_LOG" | tail -n 1)" \
    --slurpfile flood "$LAB_DIR/flood.json" \
    '{mode: "flood", pool: 100, attacker_leases: $attacker, dhcpcd_address: $dhcpcd,
      flood: ($flood[0] | {clients, packets_sent: .packets.sent, leases_acquired, gave_up}),
      fleet: {clients, leases_acquired, gave_up, timeouts, violation_count,
              discover_offer_p99_ms: .latency_ms.discover_offer.p99, request_ack_p99_ms: .latency_ms.request_ack.p99},
      server: $counters, server_overflow: $overflow}' "$LAB_DIR/fleet.json")"
  echo "$fleet" >>"$results"
  note "[flood] $fleet"
  # Shedding is reported, not asserted: in the lab the link's cap refuses the flood's DISCOVERs
  # as fast as they come (relay_leases in the counters), so the receive queue does not back up
  # (seen 2026-12-02: discover_shed=0 with 119,620 refused by the cap). The shedding itself is
  # unit-tested (admission, server.discover-max-wait).
  note "[flood] DISCOVERs shed for waiting too long: ${shed:-0}"
  ((attacker <= 50)) || fail "[flood] the flood holds $attacker addresses, over relay-leases 50"
  [[ -n "$dhcpcd_address" ]] || fail "[flood] dhcpcd behind the relay got no address"
  jq -e --argjson n "$fleet_clients" '.leases_acquired >= $n and .gave_up == 0' "$LAB_DIR/fleet.json" >/dev/null ||
    fail "[flood] fleet not fully served: $fleet"
}

inside() {
  local mode="$STARVATION_MODE" results="$STARVATION_RESULTS" witness_mac
  if [[ "$mode" == flood ]]; then
    inside_flood
    return
  fi
  witness_mac="$(link_mac "$LAB_NS_CLIENT1")"
  note "[$mode] attacker in $LAB_NS_CLIENT, witness dhclient in $LAB_NS_CLIENT1 ($witness_mac), fleet behind the relay"

  # The fleet and dhcpcd behind the relay, from the start; unicast to the server blocked from
  # 12 s to 24 s so renewals fail and the clients rebind at T2 through the relay.
  ip netns exec "$LAB_NS_RELAY_CLIENT" timeout 60 "$SIM" --interface ll-rcl0 --clients "$fleet_clients" \
    --rate 10 --duration 44s --stay 10m --seed 5 --retransmit-base 1s --renew-min 1s \
    --block-unicast 12s+12s --report "$LAB_DIR/fleet.json" >"$LAB_DIR/fleet.log" 2>&1 &
  local fleet_pid=$!
  start_dhcpcd dhcpcd "$LAB_NS_RELAY_CLIENT" ll-rcl0

  # The attack, bounded: dhcpstarv, then DHCPig (no neighbour attacks: no -g, -r, -n).
  sleep 2
  local attack_started=$SECONDS half=$((attack_s / 2))
  ip netns exec "$LAB_NS_CLIENT" timeout "$half" dhcpstarv -v -i ll-cli0 >"$LAB_DIR/dhcpstarv.log" 2>&1 &
  local starv_pid=$! drained_s=-1 second
  for ((second = 1; second <= half; second++)); do  # how long the pool lasts
    sleep 1
    if ((drained_s < 0)) && (($(attacker_leases "$witness_mac") >= 100)); then drained_s=$second; fi
  done
  wait "$starv_pid" 2>/dev/null || true
  local after_dhcpstarv
  after_dhcpstarv="$(attacker_leases "$witness_mac")"
  # Debian 12's dhcpig 1.5-3 dies on its first DISCOVER under scapy 2.5: BOOTP flags 0xFFFFFF
  # (a 16-bit field) and Python 2 option values (chr(N) for bytes). A copy with the broadcast
  # flag alone (0x8000) and integer/bytes values sends the same DISCOVERs.
  sed -e 's/flags=0xFFFFFF/flags=0x8000/g' -e 's/chr(\([0-9]*\))/\1/g' \
    -e 's/("client_id", 1, mac2str(m))/("client_id", b"\\x01" + mac2str(m))/' \
    "$(command -v dhcpig)" >"$LAB_DIR/dhcpig"
  ip netns exec "$LAB_NS_CLIENT" timeout "$half" "$(head -n 1 "$(command -v dhcpig)" | cut -c3-)" "$LAB_DIR/dhcpig" -v 10 ll-cli0 >"$LAB_DIR/dhcpig.log" 2>&1 &
  local pig_pid=$!

  # The witness joins the attacked link while the attack goes on.
  sleep $((witness_after_s - half > 0 ? witness_after_s - half : 0))
  local witness_started=$SECONDS
  start_dhclient witness "$LAB_NS_CLIENT1"
  local witness_address="" witness_s=-1
  while ((SECONDS - witness_started < 15)); do
    if has_address "$LAB_NS_CLIENT1"; then
      witness_address="$(client_address "$LAB_NS_CLIENT1")"
      witness_s=$((SECONDS - witness_started))
      break
    fi
    sleep 0.2
  done
  wait "$pig_pid" 2>/dev/null || true
  local attack_ran_s=$((SECONDS - attack_started)) attacker
  attacker="$(attacker_leases "$witness_mac")"
  wait "$fleet_pid" || true
  local dhcpcd_address
  dhcpcd_address="$(awk '$1 == "BOUND" || $1 == "REBOOT" { a = $2 } END { print a }' "$LAB_DIR/dhcpcd.events" 2>/dev/null)"
  stop_client witness
  stop_client dhcpcd
  kill -USR1 "$LAB_SERVER_PID" || fail "[$mode] landlord is not running"
  wait_until 5 "the counters in the log" log_has "admission: admitted="

  [[ -s "$LAB_DIR/fleet.json" ]] || fail "no fleet report: $(tail -n 5 "$LAB_DIR/fleet.log")"
  local fleet
  fleet="$(jq -c --arg mode "$mode" --argjson attacker "$attacker" --argjson after_dhcpstarv "$after_dhcpstarv" \
    --arg witness "$witness_address" --argjson witness_s "$witness_s" --arg dhcpcd "$dhcpcd_address" \
    --argjson attack_s "$attack_ran_s" --argjson drained_s "$drained_s" --arg counters "$(grep -o 'admission: .*' "$LAB_SERVER_LOG" | tail -n 1)" \
    '{mode: $mode, attack_s: $attack_s, pool: 100, attacker_leases: $attacker,
      attacker_leases_after_dhcpstarv: $after_dhcpstarv, pool_drained_after_s: $drained_s,
      witness_address: $witness, witness_seconds: $witness_s, dhcpcd_address: $dhcpcd,
      fleet: {clients, leases_acquired, gave_up, timeouts, renewals: .renewals.count, rebinds: .rebinds.count,
              violation_count, discover_offer_p99_ms: .latency_ms.discover_offer.p99,
              request_ack_p99_ms: .latency_ms.request_ack.p99, renew_p99_ms: .latency_ms.renew.p99,
              rebind_p99_ms: .latency_ms.rebind.p99},
      server: $counters}' "$LAB_DIR/fleet.json")"
  echo "$fleet" >>"$results"
  note "[$mode] $fleet"

  # Every run: no violation in what the fleet saw, but for dhcpcd's replies on the same link
  # (the fleet's promiscuous socket sees them: "unsolicited-reply ... chaddr DHCPCD_MAC").
  local dhcpcd_mac
  dhcpcd_mac="$(link_mac "$LAB_NS_RELAY_CLIENT" ll-rcl0)"
  jq -e --arg mac "$dhcpcd_mac" '.violation_count == (.violations | length) and
      ([.violations[] | select((.kind == "unsolicited-reply" and (.detail | contains($mac))) | not)] | length == 0)' \
    "$LAB_DIR/fleet.json" >/dev/null || fail "[$mode] fleet violations: $(jq -c .violations[:5] "$LAB_DIR/fleet.json")"
  if [[ "$mode" == off ]]; then
    ((attacker >= 80)) || fail "[off] the undefended attack took only $attacker of 100 addresses: the lab does not reproduce it"
    [[ -z "$witness_address" ]] || note "[off] the witness still got $witness_address"
    return 0
  fi
  # The witness shares the link with the attacker: served when the attacker is told apart by
  # its frames, its chaddrs checked (verify) or its addresses counted per host (caps).
  [[ -n "$witness_address" ]] || fail "[$mode] the witness dhclient on the attacked link got no address in 15 s"

  [[ -n "$dhcpcd_address" ]] || fail "[$mode] dhcpcd behind the relay got no address"
  jq -e --argjson n "$fleet_clients" '.leases_acquired >= $n and .gave_up == 0' "$LAB_DIR/fleet.json" >/dev/null ||
    fail "[$mode] fleet not fully served: $fleet"
  jq -e '.renewals.count > 0 and .rebinds.count > 0' "$LAB_DIR/fleet.json" >/dev/null ||
    fail "[$mode] the fleet did not both renew and rebind: $fleet"
  jq -e --argjson limit "$p99_limit_ms" '.latency_ms.request_ack.p99 < $limit and .latency_ms.discover_offer.p99 < $limit' \
    "$LAB_DIR/fleet.json" >/dev/null || fail "[$mode] fleet p99 over ${p99_limit_ms} ms: $fleet"
  case "$mode" in
    verify)
      ((attacker == 0)) || fail "[verify] the attackers hold $attacker addresses despite verify-chaddr"
      grep -q "chaddr_mismatch=[1-9]" <<<"$fleet" || fail "[verify] no chaddr mismatch counted"
      log_has "not the sender's own address \(admission.verify-chaddr" || fail "[verify] no log line names the mismatch"
      ;;
    caps)
      ((attacker <= 8)) || fail "[caps] the attackers hold $attacker addresses, over source-leases 8"
      grep -q "source_leases=[1-9]" <<<"$fleet" || fail "[caps] no source_leases refusal counted"
      log_has "refused a new address to .* link ll-srv0.* source_leases limit \(admission\)" || fail "[caps] no refusal logged"
      ;;
  esac
}

# ---- on the host --------------------------------------------------------------------------

config_for() {  # MODE
  local admission
  case "$1" in
    off) admission="{verify-chaddr: false, client-rate: 0, source-offers: 0}" ;;
    verify) admission="{}" ;;
    caps) admission="{verify-chaddr: false, relay-rate: 2/s, relay-burst: 10, relay-leases: 20, source-offers: 4, source-leases: 8}" ;;
    flood) admission="{relay-leases: 50}" ;;
  esac
  local max_wait=1s
  [[ "$1" == flood ]] && max_wait=100ms
  cat <<EOF
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
  discover-max-wait: $max_wait
store:
  type: sqlite
  path: /tmp/landlord-test-placeholder.db
lease:
  time: 20s
  renew: 50%
  rebind: 87.5%
subnets:
  - subnet: 198.18.0.0/24          # the attacked link
    interfaces: [ll-srv0]
    pools: [198.18.0.100-198.18.0.199]
    lease: {time: 10m}
    admission: $admission
    options: {routers: [198.18.0.1]}
  - subnet: 198.18.2.0/24          # behind the relay
    pools: [198.18.2.10-198.18.2.250]
    relays: [198.18.1.2]
    options: {routers: [198.18.2.1]}
log:
  level: info
EOF
}

main() {
  local landlord="$1" sim="$2"
  shift 2
  local modes=("$@")
  ((${#modes[@]})) || modes=(off verify caps flood)
  [[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
  local tool
  for tool in dhclient dhcpcd dhcrelay sqlite3 jq dhcpstarv dhcpig; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (tools/install-deps)"
  done
  local results
  results="${STARVATION_REPORT:-$(mktemp /tmp/landlord-starvation.XXXXXX.jsonl)}"
  : >"$results"
  local mode status=0 config
  for mode in "${modes[@]}"; do
    config="$(mktemp /tmp/landlord-test-config.XXXXXX.yaml)"
    config_for "$mode" >"$config"
    STARVATION_MODE="$mode" STARVATION_RESULTS="$results" SIM="$(realpath "$sim")" \
      timeout --signal=INT 150 "$repo/tools/lab" --config "$config" --landlord "$landlord" --relay --clients 2 \
      --log-level info run bash "$(realpath "$0")" inside || status=$?
    rm -f "$config"
    ((status == 0)) || break
  done
  echo "---- results ($results)"
  cat "$results"
  exit "$status"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  main "$@"
fi
