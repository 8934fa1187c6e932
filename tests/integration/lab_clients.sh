#!/usr/bin/env bash
# Real clients against landlord in the namespace lab: ISC dhclient, dhcpcd and busybox udhcpc,
# each in its own namespace on the served link, none asking for broadcast replies.
#  1. each gets a lease from the pool; the server's OFFER and ACK to a client with no address yet
#     are unicast Ethernet frames to its chaddr and yiaddr, sent without asking ARP (capture,
#     read by dhcp_frames, and the server's neighbour table);
#  2. each renews by unicast to the server near T1 (15 s of a 30 s lease): the store records
#     last_extension = renewing, the log says renew, the capture shows the unicast REQUEST;
#  3. with unicast to the server blocked in the client namespaces (a host route to an unused
#     on-link address), each rebinds by broadcast near T2: the store records rebinding.
# Usage: DHCP_FRAMES=path/to/dhcp_frames lab_clients.sh LANDLORD   (exit 77 = skipped: not root, no netns, clients missing)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

clients=(dhclient dhcpcd udhcpc)

inside() {
  local namespaces=("$LAB_NS_CLIENT" "$LAB_NS_CLIENT1" "$LAB_NS_CLIENT2")
  start_capture clients ll-srv0
  local i
  for i in 0 1 2; do "start_${clients[$i]}" "${clients[$i]}" "${namespaces[$i]}"; done

  # 1. Leases from the pool, one per client, recorded as bound.
  declare -A address
  for i in 0 1 2; do
    local name="${clients[$i]}" ns="${namespaces[$i]}"
    wait_until 30 "$name to configure an address" has_address "$ns"
    address[$name]="$(client_address "$ns")"
    [[ "${address[$name]}" =~ ^198\.18\.0\.(1[0-9][0-9])$ ]] || fail "$name got ${address[$name]}, not from the pool"
    wait_until 5 "bound lease for $name in the store" lease_state_is "${address[$name]}" bound
    local mac
    mac="$(link_mac "$ns")"
    [[ "$(lease_row "${address[$name]}")" == "bound|$mac|"* ]] || fail "store row for $name: $(lease_row "${address[$name]}")"
    log_has "info grant ${address[$name]} client $mac" || fail "no grant line for $name"
    note "$name has ${address[$name]} ($mac)"
  done
  # Nothing the server sent them so far went through the kernel's neighbour resolution: no
  # incomplete or failed entry for a client's address (entries a client's own ARP creates at
  # its renewal are STALE or REACHABLE).
  local unresolved
  unresolved="$(ip -4 -n "$LAB_NS_SERVER" neigh show dev ll-srv0 | grep -E 'INCOMPLETE|FAILED' || true)"
  [[ -z $unresolved ]] || fail "the server tried to resolve client addresses: $unresolved"
  [[ "${address[dhclient]}" != "${address[dhcpcd]}" && "${address[dhcpcd]}" != "${address[udhcpc]}" &&
     "${address[dhclient]}" != "${address[udhcpc]}" ]] || fail "two clients share an address"

  # 2. Renewal by unicast near T1 (15 s).
  for i in 0 1 2; do
    local name="${clients[$i]}"
    wait_until 25 "$name to renew (RENEWING)" lease_state_is "${address[$name]}" bound renewing
    log_has "info renew ${address[$name]} " || fail "no renew line for $name"
    note "$name renewed by unicast"
  done
  stop_capture clients
  for i in 0 1 2; do
    local name="${clients[$i]}"
    read_capture clients "src host ${address[$name]} and dst host 198.18.0.1 and dst port 67" |
      grep -q "DHCP-Message (53), length 1: Request" ||
      fail "the capture shows no unicast REQUEST from $name (${address[$name]}) to 198.18.0.1"
  done
  # The replies to the clients while they had no address yet (ciaddr 0, no broadcast flag)
  # left as unicast frames to chaddr and yiaddr, and the server never asked ARP for a client's
  # address before that client itself had talked to it from that address (its renewal).
  capture_frames clients
  local macs=()
  for i in 0 1 2; do macs+=("$(link_mac "${namespaces[$i]}")"); done
  local verdict
  verdict="$(awk -v macs="${macs[*]}" '
    BEGIN { n = split(macs, list, " "); for (i = 1; i <= n; i++) client[list[i]] = 1 }
    { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
    $1 == "dhcp" && f["op"] == "request" && f["ciaddr"] != "0.0.0.0" && !(f["ciaddr"] in talked) {
      talked[f["ciaddr"]] = f["frame"]
    }
    $1 == "arp" && f["op"] == "request" && f["sender"] == "198.18.0.1" && !(f["target"] in talked) {
      print "ARP-BEFORE-CLIENT frame " f["frame"] " who-has " f["target"]
    }
    $1 == "dhcp" && f["op"] == "reply" && f["ciaddr"] == "0.0.0.0" && f["broadcast_flag"] == 0 &&
      (f["type"] == "DHCPOFFER" || f["type"] == "DHCPACK") && (f["chaddr"] in client) {
      if (f["eth_dst"] != f["chaddr"] || f["ip_dst"] != f["yiaddr"]) {
        print "NOT-UNICAST frame " f["frame"] " " f["type"] " for " f["chaddr"] " to " f["eth_dst"] " " f["ip_dst"]
      } else { unicast[f["chaddr"]]++ }
    }
    END { for (m in client) print "unicast " m " " unicast[m] + 0 }' "$LAB_DIR/clients.frames")"
  ! grep -q "^\(ARP-BEFORE-CLIENT\|NOT-UNICAST\)" <<<"$verdict" ||
    fail "replies to address-less clients: $(grep -v '^unicast' <<<"$verdict" | head -5)"
  for i in 0 1 2; do
    local replies
    replies="$(awk -v m="${macs[$i]}" '$2 == m { print $3 }' <<<"$verdict")"
    ((replies >= 2)) || fail "${clients[$i]}: $replies unicast OFFER/ACK frames to its chaddr, want an OFFER and an ACK"
  done
  note "replies to address-less clients: unicast frames ($(awk '{ printf "%s ", $3 }' <<<"$verdict")), no ARP for them"

  # 3. Unicast to the server goes nowhere from now on: the next T1 passes unanswered and the
  #    clients rebind by broadcast at T2 (26 s after their renewal).
  for i in 0 1 2; do
    ip -n "${namespaces[$i]}" route add 198.18.0.1/32 via 198.18.0.250 dev ll-cli0
  done
  start_capture rebind ll-srv0
  for i in 0 1 2; do
    local name="${clients[$i]}"
    wait_until 40 "$name to rebind (REBINDING)" lease_state_is "${address[$name]}" bound rebinding
    log_has "info rebind ${address[$name]} " || fail "no rebind line for $name"
    note "$name rebound by broadcast"
  done
  stop_capture rebind
  for i in 0 1 2; do
    local name="${clients[$i]}"
    read_capture rebind "src host ${address[$name]} and dst host 255.255.255.255 and dst port 67" |
      grep -q "Request" || fail "the capture shows no broadcast REQUEST from $name"
    [[ "$(client_address "${namespaces[$i]}")" == "${address[$name]}" ]] || fail "$name lost its address"
  done
  for name in "${clients[@]}"; do stop_client "$name"; done
  echo "PASS: dhclient, dhcpcd and udhcpc got leases, renewed by unicast and rebound by broadcast"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  LEASE_TIME=30s lab_main "$1" "$(LEASE_TIME=30s lab_config)" --clients 3
fi
