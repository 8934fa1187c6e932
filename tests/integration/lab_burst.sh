#!/usr/bin/env bash
# A burst of address-less clients on the server's own link, more than the kernel's neighbour
# table holds (gc_thresh3 = 1024): every one must get a lease. Direct replies (yiaddr at chaddr)
# leave as Ethernet frames, not through an ARP entry per client, so nothing runs out: the
# simulator's capture shows every OFFER and ACK as a unicast frame to chaddr and yiaddr and no
# ARP request from the server, and the server's neighbour table stays empty.
# landlord in namespace "<prefix>s" (198.18.0.1/20), landlord-sim speaking Ethernet from
# "<prefix>c" over a veth. Needs root; skips (77) otherwise.
# Usage: DHCP_FRAMES=path/to/dhcp_frames lab_burst.sh path/to/landlord-sim path/to/landlord [clients] [rate]
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: lab_burst.sh landlord-sim landlord [clients] [rate]}
LANDLORD=${2:?usage: lab_burst.sh landlord-sim landlord [clients] [rate]}
CLIENTS=${3:-3000}
RATE=${4:-1000}
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip(8)"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }

veth_pair_prepare lab_burst lbu

landlord_on_lab "$LANDLORD" 20 198.18.1.0-198.18.15.250 'lease:
  time: 10m'
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }

status=0
timeout 90 ip netns exec "$CLIENT_NS" "$SIM" --interface "$CLIENT_IF" --clients "$CLIENTS" \
  --rate "$RATE" --duration 20s --seed 11 --report "$WORK/report.json" --pcap "$WORK/traffic.pcap" ||
  status=$?
[[ -s $WORK/report.json ]] || fail "no report (landlord-sim exit $status)"
jq -c '{clients, leases_acquired, timeouts, states_at_end, violation_count}' "$WORK/report.json"
neighbours=$(ip -4 -n "$SERVER_NS" neigh show dev "$SERVER_IF" | wc -l)
echo "neighbour entries on $SERVER_IF: $neighbours"
# What the clients received (the simulator's capture, read from the bytes by dhcp_frames).
[[ -x ${DHCP_FRAMES:-} ]] || fail "DHCP_FRAMES does not name the dhcp_frames tool"
"$DHCP_FRAMES" "$WORK/traffic.pcap" >"$WORK/traffic.frames" || fail "dhcp_frames cannot read the capture"
read -r unicast_replies other_replies server_arps < <(awk '
  { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
  $1 == "arp" && f["op"] == "request" && f["sender"] == "198.18.0.1" { arps++ }
  $1 == "dhcp" && f["op"] == "reply" && f["ciaddr"] == "0.0.0.0" && f["broadcast_flag"] == 0 &&
    (f["type"] == "DHCPOFFER" || f["type"] == "DHCPACK") {
    if (f["eth_dst"] == f["chaddr"] && f["ip_dst"] == f["yiaddr"]) unicast++; else other++
  }
  END { print unicast + 0, other + 0, arps + 0 }' "$WORK/traffic.frames")
echo "replies to address-less clients: $unicast_replies unicast frames, $other_replies otherwise;" \
     "ARP requests from the server: $server_arps"
# Datagrams the kernel dropped for want of a neighbour entry (ENOBUFS, silent for UDP).
ip netns exec "$SERVER_NS" nstat -az UdpSndbufErrors 2>/dev/null | grep Udp || true
grep -E 'ARP|broadcasting|send to' "$WORK/landlord.log" | head -5 || true

((neighbours == 0)) || fail "$neighbours neighbour entries: replies went through ARP: $(ip -4 -n "$SERVER_NS" neigh show dev "$SERVER_IF" | head -3)"
((server_arps == 0)) || fail "the server sent $server_arps ARP requests for clients"
((other_replies == 0)) || fail "$other_replies OFFERs/ACKs to address-less clients were not unicast frames to chaddr and yiaddr"
((unicast_replies >= 2 * CLIENTS)) || fail "$unicast_replies unicast OFFER/ACK frames for $CLIENTS clients, want an OFFER and an ACK each"
[[ $status -eq 0 ]] || fail "landlord-sim exited $status: $(jq -c .violations "$WORK/report.json")"
jq -e '.violation_count == 0' "$WORK/report.json" >/dev/null ||
  fail "violations: $(jq -c .violations "$WORK/report.json")"
jq -e --argjson n "$CLIENTS" '.leases_acquired >= $n' "$WORK/report.json" >/dev/null ||
  fail "not every client got a lease: $(jq -c '{leases_acquired, states_at_end}' "$WORK/report.json")"
landlord_stop_and_check
echo "PASS: $CLIENTS address-less clients in a burst at $RATE/s all leased"
