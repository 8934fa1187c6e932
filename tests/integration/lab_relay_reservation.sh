#!/usr/bin/env bash
# A reservation keyed by the relay agent's circuit-id (option 82 sub-option 1, RFC 3046), as an
# ISP keys a subscriber by its port: ISC dhcrelay -a writes the name of the link the client's
# request came in on (ll-rly2) as circuit-id. The relayed dhclient gets the address reserved for
# that port, and keeps it at its T1 renewal, which it unicasts straight to the server without a
# relay and so without option 82.
# A client class on the same circuit-id sets domain-name (15). The class is kept with the lease
# (the store's classes column), so the ACK of the unicast renewal, which carries no option 82,
# still has the class's domain name (the capture on ll-srv1, and the client's lease file).
# Usage: lab_relay_reservation.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
  start_capture port ll-srv1
  start_dhclient port "$LAB_NS_RELAY_CLIENT" ll-rcl0
  wait_until 30 "the relayed client to get an address" has_address "$LAB_NS_RELAY_CLIENT" ll-rcl0
  local address
  address="$(client_address "$LAB_NS_RELAY_CLIENT" ll-rcl0)"
  [[ "$address" == 198.18.2.50 ]] || fail "the client behind port ll-rly2 got $address, not its reserved 198.18.2.50"
  log_has "info grant 198\.18\.2\.50 client .* via relay 198\.18\.2\.1" || fail "no grant of 198.18.2.50 via the relay"
  wait_until 20 "the unicast renewal at T1" log_has "info renew 198\.18\.2\.50 client .* via ll-srv1"
  wait_until 5 "the client to take the renewal's ACK" \
    grep -q "DHCPACK of 198.18.2.50 from 198.18.1.1" "$LAB_DIR/port.client.log"
  if log_has "nak 198\.18\.2\.50"; then fail "the reserved address was NAKed"; fi
  [[ "$(client_address "$LAB_NS_RELAY_CLIENT" ll-rcl0)" == 198.18.2.50 ]] || fail "the client lost 198.18.2.50"
  local classes
  classes="$(sqlite3 -cmd ".timeout 2000" "$LAB_STORE" "select classes from leases where address = '198.18.2.50'")"
  [[ "$classes" == port-rly2 ]] || fail "the lease row's classes are '$classes', not port-rly2"
  sleep 0.5
  stop_capture port
  # The renewal's ACK: unicast from the server to ciaddr:68 (relayed ACKs go to the relay's port 67).
  local renew_ack
  renew_ack="$(read_capture port "src host 198.18.1.1 and dst host 198.18.2.50 and dst port 68" | tr '\n' ' ' |
    sed 's/ IP (/\n IP (/g' | grep "DHCP-Message (53), length 1: ACK" | head -n 1)"
  [[ -n "$renew_ack" ]] || fail "no ACK unicast to 198.18.2.50:68 in the capture"
  grep -q 'Domain-Name (15), length 18: "port-rly2.lab.test"' <<<"$renew_ack" ||
    fail "the renewal's ACK lacks the class's domain name: $renew_ack"
  # dhclient appends each lease it takes: the last one is the renewal's.
  awk '/^lease \{/ { block = "" } { block = block $0 "\n" } END { printf "%s", block }' "$LAB_DIR/port.leases" |
    grep -q 'option domain-name "port-rly2.lab.test";' ||
    fail "the client's latest lease (the renewal's) has no domain-name port-rly2.lab.test"
  stop_client port
  echo "PASS: circuit-id ll-rly2 (dhcrelay -a) selected the reservation 198.18.2.50 and the class port-rly2;" \
    "the unicast T1 renewal kept both (its ACK carries the class's domain name)"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  config="$(lab_config | sed 's|^    relays: \[198.18.1.2\]$|&\n    reservations: [{circuit-id: ll-rly2, address: 198.18.2.50}]|')"
  grep -q "^    reservations: \[{circuit-id: ll-rly2" <<<"$config" || { echo "the reservation did not go into the config"; exit 1; }
  config+=$'\nclasses:\n  - {name: port-rly2, match: {circuit-id: ll-rly2}, options: {domain-name: port-rly2.lab.test}}'
  lab_main "$1" "$config" --relay
fi
