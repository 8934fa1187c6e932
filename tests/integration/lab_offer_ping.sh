#!/usr/bin/env bash
# Offer-ping (RFC 2131 §3.1: "the server SHOULD probe the reused address before allocating the
# address, e.g., with an ICMP echo"): a second namespace owns the pool's first address by hand,
# without DHCP. With `offer-ping: 300ms` the server pings 198.18.0.100 before offering it, gets
# the squatter's echo reply, declines the address (durable, for decline-hold) and offers the
# next one: busybox udhcpc (no ARP check of its own) is never offered .100 and gets .101.
# Usage: lab_offer_ping.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
  ip -n "$LAB_NS_CLIENT1" addr add 198.18.0.100/24 dev ll-cli0
  start_udhcpc pinged "$LAB_NS_CLIENT"
  local mac
  mac="$(link_mac "$LAB_NS_CLIENT")"
  wait_until 30 "udhcpc to get an address" has_address "$LAB_NS_CLIENT"
  local address
  address="$(client_address "$LAB_NS_CLIENT")"
  [[ "$address" == 198.18.0.101 ]] || fail "the client has $address, want 198.18.0.101 (.100 answers pings)"
  log_has "offer-ping: 198\.18\.0\.100 answered an ICMP echo: not offered to $mac, declined" ||
    fail "no offer-ping conflict logged for 198.18.0.100"
  wait_until 5 "the declined row of 198.18.0.100" lease_state_is 198.18.0.100 declined
  log_has "info decline 198\.18\.0\.100 client $mac( id [0-9a-f:]+)? via ll-srv0: in use \(answered the offer-ping\), not offered; out of the pool for 60s$" ||
    fail "the decline of 198.18.0.100 is not in the event log"
  if log_has "debug offer 198\.18\.0\.100 "; then fail "198.18.0.100 was offered although it answered"; fi
  log_has "debug offer 198\.18\.0\.101 " || fail "no OFFER of 198.18.0.101 in the log"
  stop_client pinged
  echo "PASS: 198.18.0.100 (owned by another namespace) answered the offer-ping, was declined for 60s and never offered; the client got $address"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  export EXTRA_SUBNET_KEYS="    offer-ping: 300ms"
  config="$(POOL=198.18.0.100-198.18.0.102 lab_config)"
  config="${config/offer-hold: 5s/offer-hold: 5s
  decline-hold: 60s}"
  lab_main "$1" "$config" --clients 2
fi
