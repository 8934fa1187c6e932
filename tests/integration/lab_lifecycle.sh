#!/usr/bin/env bash
# A lease's whole life with real clients in the namespace lab, on a pool of ONE address
# (198.18.0.100) so that "returns to the pool" is visible, with 10 s leases:
#  0. a malformed datagram is logged and dropped, and the server goes on serving;
#  1. a reservation: the client with MAC 02:11:00:00:00:50 gets 198.18.0.50, not the pool;
#  2. udhcpc takes the pool's address and vanishes (SIGKILL, no RELEASE); while its lease runs
#     another client gets nothing; the lease expires (log, counter, store row) and dhclient
#     then gets the same address: it went back to the pool;
#  3. SIGHUP with a broken config: rejected with FILE:LINE:COLUMN errors, the server keeps
#     serving; SIGHUP with a good one (12 s leases): applied, and dhclient's lease kept (store
#     row, and its next renewal answered as a renewal with the new 12 s);
#  4. SIGTERM drains (dhclient's renewed lease is in the store after it) and exits 0 (checked by
#     tools/lab, whose child it is); a new server restores the lease from its store and
#     dhclient's renewal is answered;
#  5. `dhclient -r` releases the address: store row released, log line.
# Usage: lab_lifecycle.sh LANDLORD   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

RESERVED_MAC=02:11:00:00:00:50

inside() {
  local landlord
  landlord="$(readlink -f "/proc/$LAB_SERVER_PID/exe")"

  # 0. Garbage is logged and dropped; the server keeps serving (everything below).
  ip netns exec "$LAB_NS_SERVER" bash -c 'printf "not a DHCP message" >/dev/udp/127.0.0.1/67'
  wait_until 5 "the malformed packet to be logged" log_has "warning dropped a malformed packet from 127\.0\.0\.1"

  # 1. Reservation.
  ip -n "$LAB_NS_CLIENT1" link set ll-cli0 address "$RESERVED_MAC"
  start_udhcpc reserved "$LAB_NS_CLIENT1"
  wait_until 20 "the reserved client to get an address" has_address "$LAB_NS_CLIENT1"
  [[ "$(client_address "$LAB_NS_CLIENT1")" == 198.18.0.50 ]] ||
    fail "reserved client got $(client_address "$LAB_NS_CLIENT1"), want 198.18.0.50"
  wait_until 5 "the reservation's lease row" lease_state_is 198.18.0.50 bound
  stop_client reserved
  note "reservation: $RESERVED_MAC got 198.18.0.50"

  # 2. A client vanishes; its lease expires; the address returns to the pool.
  start_udhcpc vanishing "$LAB_NS_CLIENT"
  wait_until 20 "udhcpc to get the pool's address" has_address "$LAB_NS_CLIENT"
  [[ "$(client_address "$LAB_NS_CLIENT")" == 198.18.0.100 ]] || fail "udhcpc got $(client_address "$LAB_NS_CLIENT")"
  vanish_client vanishing
  note "udhcpc holds 198.18.0.100 and vanished"
  if timeout 15 ip netns exec "$LAB_NS_CLIENT2" udhcpc -q -n -f -i ll-cli0 -t 2 -T 1 -s /bin/true \
      >"$LAB_DIR/exhausted.client.log" 2>&1; then
    fail "a second client got a lease while the only address was bound"
  fi
  lease_state_is 198.18.0.100 bound || fail "the lease should still be bound: $(lease_row 198.18.0.100)"
  wait_until 20 "the vanished client's lease to expire" log_has "info expire 198\.18\.0\.100 "
  wait_until 5 "the expired row" lease_state_is 198.18.0.100 expired
  start_dhclient dhclient "$LAB_NS_CLIENT2"
  wait_until 30 "dhclient to get the freed address" has_address "$LAB_NS_CLIENT2"
  [[ "$(client_address "$LAB_NS_CLIENT2")" == 198.18.0.100 ]] || fail "dhclient got $(client_address "$LAB_NS_CLIENT2")"
  wait_until 5 "dhclient's bound row" lease_state_is 198.18.0.100 bound
  note "198.18.0.100 expired and went to dhclient"

  # 3. Reload: a broken config is refused, a good one applied.
  local good="$LAB_DIR/good.yaml"
  cp "$LAB_CONFIG" "$good"
  printf 'server:\n  listen: nonsense\nsubnets: 7\n' >"$LAB_CONFIG"
  kill -HUP "$LAB_SERVER_PID"
  wait_until 5 "the broken reload to be refused" log_has "reload of .* rejected"
  log_has "  $LAB_CONFIG:2:11: " || fail "the refused reload does not locate its error"
  sed 's/time: 10s/time: 12s/' "$good" >"$LAB_CONFIG"
  kill -HUP "$LAB_SERVER_PID"
  wait_until 5 "the good reload" log_has "info reloaded "
  kill -0 "$LAB_SERVER_PID" || fail "the server died on reload"
  # The lease survived the reload: still bound to dhclient in the store, and the reloaded
  # server answers dhclient's next renewal as a renewal of that lease, with the new lease time
  # (a server that forgot it would grant it afresh or refuse it).
  local mac
  mac="$(link_mac "$LAB_NS_CLIENT2")"
  [[ "$(lease_row 198.18.0.100)" == "bound|$mac|"* ]] || fail "the lease after the reload: $(lease_row 198.18.0.100)"
  wait_until 20 "dhclient's renewal answered by the reloaded server" \
    log_has "info (renew|rebind) 198\.18\.0\.100 .* lease 12s"
  note "reload: broken config refused, good one applied, dhclient's lease kept and renewed"

  # 4. Stop (drain, exit 0) and restart from the store; dhclient's renewal is answered. The
  #    first server is tools/lab's child: tools/lab checks its exit status (0) and its log.
  kill -TERM "$LAB_SERVER_PID"
  wait_until 10 "the server to stop" bash -c "! kill -0 $LAB_SERVER_PID 2>/dev/null"
  log_has "info stopped" || fail "no 'stopped' line after SIGTERM"
  # Drained: dhclient's renewed lease is in the store as the stopped server left it.
  [[ "$(lease_row 198.18.0.100)" == "bound|$mac|renewing|"* || "$(lease_row 198.18.0.100)" == "bound|$mac|rebinding|"* ]] ||
    fail "dhclient's lease after the stop: $(lease_row 198.18.0.100)"
  local restart_log="$LAB_DIR/landlord-restarted.log"
  ip netns exec "$LAB_NS_SERVER" "$landlord" --allow-root --config "$LAB_CONFIG" --store-path "$LAB_STORE" \
    --log-level debug >"$restart_log" 2>&1 &
  local restarted=$!
  echo "$restarted" >>"$LAB_DIR/pids"
  LAB_SERVER_LOG="$restart_log"
  wait_until 10 "the restarted server" log_has "info serving on"
  log_has "info restored [1-9][0-9]* lease records" || fail "the restarted server restored nothing"
  wait_until 20 "dhclient's renewal after the restart" log_has "info (renew|rebind) 198\.18\.0\.100 .* lease 12s"
  note "restarted server restored the lease and renewed it (12 s leases now)"

  # 5. Release.
  release_dhclient dhclient "$LAB_NS_CLIENT2"
  wait_until 10 "the release" lease_state_is 198.18.0.100 released
  log_has "info release 198\.18\.0\.100 " || fail "no release line"
  note "dhclient -r released 198.18.0.100"

  kill -USR1 "$restarted"
  wait_until 5 "the counters line" log_has "counters: .* releases=1"
  daemon_term_and_check "$restarted" "$restart_log" "the restarted landlord" || fail "see above"
  echo "PASS: reservation, expiry back to the pool, reload, restart from the store, release"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  export LEASE_TIME=10s POOL=198.18.0.100-198.18.0.100
  export EXTRA_SUBNET_KEYS="    reservations:
      - {mac: $RESERVED_MAC, address: 198.18.0.50}"
  lab_main "$1" "$(lab_config)" --clients 3
fi
