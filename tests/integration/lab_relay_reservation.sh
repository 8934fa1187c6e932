#!/usr/bin/env bash
# A reservation keyed by the relay agent's circuit-id (option 82 sub-option 1, RFC 3046), as an
# ISP keys a subscriber by its port: ISC dhcrelay -a writes the name of the link the client's
# request came in on (ll-rly2) as circuit-id. The relayed dhclient gets the address reserved for
# that port, and keeps it at its T1 renewal, which it unicasts straight to the server without a
# relay and so without option 82.
# Usage: lab_relay_reservation.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
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
  stop_client port
  echo "PASS: circuit-id ll-rly2 (dhcrelay -a) selected the reservation 198.18.2.50; the unicast T1 renewal kept it"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  config="$(lab_config | sed 's|^    relays: \[198.18.1.2\]$|&\n    reservations: [{circuit-id: ll-rly2, address: 198.18.2.50}]|')"
  grep -q "^    reservations: \[{circuit-id: ll-rly2" <<<"$config" || { echo "the reservation did not go into the config"; exit 1; }
  lab_main "$1" "$config" --relay
fi
