#!/usr/bin/env bash
# Options configured by name reach a real client with their RFC wire types: a dhclient that
# declares option 121 (RFC 3442) gets the classless static routes, the TFTP server name (66) and
# the boot file name (67) as configured, decoded by the client itself (its lease file) and by
# tcpdump in the server namespace (which also decodes option 249, the same routes for Windows).
# The routes are configured without a default route: since an RFC 3442 client ignores `routers`
# once it has 121, landlord adds 0.0.0.0/0 via the first router, and Debian's own dhclient hook
# (rfc3442-classless-routes) installs it as the client namespace's default route.
# Usage: lab_options.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
  start_capture options ll-srv0
  DHCLIENT_CONF_EXTRA='option rfc3442-classless-static-routes code 121 = array of unsigned integer 8;
also request rfc3442-classless-static-routes, tftp-server-name, bootfile-name;' \
    DHCLIENT_SCRIPT_EXTRA='[ -r /etc/dhcp/dhclient-exit-hooks.d/rfc3442-classless-routes ] && . /etc/dhcp/dhclient-exit-hooks.d/rfc3442-classless-routes' \
    start_dhclient options "$LAB_NS_CLIENT"
  wait_until 30 "the client to configure an address" has_address "$LAB_NS_CLIENT"
  local address leases="$LAB_DIR/options.leases"
  address="$(client_address "$LAB_NS_CLIENT")"
  wait_until 5 "the client's lease file" grep -q "fixed-address $address;" "$leases"
  # dhclient prints option 121 as its bytes: prefix length, significant octets, router.
  grep -q "option rfc3442-classless-static-routes 24,198,18,2,198,18,0,254,0,198,18,0,1;" "$leases" ||
    fail "the client's lease has no (or other) classless static routes: $(grep -i rfc3442 "$leases" || true)"
  grep -q 'option tftp-server-name "tftp.lab.test";' "$leases" || fail "no TFTP server name (66) in the client's lease"
  [[ -r /etc/dhcp/dhclient-exit-hooks.d/rfc3442-classless-routes ]] ||
    fail "isc-dhcp-client's rfc3442-classless-routes hook is missing (tools/install-deps installs it)"
  local routes
  wait_until 5 "the client's default route" sh -c "ip netns exec $LAB_NS_CLIENT ip -4 route show default | grep -q ."
  routes="$(ip netns exec "$LAB_NS_CLIENT" ip -4 route show)"
  grep -q "^default via 198.18.0.1 dev ll-cli0" <<<"$routes" || fail "no default route via 198.18.0.1 in the client: $routes"
  grep -q "^198.18.2.0/24 via 198.18.0.254 dev ll-cli0" <<<"$routes" || fail "no route 198.18.2.0/24 in the client: $routes"
  # The lab keeps no default route anywhere (tools/lab): it has been seen, take it away again.
  ip -n "$LAB_NS_CLIENT" route del default
  grep -q 'option bootfile-name "pxelinux.0";' "$leases" || fail "no boot file name (67) in the client's lease"
  sleep 0.3
  stop_capture options
  local ack
  ack="$(read_capture options "src port 67 and dst port 68" | tr '\n' ' ' | sed 's/ IP (/\n IP (/g' |
    grep "DHCP-Message (53), length 1: ACK" | head -n 1)"
  [[ -n "$ack" ]] || fail "no ACK in the capture"
  grep -q "(198.18.2.0/24:198.18.0.254),(default:198.18.0.1)" <<<"$ack" || fail "tcpdump decodes no routes 121 in the ACK: $ack"
  grep -q "(249), length 13" <<<"$ack" || fail "no 13-byte option 249 (route and default) in the ACK: $ack"
  stop_client options
  echo "PASS: dhclient got routes 121 (and 249) with the default route added, TFTP server 66 and boot file 67 as configured"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  # The served subnet 198.18.0.0/24 gets the options beside its router.
  config="$(lab_config)"
  config="${config/options: \{routers: \[198.18.0.1\]\}/options:
      routers: [198.18.0.1]
      tftp-server-name: tftp.lab.test
      boot-file-name: pxelinux.0
      classless-static-routes: 198.18.2.0/24 via 198.18.0.254
      ms-classless-static-routes: 198.18.2.0/24 via 198.18.0.254}"
  lab_main "$1" "$config"
fi
