#!/usr/bin/env bash
# A relayed client in the namespace lab: ISC dhcrelay (-a: adds option 82) in the relay
# namespace forwards dhclient's broadcasts from 198.18.2.0/24 to landlord with giaddr
# 198.18.2.1. The client must get an address of the subnet the giaddr selects (198.18.2.0/24,
# subnet id 2), and the server's replies to the relay must carry option 82 back unchanged: the
# bytes of each reply's option 82 equal those of its request's (read by dhcp_frames).
# Usage: DHCP_FRAMES=path/to/dhcp_frames lab_relay.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

inside() {
  start_capture relay ll-srv1
  start_dhclient relayed "$LAB_NS_RELAY_CLIENT" ll-rcl0
  wait_until 30 "the relayed client to get an address" has_address "$LAB_NS_RELAY_CLIENT" ll-rcl0
  local address
  address="$(client_address "$LAB_NS_RELAY_CLIENT" ll-rcl0)"
  [[ "$address" =~ ^198\.18\.2\.(1[0-9][0-9])$ ]] || fail "relayed client got $address, not from 198.18.2.100-199"
  wait_until 5 "the relayed lease row" lease_state_is "$address" bound
  local row
  row="$(lease_row "$address")"
  [[ "$(cut -d'|' -f4 <<<"$row")" == 2 ]] || fail "lease row $row: want subnet id 2"
  log_has "info grant $address client .* via relay 198\.18\.2\.1" || fail "no grant line naming the relay"
  stop_capture relay

  # Requests came in with option 82 and giaddr; every reply to the relay carries option 82 too.
  local requests replies
  requests="$(read_capture relay 'dst port 67 and dst host 198.18.1.1')"
  grep -q "Gateway-IP 198.18.2.1" <<<"$requests" || fail "no relayed request with giaddr 198.18.2.1 in the capture"
  grep -q "Agent-Information (82)" <<<"$requests" || fail "dhcrelay -a added no option 82"
  replies="$(read_capture relay 'src host 198.18.1.1 and dst port 67')"
  local offers acks echoed
  offers=$(grep -c "DHCP-Message (53), length 1: Offer" <<<"$replies" || true)
  acks=$(grep -c "DHCP-Message (53), length 1: ACK" <<<"$replies" || true)
  echoed=$(grep -c "Agent-Information (82)" <<<"$replies" || true)
  ((offers >= 1 && acks >= 1)) || fail "want an OFFER and an ACK to the relay, got $offers and $acks"
  ((echoed == offers + acks)) || fail "$echoed of $((offers + acks)) replies to the relay echo option 82"

  # Unchanged, byte for byte: each reply's option 82 equals the one the relay sent with the
  # request of the same xid (RFC 3046 §2.2).
  capture_frames relay
  local compared
  compared="$(awk '
    $1 != "dhcp" { next }
    { delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
    f["op"] == "request" && f["ip_dst"] == "198.18.1.1" { sent[f["xid"]] = f["option82"]; next }
    f["op"] == "reply" && f["ip_src"] == "198.18.1.1" {
      replies++
      if (!(f["xid"] in sent)) { print "UNMATCHED reply xid " f["xid"]; next }
      if (sent[f["xid"]] == "none") { print "NO-OPTION-82 in the request of xid " f["xid"]; next }
      if (f["option82"] != sent[f["xid"]]) {
        print "CHANGED xid " f["xid"] ": sent " sent[f["xid"]] ", back " f["option82"]; next
      }
      same++
    }
    END { print "replies=" replies + 0 " unchanged=" same + 0 }' "$LAB_DIR/relay.frames")"
  note "option 82 in the replies: $(tail -1 <<<"$compared")"
  ! grep -q "^\(UNMATCHED\|NO-OPTION-82\|CHANGED\)" <<<"$compared" ||
    fail "option 82 not echoed unchanged: $(grep -v '^replies=' <<<"$compared" | head -5)"
  local unchanged
  unchanged="$(sed -n 's/.* unchanged=//p' <<<"$compared")"
  ((unchanged >= 2 && unchanged == offers + acks)) ||
    fail "$unchanged replies carry the request's option 82 bytes, want all $((offers + acks))"
  stop_client relayed
  echo "PASS: relayed dhclient got $address from subnet 2; option 82 echoed byte for byte in $unchanged replies"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  lab_main "$1" "$(lab_config)" --relay
fi
