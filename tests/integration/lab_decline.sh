#!/usr/bin/env bash
# A real client declines an address that is in use (RFC 2131 §4.3.3): a second namespace owns
# the pool's only first address without DHCP; busybox udhcpc -a (ARP check) is granted it, finds
# it answered, sends DHCPDECLINE and comes back for another. The server logs who declined what,
# and for how long the address stays out of the pool, holds it as declined in the store and
# gives the client the next address.
# Usage: lab_decline.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
  # The squatter: 198.18.0.100 configured by hand in the second client namespace.
  ip -n "$LAB_NS_CLIENT1" addr add 198.18.0.100/24 dev ll-cli0
  UDHCPC_ARGS=-a start_udhcpc decliner "$LAB_NS_CLIENT"
  local mac
  mac="$(link_mac "$LAB_NS_CLIENT")"
  wait_until 30 "the DHCPDECLINE of 198.18.0.100 in the log" \
    log_has "info decline 198\.18\.0\.100 client $mac( id [0-9a-f:]+)? via ll-srv0: declined: address in use; out of the pool for 60s$"
  wait_until 5 "the declined row in the store" lease_state_is 198.18.0.100 declined
  wait_until 30 "udhcpc to take another address" has_address "$LAB_NS_CLIENT"
  local address
  address="$(client_address "$LAB_NS_CLIENT")"
  [[ "$address" == 198.18.0.101 ]] || fail "after declining .100 the client has $address, want 198.18.0.101"
  grep -q "declin" "$LAB_DIR/decliner.client.log" || fail "udhcpc did not say it declined"
  stop_client decliner
  echo "PASS: udhcpc declined 198.18.0.100 (owned by another namespace), logged with its MAC and the 60s hold; got $address"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  config="$(POOL=198.18.0.100-198.18.0.101 lab_config)"
  config="${config/offer-hold: 5s/offer-hold: 5s
  decline-hold: 60s}"
  lab_main "$1" "$config" --clients 2
fi
