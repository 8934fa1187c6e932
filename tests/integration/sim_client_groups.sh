#!/usr/bin/env bash
# Client groups against a class-heavy landlord on loopback (relay mode, no root, no namespaces):
# a scenario gives 30 % of the clients option 93 = 7 (x64 UEFI) and 50 % option 60 =
# "PXEClient"; landlord's classes give each its own boot file. From the --pcap: every request
# of a client carries its group's options and nothing of the other group's, the groups hold
# their shares, and every ACK carries the boot file of the client's class.
# Usage: sim_client_groups.sh path/to/landlord-sim path/to/landlord
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: sim_client_groups.sh landlord-sim landlord}
LANDLORD=${2:?usage: sim_client_groups.sh landlord-sim landlord}
PYTHON=/usr/bin/python3

veth_pair_prepare sim_client_groups lcg
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }

landlord_on_loopback "$LANDLORD" 198.18.1.0-198.18.1.199 'lease:
  time: 1h
classes:
  - name: uefi
    match: {client-architecture: 7}
    options: {boot-file: ipxe.efi}
  - name: pxe
    match: {vendor-class: PXEClient}
    options: {boot-file: pxelinux.0}'

cat >"$WORK/scenario.yaml" <<YAML
server: 127.0.0.1:$SERVER_PORT
bind: 127.0.0.1:$RELAY_PORT
clients: 100
rate: 50
duration: 6s
seed: 11
retransmit_base: 1s
option: "77:text:lab"
client_group:
  - {share: 30%, option: "93:u16:7"}
  - {share: 50%, option: ["60:text:PXEClient"], prl: "1,3,6,66,67"}
YAML
status=0
timeout 60 "$SIM" --scenario "$WORK/scenario.yaml" --pcap "$WORK/traffic.pcap" \
  >"$WORK/stdout" 2>&1 || status=$?
landlord_stop_and_check
cat "$WORK/stdout"
[[ $status -eq 0 ]] || fail "landlord-sim exited $status"

"$PYTHON" - "$WORK/traffic.pcap" <<'PY' || fail "the groups' options or the classes' answers are wrong on the wire"
import struct, sys
data = open(sys.argv[1], "rb").read()
linktype = struct.unpack("<I", data[20:24])[0]
assert linktype == 1, linktype
at, requests, replies = 24, {}, {}
while at + 16 <= len(data):
    length = struct.unpack("<I", data[at + 8:at + 12])[0]
    frame = data[at + 16:at + 16 + length]
    at += 16 + length
    ip = frame[14:]
    dhcp = ip[(ip[0] & 15) * 4 + 8:]
    if len(dhcp) < 240 or dhcp[236:240] != b"\x63\x82\x53\x63":
        continue
    options, i = {}, 240
    while i < len(dhcp) and dhcp[i] != 255:
        if dhcp[i] == 0:
            i += 1; continue
        options[dhcp[i]] = dhcp[i + 2:i + 2 + dhcp[i + 1]]
        i += 2 + dhcp[i + 1]
    mac = dhcp[28:34].hex(":")
    if dhcp[0] == 1:
        requests.setdefault(mac, []).append(options)
    else:
        boot = dhcp[108:236].rstrip(b"\0") or options.get(67, b"").rstrip(b"\0")
        replies.setdefault(mac, []).append((options.get(53, b"\0")[0], boot))
groups = {"uefi": 0, "pxe": 0, "plain": 0}
for mac, sent in requests.items():
    kinds = {(o.get(93), o.get(60), o.get(77), len(o.get(55, b""))) for o in sent}
    assert len(kinds) == 1, (mac, kinds)  # every request of a client alike
    arch, vendor, user, prl = kinds.pop()
    assert user == b"lab", (mac, user)     # the run's own option, in every group
    assert not (arch and vendor), mac
    group = "uefi" if arch == b"\x00\x07" else "pxe" if vendor == b"PXEClient" else "plain"
    assert prl == (5 if group == "pxe" else 7), (mac, prl)
    groups[group] += 1
    want = {"uefi": b"ipxe.efi", "pxe": b"pxelinux.0", "plain": b""}[group]
    acks = [boot for kind, boot in replies.get(mac, []) if kind == 5]
    assert acks, f"{mac} got no ACK"
    assert all(boot == want for boot in acks), (mac, group, acks)
print("clients per group:", groups)
assert sum(groups.values()) == 100, groups
assert abs(groups["uefi"] - 30) <= 3 and abs(groups["pxe"] - 50) <= 3, groups
PY
echo "PASS: client groups reach the wire and landlord's classes answer each"
