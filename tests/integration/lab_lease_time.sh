#!/usr/bin/env bash
# Real dhclients ask for a lease time (`send dhcp-lease-time N;`, option 51) and get it within
# the subnet's `lease: {min, max}` (10s..40s here, time 20s): one asks for 30s and is granted
# 30s (T1 15s, T2 26s), one asks for an hour and is granted the max, 40s (T1 20s, T2 35s).
# Judged from the OFFER/ACK options in a capture, the store rows (lease_time_ms, renew_time_ms,
# rebind_time_ms) and the client's own lease file; the 30s client renews with 30s again.
# Usage: lab_lease_time.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

timers_row() {  # ADDRESS: "lease_ms|renew_ms|rebind_ms" from the store
  sqlite3 -cmd ".timeout 2000" "$LAB_STORE" \
    "select lease_time_ms, renew_time_ms, rebind_time_ms from leases where address = '$1'" 2>/dev/null
}

# The replies to CHADDR in the capture, each on one line.
replies_to() {  # CHADDR
  tcpdump -n -v -r "$LAB_DIR/lease.pcap" "src port 67 and dst port 68" 2>/dev/null |
    awk '/^[0-9:.]+ IP/ { if (line != "") print line; line = $0; next } { line = line " " $0 }
         END { if (line != "") print line }' | grep "Client-Ethernet-Address $1"
}

check_client() {  # NAME NS ASKED_S GRANTED_S T1_S T2_S; sets $address
  local name="$1" ns="$2" asked="$3" granted="$4" renew="$5" rebind="$6"
  wait_until 30 "$name to configure an address" has_address "$ns"
  local mac
  address="$(client_address "$ns")"
  mac="$(link_mac "$ns")"
  wait_until 5 "the bound lease of $name" lease_state_is "$address" bound
  [[ "$(timers_row "$address")" == "$((granted * 1000))|$((renew * 1000))|$((rebind * 1000))" ]] ||
    fail "$name asked for ${asked}s: store has $(timers_row "$address"), want ${granted}s/${renew}s/${rebind}s"
  log_has "info grant $address client $mac lease ${granted}s " || fail "no grant line with lease ${granted}s for $name"
  grep -q "option dhcp-lease-time $granted;" "$LAB_DIR/$name.leases" ||
    fail "$name's lease file does not hold the granted ${granted}s"
}

inside() {
  start_capture lease ll-srv0
  DHCLIENT_CONF_EXTRA='send dhcp-lease-time 30;' start_dhclient asks30 "$LAB_NS_CLIENT"
  DHCLIENT_CONF_EXTRA='send dhcp-lease-time 3600;' start_dhclient asks3600 "$LAB_NS_CLIENT1"
  local address asks30 asks3600
  check_client asks30 "$LAB_NS_CLIENT" 30 30 15 26
  asks30="$address"
  check_client asks3600 "$LAB_NS_CLIENT1" 3600 40 20 35
  asks3600="$address"
  note "asked 30s: granted 30s ($asks30); asked 3600s: granted the max, 40s ($asks3600)"

  # The 30s client renews by unicast (T1 15s) and is granted 30s again.
  wait_until 25 "the 30s client to renew" lease_state_is "$asks30" bound renewing
  [[ "$(timers_row "$asks30")" == "30000|15000|26000" ]] || fail "renewal stored $(timers_row "$asks30")"
  sleep 0.5
  stop_capture lease
  local mac30 mac3600 replies
  mac30="$(link_mac "$LAB_NS_CLIENT")"
  mac3600="$(link_mac "$LAB_NS_CLIENT1")"
  replies="$(replies_to "$mac30")"
  # OFFER, ACK and the renewal's ACK: each with lease 30s, T1 15s, T2 26s.
  (($(grep -c "Lease-Time (51), length 4: 30 " <<<"$replies") >= 3)) ||
    fail "fewer than 3 replies to $mac30 grant 30s: $replies"
  (($(grep -c "Lease-Time (51)" <<<"$replies") == $(grep -c "Lease-Time (51), length 4: 30 " <<<"$replies"))) ||
    fail "a reply to $mac30 granted another lease time"
  grep -q "RN (58), length 4: 15 .*RB (59), length 4: 26 " <<<"$replies" || fail "no T1 15s / T2 26s for $mac30"
  replies="$(replies_to "$mac3600")"
  (($(grep -c "Lease-Time (51), length 4: 40 " <<<"$replies") >= 2)) ||
    fail "the OFFER and ACK to $mac3600 do not grant the max 40s: $replies"
  grep -q "RN (58), length 4: 20 .*RB (59), length 4: 35 " <<<"$replies" || fail "no T1 20s / T2 35s for $mac3600"
  stop_client asks30
  stop_client asks3600
  echo "PASS: dhclient asking 30s got 30s (renewed with 30s), asking 3600s got the max 40s"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  extra="    lease: {min: 10s, max: 40s}"
  lab_main "$1" "$(EXTRA_SUBNET_KEYS="$extra" lab_config)" --clients 2
fi
