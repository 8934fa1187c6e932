#!/usr/bin/env bash
# Two landlord peers on one PostgreSQL lease store serving a subnet with a configured primary
# (issue #14: `subnets[].primary`, `peers.answer-all-after`), landlord-sim's clients on the same
# link, 10 s leases (T1 5 s, T2 8.75 s), 30 % of the clients restart once (INIT-REBOOT).
#   - While the primary (A) is up: only A OFFERs to new clients, whatever their RFC 3074 bucket;
#     B leaves their DISCOVERs (none of B's OFFERs before the kill). A rebooting client's
#     INIT-REBOOT, broadcast to both, is answered by the server whose token its lease is (A);
#     B leaves it to A.
#   - kill -9 A under load: B answers new clients once they have tried for answer-all-after
#     (3 s), confirms A's rebooting clients after the same wait, and takes every client A held
#     over by its REBINDING at T2: each address A ACKed is rebound or confirmed by B after the kill.
#   - 0 double grants, by SQL over every write the store accepted (a trigger on the leases table
#     keeps them in commit order): no bound write of an address over another client's running
#     lease, and no exchange ACKed by both servers (two bound writes of one client's address by
#     the two servers within 2 s); every client bound at the end holds its row; the simulator's
#     auditor finds no violation and no client loses its lease.
# Topology (its own namespaces, names with this script's PID; 198.18.0.0/24 only):
#   <p>a: ll-srv0 198.18.0.1/24 (landlord A, the primary)   <p>b: ll-srv0 198.18.0.2/24 (B)
#   <p>c: ll-cli0 unnumbered (landlord-sim)     all three ports of bridge br0 in <p>w
# PostgreSQL: tests/support/postgres_cluster.sh, a UNIX socket in a scratch directory.
# Usage: lab_postgres_primary.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/daemon_checks.sh"
LANDLORD=${1:?usage: lab_postgres_primary.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_primary.sh landlord landlord-sim}
CLUSTER="$here/../support/postgres_cluster.sh"
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
command -v psql >/dev/null || { echo "SKIP: no psql (tools/install-deps)"; exit 77; }
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || { echo "SKIP: no PostgreSQL 15"; exit 77; }

WORK=$(mktemp -d /tmp/lab_primary.XXXXXX)
chmod 755 "$WORK"
PGDIR="/tmp/llpg-primary-$$"
prefix="llpp$$"
source "$here/peers_lab.sh"
PID_A="" PID_B="" SIM_PID=""

cleanup() {
  local pid
  for pid in $SIM_PID $PID_A $PID_B; do
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  peers_lab_down
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT INT TERM
fail() {
  echo "FAIL: $*"
  for log in "$WORK"/landlord-*.log; do echo "---- $log"; grep -av ' debug ' "$log" | tail -n 20; done
  KEEP_WORK=1
  exit 1
}
note() { echo "[$(date +%T)] $*"; }
sql() { psql -X -At "host=$PGDIR user=landlord dbname=landlord" -c "$1"; }
to_ms() { date -d "$1" +%s%3N; }  # a log line's timestamp: ms since the epoch

# ---- the lab ----
peers_lab_up

config() {  # SERVER_ID
  cat <<YAML
peers: {servers: [198.18.0.1, 198.18.0.2], answer-all-after: 3s}
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: $1
store:
  type: postgresql
  url: "$URL"
  sync-interval: 100ms
lease:
  time: 10s
  renew: 50%
  rebind: 87.5%
  offer-hold: 3s
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    primary: 198.18.0.1
    pools: [198.18.0.10-198.18.0.250]
log:
  level: debug
YAML
}
config 198.18.0.1 >"$WORK/a.yaml"
config 198.18.0.2 >"$WORK/b.yaml"

start_server() {  # a|b
  local side=$1 ns="${prefix}$1" pid
  ip netns exec "$ns" "$LANDLORD" --allow-root -c "$WORK/$side.yaml" >>"$WORK/landlord-$side.log" 2>&1 &
  pid=$!
  daemon_wait_listening "$pid" 20 "$ns" 67 || fail "landlord $side did not start"
  if [[ $side == a ]]; then PID_A=$pid; else PID_B=$pid; fi
}
start_server a
start_server b
note "landlord A (pid $PID_A, the subnet's primary) and B (pid $PID_B) serve one link from one database"

# Every write the store accepts, in commit order (the test's own table; landlord ignores it).
sql "create table lease_writes (id bigserial primary key, address text, state text, client_key text,
       writer text, fencing_token bigint, granted_at_ms bigint, lease_time_ms bigint);
     create function log_lease_write() returns trigger language plpgsql as \$\$
     begin
       insert into lease_writes (address, state, client_key, writer, fencing_token, granted_at_ms, lease_time_ms)
       values (new.address, new.state, new.client_key, new.writer::text, new.fencing_token,
               new.granted_at_ms, new.lease_time_ms);
       return new;
     end \$\$;
     create trigger lease_writes after insert or update on leases
       for each row execute function log_lease_write();" >/dev/null || fail "cannot install the write log"

# 160 clients arriving over 40 s, 30 % of them restarting once 5-20 s after they arrive; A is
# killed at 15 s.
kill_at_s=15
ip netns exec "$NS_C" timeout 100 "$SIM" --interface ll-cli0 --clients 160 --rate 4 \
  --duration 55s --seed 21 --retransmit-base 1s --renew-min 1s --restart-clients 0.3 --stay 20s \
  --report "$WORK/sim.json" >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
sim_start_ms=$(date +%s%3N)
sleep "$kill_at_s"
lines_a=$(wc -l <"$WORK/landlord-a.log")
lines_b=$(wc -l <"$WORK/landlord-b.log")
kill -KILL "$PID_A"
killed_ms=$(date +%s%3N)
wait "$PID_A" 2>/dev/null || true
PID_A=""
note "killed A (the primary)"
before_b="$WORK/b-before.log"
head -n "$lines_b" "$WORK/landlord-b.log" >"$before_b"
head -n "$lines_a" "$WORK/landlord-a.log" >"$WORK/a-before.log"

status=0
wait "$SIM_PID" || status=$?
SIM_PID=""
sim_end_ms=$(date +%s%3N)
[[ -s $WORK/sim.json ]] || fail "no report (landlord-sim exit $status): $(tail -5 "$WORK/sim.log")"
jq -c '{clients, leases_acquired, reboots, renewals: .renewals.count, rebinds: .rebinds.count,
        expirations, naks, timeouts, states_at_end, violation_count}' "$WORK/sim.json"

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

jq -e '.violation_count == 0' "$WORK/sim.json" >/dev/null || fail "auditor violations: $(jq -c .violations "$WORK/sim.json")"
[[ $status -eq 0 ]] || fail "landlord-sim exited $status"
jq -e '.expirations == 0' "$WORK/sim.json" >/dev/null || fail "a client lost its lease"
jq -e '.leases_acquired >= 160' "$WORK/sim.json" >/dev/null || fail "not every client got a lease"

# ---- the store's history ----
writes=$(sql "select count(*) from lease_writes")
# A bound write of an address while another client's lease on it still ran.
over_running=$(sql "select count(*) from (select state, client_key, granted_at_ms, lease_time_ms,
    lag(state) over w as prev_state, lag(client_key) over w as prev_client,
    lag(granted_at_ms + lease_time_ms) over w as prev_end
  from lease_writes window w as (partition by address order by id)) h
  where state = 'bound' and prev_state = 'bound' and client_key <> prev_client
    and prev_end > granted_at_ms")
# One exchange ACKed by both servers: one client's address written bound by the two servers
# within 2 s (a takeover at T2 comes >= 3.75 s after the holder's last write).
both_acked=$(sql "select count(*) from lease_writes x join lease_writes y
  on x.address = y.address and x.client_key = y.client_key and x.id < y.id
  where x.state = 'bound' and y.state = 'bound' and x.writer <> y.writer
    and abs(y.granted_at_ms - x.granted_at_ms) < 2000")
tokens_twice=$(sql "select count(*) from (select address, fencing_token from lease_writes
  where state = 'bound' group by address, fencing_token having count(distinct writer) > 1) t")
holding=$(jq '.states_at_end.bound' "$WORK/sim.json")
bound=$(sql "select count(distinct client_key) from leases where state in ('bound', 'expired')
             and granted_at_ms >= $sim_start_ms and granted_at_ms + lease_time_ms >= $sim_end_ms")
note "store: $writes writes accepted; bound over another client's running lease: $over_running; one exchange ACKed by both servers: $both_acked; a token accepted from two servers: $tokens_twice; $bound clients bound in the store, $holding in BOUND at the end"
((writes > 0)) || fail "the write log is empty"
((over_running == 0)) || fail "$over_running double grants in the store's history"
((both_acked == 0)) || fail "$both_acked exchanges ACKed by both servers"
((tokens_twice == 0)) || fail "$tokens_twice tokens accepted from two servers"
((holding > 0)) || fail "no client ended bound"
((bound >= holding)) || fail "$holding clients hold a lease but only $bound are bound in the store"

daemon_stop_and_check "$PID_B" "$WORK/landlord-b.log" "landlord B" || fail "landlord B"
PID_B=""
daemon_log_clean "$WORK/landlord-a.log" "landlord A" || fail "landlord A"
echo "PASS: a subnet's primary OFFERs alone while up; after kill -9 its peer answers new clients after answer-all-after and takes every client over (T2 rebind or INIT-REBOOT); 0 double grants in the store's history"
