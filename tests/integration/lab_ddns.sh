#!/usr/bin/env bash
# Names in DNS with real clients (issue #33): landlord and a real BIND 9 (started here, in the
# lab's server namespace on 198.18.0.1:53, zones lab.test and 0.18.198.in-addr.arpa that only a
# tsig-keygen key may update, so an unsigned update would be refused) with 20 s leases:
#  1. udhcpc sending hostname (option 12) "alpha": A, PTR and both DHCIDs within 3 s of its ACK;
#     the A deleted behind landlord's back (nsupdate) is back after the client's next renewal;
#  2. udhcpc sending option 81 (-F, S set, a partial ASCII name) "beta": beta.lab.test's A;
#  3. a third client also calling itself "alpha" gets a lease but not the name: alpha's A stays
#     the first client's (the DHCID says whose it is);
#  4. an operator's static record (printer.lab.test, no DHCID) is never touched;
#  5. RELEASE (udhcpc SIGUSR2) removes alpha's A, PTR and DHCID within 3 s;
#  6. a client that vanishes: its records go when its lease expires;
#  7. BIND stopped, a client granted, landlord restarted, BIND started again: the client's
#     records appear (the work is in the store, not in memory).
#  landlordctl's lease table and /metrics show the names' states and the work done.
# Usage: lab_ddns.sh LANDLORD LANDLORDCTL   (exit 77 = skipped)
set -euo pipefail
source "$(dirname "$0")/lab_lib.sh"

named_running() { [[ -n ${named_pid:-} ]] && kill -0 "$named_pid" 2>/dev/null; }

start_named() {
  ip netns exec "$LAB_NS_SERVER" "$DDNS_NAMED" -g -c "$DDNS_DIR/named.conf" "${named_user[@]}" \
    >>"$DDNS_DIR/named.log" 2>&1 &
  named_pid=$!
  echo "$named_pid" >>"$LAB_DIR/pids"
  wait_until 10 "named to answer" ask SOA lab.test
}

stop_named() {
  kill "$named_pid" 2>/dev/null || true
  for _ in $(seq 50); do named_running || break; sleep 0.1; done
  named_running && kill -9 "$named_pid"
  named_pid=""
}

ask() { ip netns exec "$LAB_NS_SERVER" dig @198.18.0.1 +time=1 +tries=1 +short "$@" 2>/dev/null | grep -v '^;'; }
reverse_of() { local IFS=.; set -- $1; echo "$4.$3.$2.$1.in-addr.arpa"; }
a_is() { [[ "$(ask A "$1")" == "$2" ]]; }
# ADDRESS FQDN STATE: the store's row names FQDN with DNS state STATE (the updater's verdict is
# written back, so a restart sends again only what is unsettled).
dns_row_is() {
  [[ "$(sqlite3 -cmd ".timeout 2000" "$LAB_STORE" "select fqdn, dns_state from leases where address = '$1'" 2>/dev/null)" == "$2|$3" ]]
}
ptr_is() { [[ "$(ask PTR "$(reverse_of "$1")")" == "$2" ]]; }
dhcid_at() { [[ -n "$(ask DHCID "$1")" ]]; }
no_records() {  # NAME ADDRESS: no A or DHCID at the name, no PTR or DHCID at the address
  [[ -z "$(ask A "$1")$(ask DHCID "$1")$(ask PTR "$(reverse_of "$2")")$(ask DHCID "$(reverse_of "$2")")" ]]
}
named_in_dns() {  # NAME ADDRESS: A, PTR and both DHCIDs
  a_is "$1" "$2" && ptr_is "$2" "$1." && dhcid_at "$1" && dhcid_at "$(reverse_of "$2")"
}

inside() {
  local landlord
  landlord="$(readlink -f "/proc/$LAB_SERVER_PID/exe")"
  named_user=()
  if id bind >/dev/null 2>&1; then named_user=(-u bind); fi
  start_named
  a_is printer.lab.test 198.18.0.250 || fail "the static record is not served"

  # 1. Option 12.
  start_udhcpc alpha "$LAB_NS_CLIENT"
  wait_until 20 "alpha's address" has_address "$LAB_NS_CLIENT"
  local alpha
  alpha=$(client_address "$LAB_NS_CLIENT")
  wait_until 3 "alpha.lab.test's A, PTR and DHCIDs" named_in_dns alpha.lab.test "$alpha"
  wait_until 10 "alpha's row to say done" dns_row_is "$alpha" alpha.lab.test done
  note "hostname alpha -> alpha.lab.test A $alpha, PTR and DHCIDs; the lease's row says done"

  # 1b. Records deleted behind landlord's back come back at the client's next renewal (T1: 10 s).
  ip netns exec "$LAB_NS_SERVER" nsupdate -k "$DDNS_DIR/ddns.key" <<EOF
server 198.18.0.1
update delete alpha.lab.test A
send
EOF
  wait_until 3 "nsupdate to delete alpha.lab.test's A" bash -c "[[ -z \"\$(ip netns exec $LAB_NS_SERVER dig @198.18.0.1 +time=1 +tries=1 +short A alpha.lab.test)\" ]]"
  wait_until 25 "alpha.lab.test's A back after a renewal" a_is alpha.lab.test "$alpha"
  note "an A deleted with nsupdate came back at alpha's renewal"

  # 2. Option 81: S (the server updates the A), a partial name in ASCII.
  UDHCPC_ARGS="-F beta" start_udhcpc beta-client "$LAB_NS_CLIENT1"
  wait_until 20 "beta's address" has_address "$LAB_NS_CLIENT1"
  local beta
  beta=$(client_address "$LAB_NS_CLIENT1")
  wait_until 3 "beta.lab.test's records" named_in_dns beta.lab.test "$beta"
  note "option 81 beta -> beta.lab.test A $beta"

  # 3. Another client claiming alpha's name.
  UDHCPC_HOSTNAME=alpha start_udhcpc impostor "$LAB_NS_CLIENT2"
  wait_until 20 "the second alpha's address" has_address "$LAB_NS_CLIENT2"
  local impostor
  impostor=$(client_address "$LAB_NS_CLIENT2")
  wait_until 5 "the conflict to be logged" log_has "ddns: added alpha\.lab\.test\. $impostor: forward conflict"
  a_is alpha.lab.test "$alpha" || fail "alpha.lab.test now says $(ask A alpha.lab.test), want $alpha"
  ptr_is "$impostor" "alpha.lab.test." && fail "the impostor got a PTR for a name it does not hold"
  wait_until 10 "the second alpha's row to say conflict" dns_row_is "$impostor" alpha.lab.test conflict
  "$LANDLORDCTL" --socket "$CONTROL_SOCKET" leases >"$LAB_DIR/leases.txt"
  grep -Eq "^$alpha .* alpha\.lab\.test \(done\)" "$LAB_DIR/leases.txt" || fail "landlordctl leases: $(cat "$LAB_DIR/leases.txt")"
  grep -Eq "^$impostor .* alpha\.lab\.test \(conflict\)" "$LAB_DIR/leases.txt" || fail "landlordctl leases: no conflict row"
  curl -sS --max-time 5 --unix-socket "$CONTROL_SOCKET" http://landlord/metrics >"$LAB_DIR/metrics.txt"
  grep -q '^landlord_ddns_conflicts_total [1-9]' "$LAB_DIR/metrics.txt" || fail "no conflict counted: $(grep ddns "$LAB_DIR/metrics.txt")"
  grep -Eq '^landlord_ddns_updates_total\{operation="add"\} [2-9]' "$LAB_DIR/metrics.txt" || fail "adds not counted"
  note "a second 'alpha' ($impostor) did not take the name"

  # 4. The operator's static record.
  a_is printer.lab.test 198.18.0.250 || fail "the static record changed: $(ask A printer.lab.test)"

  # 5. RELEASE.
  kill -USR2 "$(cat "$LAB_DIR/alpha.clientpid")"  # udhcpc: release the lease
  wait_until 10 "alpha's release" lease_state_is "$alpha" released
  wait_until 3 "alpha's records to go" no_records alpha.lab.test "$alpha"
  wait_until 10 "alpha's released row to say done" dns_row_is "$alpha" alpha.lab.test done
  note "RELEASE removed alpha.lab.test's A, PTR and DHCIDs"

  # 6. Expiry of a vanished client.
  vanish_client beta-client
  wait_until 30 "beta's lease to expire" lease_state_is "$beta" expired
  wait_until 3 "beta's records to go" no_records beta.lab.test "$beta"
  note "expiry removed beta.lab.test's records"

  # 7. DNS down at the grant, landlord restarted meanwhile.
  stop_client alpha
  stop_named
  ip -n "$LAB_NS_CLIENT1" addr flush dev ll-cli0
  start_udhcpc gamma "$LAB_NS_CLIENT1"
  wait_until 20 "gamma's address" has_address "$LAB_NS_CLIENT1"
  local gamma
  gamma=$(client_address "$LAB_NS_CLIENT1")
  wait_until 5 "gamma's bound row" lease_state_is "$gamma" bound
  # gamma goes silent (no renewal could bring its name back): only the store knows the work.
  vanish_client gamma
  kill -TERM "$LAB_SERVER_PID"
  wait_until 10 "the server to stop" bash -c "! kill -0 $LAB_SERVER_PID 2>/dev/null"
  local restart_log="$LAB_DIR/landlord-restarted.log"
  ip netns exec "$LAB_NS_SERVER" "$landlord" --allow-root --config "$LAB_CONFIG" --store-path "$LAB_STORE" \
    --log-level debug >"$restart_log" 2>&1 &
  local restarted=$!
  echo "$restarted" >>"$LAB_DIR/pids"
  LAB_SERVER_LOG="$restart_log"
  wait_until 10 "the restarted server" log_has "info serving on"
  start_named
  wait_until 12 "gamma.lab.test's records after the restart" named_in_dns gamma.lab.test "$gamma"
  log_has "ddns: .* 1 leases' records sent again" || fail "the restarted server did not resend gamma's work"
  note "records for gamma (granted while DNS was down) appeared after a restart"

  stop_client alpha
  stop_named
  daemon_term_and_check "$restarted" "$restart_log" "the restarted landlord" || fail "see above"
  echo "PASS: names from option 12 and 81 in DNS, conflicts refused, static records kept, removal on release and expiry, work kept across a restart"
}

if [[ "${1:-}" == inside ]]; then
  inside
else
  [[ -x ${2:-} ]] || { echo "usage: lab_ddns.sh LANDLORD LANDLORDCTL" >&2; exit 2; }
  for tool in tsig-keygen dig nsupdate curl; do command -v "$tool" >/dev/null || skip "$tool is not installed (tools/install-deps)"; done
  DDNS_NAMED=$(command -v named || echo /usr/sbin/named)
  [[ -x $DDNS_NAMED ]] || skip "named is not installed (tools/install-deps installs bind9)"
  DDNS_DIR=$(mktemp -d /tmp/landlord-lab-ddns.XXXXXX)
  export DDNS_DIR DDNS_NAMED
  trap 'rm -rf "$DDNS_DIR"' EXIT
  chmod 755 "$DDNS_DIR"
  tsig-keygen -a hmac-sha256 ddns-key >"$DDNS_DIR/ddns.key"
  cat >"$DDNS_DIR/lab.test.zone" <<'ZONE'
$TTL 300
@        IN SOA ns.lab.test. hostmaster.lab.test. 1 3600 600 86400 300
@        IN NS  ns.lab.test.
ns       IN A   198.18.0.1
printer  IN A   198.18.0.250
ZONE
  cat >"$DDNS_DIR/reverse.zone" <<'ZONE'
$TTL 300
@        IN SOA ns.lab.test. hostmaster.lab.test. 1 3600 600 86400 300
@        IN NS  ns.lab.test.
250      IN PTR printer.lab.test.
ZONE
  cat >"$DDNS_DIR/named.conf" <<CONF
options {
  directory "$DDNS_DIR";
  pid-file none;
  listen-on port 53 { 198.18.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
};
controls { };
include "$DDNS_DIR/ddns.key";
zone "lab.test" { type primary; file "$DDNS_DIR/lab.test.zone"; allow-update { key "ddns-key"; }; };
zone "0.18.198.in-addr.arpa" { type primary; file "$DDNS_DIR/reverse.zone"; allow-update { key "ddns-key"; }; };
CONF
  chmod 644 "$DDNS_DIR"/*
  id bind >/dev/null 2>&1 && chown -R bind "$DDNS_DIR"
  export LEASE_TIME=20s POOL=198.18.0.100-198.18.0.120
  export LANDLORDCTL="$2" CONTROL_SOCKET="$DDNS_DIR/control.sock"
  config="$(lab_config)
control:
  socket: $CONTROL_SOCKET
ddns:
  server: 198.18.0.1
  key-file: $DDNS_DIR/ddns.key
  forward-zone: lab.test
  reverse-zone: 0.18.198.in-addr.arpa"
  status=0
  (lab_main "$1" "$config" --clients 3) || status=$?
  exit "$status"
fi
