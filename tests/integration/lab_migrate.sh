#!/usr/bin/env bash
# Switching from dnsmasq, ISC dhcpd or Kea (issue #11), with real clients: in the namespace lab
# the real server (Debian's dnsmasq, isc-dhcp-server or kea-dhcp4-server) leases addresses to
# two dhclients; it is stopped; `landlord import --from dnsmasq|dhcpd|kea-csv` writes its lease
# file into landlord's store; landlord starts on the same link and address, and each client
# renews by unicast at its T1 (the old server's) and is ACKed the address it had: the same
# clients keep their addresses.
# Usage: lab_migrate.sh dnsmasq|dhcpd|kea-csv LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"
lease_s=60  # T1 30 s for dhcpd and Kea; dnsmasq's shortest is 2 minutes (T1 60 s)

start_old_server() {
  case "$from" in
    dnsmasq)
      ip netns exec "$LAB_NS_SERVER" dnsmasq --keep-in-foreground --port=0 --conf-file=/dev/null \
        --interface=ll-srv0 --bind-interfaces --dhcp-authoritative --user=root --group=root \
        --dhcp-range=198.18.0.100,198.18.0.199,255.255.255.0,2m \
        --dhcp-leasefile="$LAB_DIR/old.leases" --pid-file="$LAB_DIR/old.pid" \
        --log-dhcp --log-facility="$LAB_DIR/old.log" >"$LAB_DIR/old.out" 2>&1 &
      ;;
    dhcpd)
      cat >"$LAB_DIR/dhcpd.conf" <<CONF
authoritative;
default-lease-time $lease_s;
max-lease-time $lease_s;
min-lease-time $lease_s;
subnet 198.18.0.0 netmask 255.255.255.0 { range 198.18.0.100 198.18.0.199; }
CONF
      touch "$LAB_DIR/old.leases"
      ip netns exec "$LAB_NS_SERVER" dhcpd -4 -f -d -cf "$LAB_DIR/dhcpd.conf" \
        -lf "$LAB_DIR/old.leases" -pf "$LAB_DIR/old.pid" ll-srv0 >"$LAB_DIR/old.log" 2>&1 &
      ;;
    kea-csv)
      cat >"$LAB_DIR/kea.json" <<JSON
{ "Dhcp4": {
  "interfaces-config": { "interfaces": ["ll-srv0"], "dhcp-socket-type": "raw" },
  "lease-database": { "type": "memfile", "persist": true, "name": "$LAB_DIR/old.leases", "lfc-interval": 0 },
  "valid-lifetime": $lease_s, "renew-timer": $((lease_s / 2)), "rebind-timer": $((lease_s * 7 / 8)),
  "authoritative": true,
  "subnet4": [ { "id": 1, "subnet": "198.18.0.0/24", "pools": [ { "pool": "198.18.0.100 - 198.18.0.199" } ],
                 "option-data": [ { "name": "routers", "data": "198.18.0.1" } ] } ],
  "loggers": [ { "name": "kea-dhcp4", "severity": "INFO", "output_options": [ { "output": "$LAB_DIR/old.log" } ] } ]
} }
JSON
      KEA_PIDFILE_DIR="$LAB_DIR" KEA_LOCKFILE_DIR="$LAB_DIR" \
        ip netns exec "$LAB_NS_SERVER" "$kea" -c "$LAB_DIR/kea.json" >"$LAB_DIR/old.out" 2>&1 &
      ;;
  esac
  old_pid=$!
}

inside() {
  start_old_server
  start_dhclient a "$LAB_NS_CLIENT"
  start_dhclient b "$LAB_NS_CLIENT1"
  both_bound() { has_address "$LAB_NS_CLIENT" && has_address "$LAB_NS_CLIENT1"; }
  wait_until 30 "both clients bound by $from" both_bound
  local address_a address_b mac_a mac_b
  address_a="$(client_address "$LAB_NS_CLIENT")"; address_b="$(client_address "$LAB_NS_CLIENT1")"
  mac_a="$(link_mac "$LAB_NS_CLIENT")"; mac_b="$(link_mac "$LAB_NS_CLIENT1")"
  note "$from leased $address_a to $mac_a and $address_b to $mac_b"
  kill -TERM "$old_pid"; wait "$old_pid" 2>/dev/null || true
  note "$from stopped; its lease file:"; cat "$LAB_DIR/old.leases"

  export LAB_STORE="$LAB_DIR/leases.db" LAB_SERVER_LOG="$LAB_DIR/landlord.log"
  LEASE_TIME=10m lab_config | sed "s|/tmp/landlord-test-placeholder.db|$LAB_STORE|" >"$LAB_DIR/landlord.yaml"
  "$landlord" import --from "$from" "$LAB_DIR/old.leases" --config "$LAB_DIR/landlord.yaml" \
    >"$LAB_DIR/import.out" 2>&1 || { cat "$LAB_DIR/import.out"; fail "landlord import failed"; }
  cat "$LAB_DIR/import.out"
  grep -q "^imported 2 leases" "$LAB_DIR/import.out" || fail "not 2 leases imported"

  : >"$LAB_SERVER_LOG"
  ip netns exec "$LAB_NS_SERVER" "$landlord" --allow-root --config "$LAB_DIR/landlord.yaml" \
    >"$LAB_SERVER_LOG" 2>&1 &
  local landlord_pid=$!
  wait_until 20 "landlord serving" log_has "serving on" || fail "landlord did not start"
  # Each client renews at its T1 (half the old server's lease time), by unicast to 198.18.0.1.
  both_renewed() { log_has "renew $address_a client $mac_a" && log_has "renew $address_b client $mac_b"; }
  wait_until 100 "both clients renewing their $from addresses with landlord" both_renewed
  grep -q "^RENEW $address_a$" "$LAB_DIR/a.events" || fail "client a did not take the renewal of $address_a"
  grep -q "^RENEW $address_b$" "$LAB_DIR/b.events" || fail "client b did not take the renewal of $address_b"
  [[ "$(client_address "$LAB_NS_CLIENT")" == "$address_a" && "$(client_address "$LAB_NS_CLIENT1")" == "$address_b" ]] \
    || fail "a client's address changed"
  ! grep -q "nak\b" "$LAB_SERVER_LOG" || fail "landlord NAKed: $(grep nak "$LAB_SERVER_LOG")"
  stop_client a; stop_client b
  daemon_stop_and_check "$landlord_pid" "$LAB_SERVER_LOG" landlord || fail "landlord did not stop cleanly"
  note "PASS: two clients leased by $from renewed the same addresses with landlord at T1"
}

if [[ "${1:-}" == inside ]]; then
  from="$LAB_MIGRATE_FROM" landlord="$LANDLORD_BIN" kea="$KEA_DHCP4"
  inside
  exit 0
fi
from="${1:?usage: lab_migrate.sh dnsmasq|dhcpd|kea-csv LANDLORD}"
landlord="${2:?usage: lab_migrate.sh dnsmasq|dhcpd|kea-csv LANDLORD}"
kea=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
case "$from" in
  dnsmasq) command -v dnsmasq >/dev/null || skip "dnsmasq is not installed (tools/install-deps)" ;;
  dhcpd) command -v dhcpd >/dev/null || skip "dhcpd is not installed (tools/install-deps)" ;;
  kea-csv) [[ -x $kea ]] || skip "kea-dhcp4 is not installed at $kea (tools/install-deps)" ;;
  *) echo "usage: lab_migrate.sh dnsmasq|dhcpd|kea-csv LANDLORD"; exit 2 ;;
esac
LANDLORD_BIN="$(realpath "$landlord")"
export LANDLORD_BIN LAB_MIGRATE_FROM="$from" KEA_DHCP4="$kea"
lab_main "$landlord" "$(lab_config)" --no-server --clients 2
