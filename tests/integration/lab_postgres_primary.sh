#!/usr/bin/env bash
# Two landlord peers on one PostgreSQL lease store serving a subnet with a configured primary
# (issue #14: `subnets[].primary`, `peers.answer-all-after`), landlord-sim's clients on the same
# link, 10 s leases (T1 5 s, T2 8.75 s), 30 % of the clients restart once (INIT-REBOOT).
#   - While the primary (A) is up: only A OFFERs to new clients, whatever their RFC 3074 bucket;
#     B leaves their DISCOVERs (none of B's OFFERs before the kill). A rebooting client's
#     INIT-REBOOT, broadcast to both, is answered by the server whose token its lease is (A);
#     B leaves it to A.
#   - kill -9 A under load: B answers new clients (at once when the database shows A's session
#     gone, at the latest once they have tried for answer-all-after)
#     (3 s), confirms A's rebooting clients after the same wait, and takes every client A held
#     over by its REBINDING at T2: each address A ACKed is rebound or confirmed by B after the kill.
#   - 0 double grants, by SQL over every write the store accepted (a trigger on the leases table
#     keeps them in commit order): no bound write of an address over another client's running
#     lease, and no exchange ACKed by both servers (two bound writes of one client's address by
#     the two servers within 2 s); every client bound at the end holds its row; the simulator's
#     auditor finds no violation and no client loses its lease.
# Topology: tests/integration/peers_lab.sh (A is the primary; namespaces named with this
# script's PID, 198.18.0.0/24 only); PostgreSQL on a UNIX socket in a scratch directory.
# Usage: lab_postgres_primary.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
source "$(dirname "$0")/peers_lab.sh"
LANDLORD=${1:?usage: lab_postgres_primary.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_primary.sh landlord landlord-sim}
peers_lab_prepare lab_primary llpp
to_ms() { date -d "$1" +%s%3N; }  # a log line's timestamp: ms since the epoch

# ---- the lab ----
peers_lab_up
PEERS_KEY="peers: {servers: [198.18.0.1, 198.18.0.2], answer-all-after: 3s}" \
  EXTRA_SUBNET_KEYS="    primary: 198.18.0.1" LOG_LEVEL=debug peers_lab_configs
peers_lab_start a
peers_lab_start b
note "landlord A (pid $PID_A, the subnet's primary) and B (pid $PID_B) serve one link from one database"

install_write_log "$PGDIR"

# 160 clients arriving over 40 s, 30 % of them restarting once 5-20 s after they arrive; A is
# killed at 15 s.
kill_at_s=15
peers_lab_sim sim 100 --clients 160 --rate 4 --duration 55s --seed 21 --restart-clients 0.3 --stay 20s
sim_start_ms=$(date +%s%3N)
sleep "$kill_at_s"
lines_a=$(wc -l <"$WORK/landlord-a.log")
lines_b=$(wc -l <"$WORK/landlord-b.log")
peers_lab_kill a
killed_ms=$(date +%s%3N)
note "killed A (the primary)"
before_b="$WORK/b-before.log"
head -n "$lines_b" "$WORK/landlord-b.log" >"$before_b"
head -n "$lines_a" "$WORK/landlord-a.log" >"$WORK/a-before.log"

wait_sim "$WORK/sim.json" "$WORK/sim.log"
sim_end_ms=$(date +%s%3N)

# ---- while the primary was up ----
offers_a=$(grep -ac ' debug offer \| info offer ' "$WORK/a-before.log" || true)
offers_b=$(grep -ac ' debug offer \| info offer ' "$before_b" || true)
left_b=$(grep -ac "DISCOVER in a peer's hash buckets" "$before_b" || true)
reboots_left_b=$(grep -ac "INIT-REBOOT left to the peer" "$before_b" || true)
note "before the kill: A sent $offers_a OFFERs, B $offers_b; B left $left_b DISCOVERs and $reboots_left_b INIT-REBOOTs to A"
((offers_a > 0)) || fail "the primary offered nothing before it was killed"
((offers_b == 0)) || fail "B offered to $offers_b new clients while the primary was up"
((left_b > 0)) || fail "B left no DISCOVER to the primary"

# ---- after the kill ----
# A's clients when it died: the addresses it ACKed.
grep -aoE " info (grant|renew|rebind) 198\.18\.0\.[0-9]+" "$WORK/a-before.log" | awk '{print $3}' | sort -u >"$WORK/held-by-a.txt"
held_by_a=$(wc -l <"$WORK/held-by-a.txt")
((held_by_a > 0)) || fail "A held no client when it was killed: nothing to take over"
tail -n +"$((lines_b + 1))" "$WORK/landlord-b.log" | grep -aE "^[0-9T:.+-]+ info (grant|rebind) " >"$WORK/b-after.txt" || true
first_new="" first_taken="" last_taken="" rebinds=0 confirmed=0
: >"$WORK/taken-by-b.txt"
while read -r stamp _level kind address _; do
  ms=$(to_ms "$stamp")
  if grep -qx "$address" "$WORK/held-by-a.txt"; then
    echo "$address" >>"$WORK/taken-by-b.txt"
    [[ -z $first_taken ]] && first_taken=$((ms - killed_ms))
    last_taken=$((ms - killed_ms))
    if [[ $kind == rebind ]]; then rebinds=$((rebinds + 1)); else confirmed=$((confirmed + 1)); fi
  elif [[ $kind == grant && -z $first_new ]]; then
    first_new=$((ms - killed_ms))
  fi
done <"$WORK/b-after.txt"
sort -u -o "$WORK/taken-by-b.txt" "$WORK/taken-by-b.txt"
not_taken=$(comm -23 "$WORK/held-by-a.txt" "$WORK/taken-by-b.txt" | tr '\n' ' ')
reboots_left_after=$(tail -n +"$((lines_b + 1))" "$WORK/landlord-b.log" | grep -ac "INIT-REBOOT left to the peer" || true)
note "after the kill: B's first grant to a new client ${first_new:-none} ms after it; A held $held_by_a clients, B ACKed $rebinds rebinds at T2 and $confirmed grants (INIT-REBOOTs) of their addresses, ${first_taken:-none}-${last_taken:-none} ms after the kill; B left $reboots_left_after INIT-REBOOTs before their clients had tried for 3 s"
[[ -n $first_new ]] || fail "B granted no new client after the primary died"
((first_new <= 8000)) || fail "B answered a new client only $first_new ms after the kill (answer-all-after 3 s)"
[[ -z $not_taken ]] || fail "B did not take over these leases of A's clients: $not_taken"

check_sim "$WORK/sim.json" 160

# ---- the store's history ----
writes=$(on "$PGDIR" "select count(*) from lease_writes")
# A bound write of an address while another client's lease on it still ran.
over_running=$(count_over_running "$PGDIR")
# One exchange ACKed by both servers: one client's address written bound by the two servers
# within 2 s (a takeover at T2 comes >= 3.75 s after the holder's last write).
both_acked=$(on "$PGDIR" "select count(*) from lease_writes x join lease_writes y
  on x.address = y.address and x.client_key = y.client_key and x.id < y.id
  where x.state = 'bound' and y.state = 'bound' and x.writer <> y.writer
    and abs(y.granted_at_ms - x.granted_at_ms) < 2000")
tokens_twice=$(on "$PGDIR" "select count(*) from (select address, fencing_token from lease_writes
  where state = 'bound' group by address, fencing_token having count(distinct writer) > 1) t")
holding=$(jq '.states_at_end.bound' "$WORK/sim.json")
bound=$(on "$PGDIR" "select count(distinct client_key) from leases where state in ('bound', 'expired')
             and granted_at_ms >= $sim_start_ms and granted_at_ms + lease_time_ms >= $sim_end_ms")
note "store: $writes writes accepted; bound over another client's running lease: $over_running; one exchange ACKed by both servers: $both_acked; a token accepted from two servers: $tokens_twice; $bound clients bound in the store, $holding in BOUND at the end"
((writes > 0)) || fail "the write log is empty"
((over_running == 0)) || fail "$over_running double grants in the store's history"
((both_acked == 0)) || fail "$both_acked exchanges ACKed by both servers"
((tokens_twice == 0)) || fail "$tokens_twice tokens accepted from two servers"
((holding > 0)) || fail "no client ended bound"
((bound >= holding)) || fail "$holding clients hold a lease but only $bound are bound in the store"

peers_lab_stop b
daemon_log_clean "$WORK/landlord-a.log" "landlord A" || fail "landlord A"
echo "PASS: a subnet's primary OFFERs alone while up; after kill -9 its peer answers new clients and takes every client over (T2 rebind or INIT-REBOOT); 0 double grants in the store's history"
