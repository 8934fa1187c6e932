#!/usr/bin/env bash
# A client behind a relay renews by unicast straight to the server at T1 (RFC 2131 §4.4.5:
# ciaddr set, no giaddr), and the server's ACK reaches it through the host's routing (the lab's
# server namespace routes 198.18.2.0/24 via the relay, as a real router would). Only when unicast
# to the server is impossible (its route removed in the client's namespace) does the client
# fall back to rebinding at T2, by broadcast, which dhcrelay relays with giaddr.
# Judged from a capture on the server's relay-facing link (ll-srv1), the client's own log (what
# it sent, and whose ACK it took) and the server's log.
# ISC dhcrelay reads its links with a packet socket, so it also relays the unicast renewal that
# its router forwards: the server gets that REQUEST twice, direct and relayed (giaddr set, which
# reads as REBINDING). The test allows that copy only at the very moment of the direct renewal,
# and the server must drop it as a duplicate: no rebind logged, the row still `renewing`.
# Usage: lab_relay_renew.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

lease_s=24

# One line per DHCP packet in capture NAME: "EPOCH_SECONDS <the packet's verbose text, joined>".
packets() {  # NAME [tcpdump filter]
  tcpdump -tt -n -v -r "$LAB_DIR/$1.pcap" "${@:2}" 2>/dev/null |
    awk '/^[0-9]+\.[0-9]+ IP/ { if (line != "") print line; line = $0; next } { line = line " " $0 }
         END { if (line != "") print line }'
}
stamp() { awk '{ print $1 }'; }
client_broadcast_after() {  # ADDRESS LINE: dhclient logged a broadcast REQUEST past LINE
  tail -n +"$(($2 + 1))" "$LAB_DIR/relayed.client.log" |
    grep -q "DHCPREQUEST for $1 on ll-rcl0 to 255.255.255.255 port 67"
}
rebinds_via_relay_above() {  # ADDRESS COUNT: more rebind lines via the relay than COUNT
  local count
  count="$(grep -c "info rebind $1 client .* via relay 198\.18\.2\.1" "$LAB_SERVER_LOG" || true)"
  ((count > $2))
}
# Seconds from A to B (epoch stamps), as an integer count of tenths.
tenths_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 10 }'; }

inside() {
  start_capture relayed ll-srv1
  start_dhclient relayed "$LAB_NS_RELAY_CLIENT" ll-rcl0
  wait_until 30 "the relayed client to get an address" has_address "$LAB_NS_RELAY_CLIENT" ll-rcl0
  local address
  address="$(client_address "$LAB_NS_RELAY_CLIENT" ll-rcl0)"
  [[ "$address" =~ ^198\.18\.2\.(1[0-9][0-9])$ ]] || fail "relayed client got $address, not from 198.18.2.100-199"
  wait_until 5 "the relayed lease row" lease_state_is "$address" bound
  note "relayed client has $address; lease ${lease_s}s, T1 $((lease_s / 2))s"

  # 1. Renewal at T1, by unicast to the server, answered by unicast to ciaddr.
  wait_until $((lease_s * 3 / 4)) "the relayed client to renew by unicast (RENEWING)" \
    log_has "info renew $address client .* via ll-srv1"
  wait_until 5 "the client to take the server's own ACK" \
    grep -q "DHCPACK of $address from 198.18.1.1" "$LAB_DIR/relayed.client.log"
  sleep 1
  stop_capture relayed
  local grant_ack renew_request renew_ack
  grant_ack="$(packets relayed "src host 198.18.1.1 and dst host 198.18.2.1 and dst port 67" |
    grep "DHCP-Message (53), length 1: ACK" | head -n 1 | stamp)"
  [[ -n "$grant_ack" ]] || fail "the capture shows no relayed ACK for the first grant"
  renew_request="$(packets relayed "src host $address and dst host 198.18.0.1 and dst port 67" |
    grep "DHCP-Message (53), length 1: Request" | grep "Client-IP $address" | grep -v "Gateway-IP" |
    head -n 1 | stamp)"
  [[ -n "$renew_request" ]] || fail "the capture shows no unicast REQUEST from $address (ciaddr set, giaddr 0) to 198.18.0.1"
  renew_ack="$(packets relayed "src host 198.18.1.1 and dst host $address and dst port 68" |
    grep "DHCP-Message (53), length 1: ACK" | head -n 1 | stamp)"
  [[ -n "$renew_ack" ]] || fail "the capture shows no ACK unicast to ciaddr $address:68"
  local renew_after
  renew_after="$(tenths_between "$grant_ack" "$renew_request")"
  # dhclient renews at 3/4 T1 + a random quarter of T1 (dhclient.c): 37.5%..56% of the lease.
  ((renew_after >= lease_s * 10 * 35 / 100 && renew_after <= lease_s * 10 * 65 / 100)) ||
    fail "the unicast renewal came $((renew_after / 10)).$((renew_after % 10))s after the grant, not near T1 ($((lease_s / 2))s)"
  # The client itself sent nothing but unicast after it was bound (before its route goes).
  sed -n '/^bound to/,$p' "$LAB_DIR/relayed.client.log" | grep "DHCPREQUEST" | grep -qv "to 198.18.0.1 port 67" &&
    fail "the client broadcast a REQUEST while it could reach the server by unicast"
  # Relayed REQUESTs: the one that selected the offer, and at most dhcrelay's copy of the
  # unicast renewal, within a second of it.
  local stamp_of
  while read -r stamp_of; do
    local apart
    apart="$(tenths_between "$renew_request" "$stamp_of")"
    ((apart > -10 && apart < 10)) ||
      fail "a relayed REQUEST with ciaddr $((apart / 10)).$((apart % 10))s from the unicast renewal: the client rebound"
  done < <(packets relayed "src host 198.18.1.2 and dst host 198.18.1.1 and dst port 67" |
    grep "DHCP-Message (53), length 1: Request" | grep "Client-IP $address" | stamp)
  local copies
  copies="$(packets relayed "src host 198.18.1.2 and dst host 198.18.1.1 and dst port 67" |
    grep "DHCP-Message (53), length 1: Request" | grep -c "Client-IP $address" || true)"
  if log_has "info rebind $address"; then fail "the T1 renewal (or dhcrelay's copy of it) was handled as a rebind"; fi
  lease_state_is "$address" bound renewing || fail "the lease row after the T1 renewal: $(lease_row "$address")"
  if ((copies > 0)); then
    log_has "ignore $address client .* via relay 198\.18\.2\.1: relayed copy of a renewal just answered" ||
      fail "dhcrelay relayed a copy of the renewal but the server did not drop it as a duplicate"
  fi
  note "renewed by unicast $((renew_after / 10)).$((renew_after % 10))s after the grant; ACK unicast to $address:68;" \
    "$copies relayed copies dropped as duplicates"

  # 2. Unicast to the server impossible from the client: it must rebind through the relay at T2.
  ip -n "$LAB_NS_RELAY_CLIENT" route del 198.18.0.0/24
  local rebinds_before
  rebinds_before="$(grep -c "info rebind $address client .* via relay 198\.18\.2\.1" "$LAB_SERVER_LOG" || true)"
  start_capture rebind ll-srv1
  local client_lines
  client_lines="$(wc -l <"$LAB_DIR/relayed.client.log")"
  wait_until $((lease_s + 5)) "the relayed client to rebind (REBINDING) by broadcast" \
    client_broadcast_after "$address" "$client_lines"
  wait_until 5 "the server to log the rebinding via the relay" rebinds_via_relay_above "$address" "$rebinds_before"
  sleep 1
  stop_capture rebind
  local rebind_request rebind_after
  rebind_request="$(packets rebind "src host 198.18.1.2 and dst host 198.18.1.1 and dst port 67" |
    grep "DHCP-Message (53), length 1: Request" | grep "Client-IP $address" | grep "Gateway-IP 198.18.2.1" |
    head -n 1 | stamp)"
  [[ -n "$rebind_request" ]] || fail "the capture shows no relayed REQUEST (giaddr 198.18.2.1, ciaddr $address)"
  rebind_after="$(tenths_between "$renew_ack" "$rebind_request")"
  # T2 is 87.5% of the lease after the renewal (dhclient does not randomise it).
  ((rebind_after >= lease_s * 10 * 80 / 100 && rebind_after < lease_s * 10)) ||
    fail "the relayed rebinding came $((rebind_after / 10)).$((rebind_after % 10))s after the renewal, not near T2"
  local unicast_after
  unicast_after="$(packets rebind "src host $address and dst host 198.18.0.1" | grep -c Request || true)"
  ((unicast_after == 0)) || fail "$unicast_after unicast REQUESTs reached the server with its route removed"
  [[ "$(client_address "$LAB_NS_RELAY_CLIENT" ll-rcl0)" == "$address" ]] || fail "the client lost its address"
  stop_client relayed
  echo "PASS: relayed dhclient renewed by unicast at T1 ($((renew_after / 10)).$((renew_after % 10))s of ${lease_s}s)," \
    "rebound through the relay at T2 ($((rebind_after / 10)).$((rebind_after % 10))s) only without a route to the server"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  LEASE_TIME=${lease_s}s lab_main "$1" "$(LEASE_TIME=${lease_s}s lab_config)" --relay
fi
