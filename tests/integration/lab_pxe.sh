#!/usr/bin/env bash
# Network boot by client class, and catalogue options, with a real client: dhclient sending
# option 93 (RFC 4578 client architecture) is a PXE-style client. Architecture 0 (BIOS) gets the
# subnet's next-server, the `bios` class's boot file and an address of the pool kept for that
# class; then the same client as architecture 7 (x64 UEFI) gets the `uefi` class's next-server
# and boot file and an address from the `uefi` pool (not its old one). Both receive the NTP servers (42) and the compressed domain-search list (119)
# they request, decoded by dhclient itself (its lease file) and by tcpdump (header fields).
# Usage: lab_pxe.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

# The first ACK in capture NAME, as one line of tcpdump's verbose decode.
first_ack() {
  read_capture "$1" "src port 67 and dst port 68" | tr '\n' ' ' | sed 's/ IP (/\n IP (/g' |
    grep "DHCP-Message (53), length 1: ACK" | head -n 1
}

boot_as() {  # NAME ARCHITECTURE: a dhclient announcing option 93, until it is bound
  local name="$1" architecture="$2"
  start_capture "$name" ll-srv0
  DHCLIENT_CONF_EXTRA="option pxe-arch code 93 = unsigned integer 16;
send pxe-arch $architecture;
also request ntp-servers, domain-search;" start_dhclient "$name" "$LAB_NS_CLIENT"
  wait_until 30 "the $name client to configure an address" has_address "$LAB_NS_CLIENT"
  wait_until 5 "the $name lease file" grep -q "fixed-address" "$LAB_DIR/$name.leases"
  sleep 0.3
  stop_capture "$name"
}

check_common_options() {  # NAME
  local leases="$LAB_DIR/$1.leases"
  grep -q "option ntp-servers 198.18.0.123,198.18.0.124;" "$leases" ||
    fail "$1: no NTP servers (42) in the lease: $(grep ntp "$leases" || true)"
  grep -q 'option domain-search "lab.test.", "corp.lab.test.";' "$leases" ||
    fail "$1: no (or another) domain-search (119) in the lease: $(grep domain-search "$leases" || true)"
}

inside() {
  boot_as bios 0
  local leases="$LAB_DIR/bios.leases" address ack
  address="$(client_address "$LAB_NS_CLIENT")"
  [[ "$address" == 198.18.0.1[0-4]? ]] || fail "BIOS client got $address, not one of the pool kept for class bios"
  grep -q 'filename "pxelinux.0";' "$leases" || fail "BIOS client: no boot file pxelinux.0 in its lease: $(cat "$leases")"
  check_common_options bios
  ack="$(first_ack bios)"
  [[ -n "$ack" ]] || fail "no ACK in the BIOS capture"
  grep -q "Server-IP 198.18.0.2 " <<<"$ack" || fail "BIOS ACK: siaddr is not the subnet's next-server: $ack"
  grep -q 'file "pxelinux.0"' <<<"$ack" || fail "BIOS ACK: file is not pxelinux.0: $ack"
  release_dhclient bios "$LAB_NS_CLIENT"
  wait_until 10 "the BIOS client's address to go" bash -c "! ip -n $LAB_NS_CLIENT -4 addr show dev ll-cli0 | grep -q inet"

  boot_as uefi 7
  leases="$LAB_DIR/uefi.leases"
  address="$(client_address "$LAB_NS_CLIENT")"
  [[ "$address" == 198.18.0.1[5-9]? ]] || fail "UEFI client got $address, not one of the pool kept for class uefi"
  grep -q 'filename "ipxe.efi";' "$leases" || fail "UEFI client: no boot file ipxe.efi in its lease: $(cat "$leases")"
  check_common_options uefi
  ack="$(first_ack uefi)"
  [[ -n "$ack" ]] || fail "no ACK in the UEFI capture"
  grep -q "Server-IP 198.18.0.3 " <<<"$ack" || fail "UEFI ACK: siaddr is not the class's next-server: $ack"
  grep -q 'file "ipxe.efi"' <<<"$ack" || fail "UEFI ACK: file is not ipxe.efi: $ack"
  stop_client uefi
  echo "PASS: option 93 chose boot file, next-server and pool by class; 42 and 119 reached dhclient"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  config="$(POOL='{range: 198.18.0.100-198.18.0.149, classes: [bios]}, {range: 198.18.0.150-198.18.0.199, classes: [uefi]}' lab_config)"
  config="${config/options: \{routers: \[198.18.0.1\]\}/options:
      routers: [198.18.0.1]
      next-server: 198.18.0.2
      ntp-servers: [198.18.0.123, 198.18.0.124]
      domain-search: [lab.test, corp.lab.test]}"
  classes='classes:
  - name: bios
    match: {client-architecture: 0}
    options: {boot-file: pxelinux.0}
  - name: uefi
    match: {client-architecture: [7, 9]}
    options: {boot-file: ipxe.efi, next-server: 198.18.0.3}
subnets:'
  config="${config/subnets:/$classes}"
  lab_main "$1" "$config"
fi
