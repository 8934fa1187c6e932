#!/usr/bin/env bash
# Two landlord peers on one PostgreSQL lease store that is a primary and its synchronous
# streaming standby (issue #14: "fail over a replica"), landlord-sim's clients on their shared
# link, 30 s leases (T1 15 s, T2 26.25 s). Both servers' URL names both clusters:
#   postgresql:///landlord?host=PRIMARY,STANDBY&target_session_attrs=read-write&...
# so libpq connects to whichever of the two accepts writes. Under load:
#   1. The standby goes (pg_ctl stop -m immediate) for about 10 s: the primary confirms no
#      commit (synchronous_standby_names), so landlord's commits hang until its commit timeout
#      (5 s) fails them. 2 s in, the commits waiting for the standby are cancelled
#      (pg_cancel_backend): PostgreSQL then answers COMMIT with a WARNING ("committed locally,
#      but might not have been replicated"), which landlord must not take for a commit.
#      Asserted: no grant and no extension ACKed while the standby is away (a renewal may be
#      answered with what is left of the lease the store holds: no write, logged as "answered
#      from its durable lease"); both servers logged a commit that timed out; once the standby
#      is back, both write what waited ("store recovered") and ACK again.
#   2. The primary goes (pg_ctl stop -m immediate), the standby is promoted 3 s later (pg_ctl
#      promote). Asserted: no ACK while there is no primary; both servers logged losing the
#      store and "answering again", and ACKed on the promoted standby; every address either server
#      ACKed before the promotion is in the standby as that ACK left it (holder, and end within
#      2 s), read before the promotion; every address's last ACK of the run is in the
#      promoted database at the end.
# Before the servers start: one whose URL names only the standby refuses to start.
# Throughout: the auditor found no violation and no client lost its lease or was ACKed a second
# address; 0 double grants in the store's write history (a trigger on the primary logs every
# accepted write, replicated with it, so the promoted database holds the whole history).
# Reported: the time from each stop to the first ACK after it, the backends left waiting on the
# primary while the standby was away.
# Topology: tests/integration/peers_lab.sh (namespaces named with this script's PID,
# 198.18.0.0/24 only); both clusters on UNIX sockets in scratch directories
# (tests/support/postgres_cluster.sh start / replica / promote).
# Usage: lab_postgres_replica_peers.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/daemon_checks.sh"
LANDLORD=${1:?usage: lab_postgres_replica_peers.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_replica_peers.sh landlord landlord-sim}
CLUSTER="$here/../support/postgres_cluster.sh"
PGBIN=/usr/lib/postgresql/15/bin
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
command -v psql >/dev/null || { echo "SKIP: no psql (tools/install-deps)"; exit 77; }
[[ -x $PGBIN/initdb ]] || { echo "SKIP: no PostgreSQL 15"; exit 77; }

WORK=$(mktemp -d /tmp/lab_replica_peers.XXXXXX)
chmod 755 "$WORK"
PGDIR="/tmp/llrq-p$$"     # the primary (peers_lab.sh starts it)
STANDBY="/tmp/llrq-s$$"   # its synchronous standby
prefix="llrq$$"
source "$here/peers_lab.sh"
PID_A="" PID_B="" SIM_PID=""

cleanup() {
  local pid
  for pid in $SIM_PID $PID_A $PID_B; do
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  peers_lab_down
  "$CLUSTER" stop "$STANDBY" >/dev/null 2>&1 || true
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
on() { psql -X -At "host=$1 user=landlord dbname=landlord" -c "$2"; }
pg_ctl_as_owner() { runuser -u nobody -- "$PGBIN/pg_ctl" "$@"; }
dump_leases() {  # DIR: address, holder, end (ms) of every row
  on "$1" "copy (select host(address), hwaddr, granted_at_ms + lease_time_ms from leases) to stdout"
}

# ---- the lab: the primary (peers_lab_up), its synchronous standby, two servers ----
peers_lab_up
"$CLUSTER" replica "$PGDIR" "$STANDBY" || fail "cannot start the standby"
for _ in $(seq 50); do
  [[ $(on "$PGDIR" "select sync_state from pg_stat_replication") == sync ]] && break
  sleep 0.1
done
[[ $(on "$PGDIR" "select sync_state from pg_stat_replication") == sync ]] ||
  fail "the standby is not synchronous"
URL="postgresql:///landlord?host=$PGDIR,$STANDBY&user=landlord&target_session_attrs=read-write&connect_timeout=2"
note "primary in $PGDIR, its synchronous standby in $STANDBY"

config() {  # SERVER_ID
  cat <<YAML
peers: {servers: [198.18.0.1, 198.18.0.2]}
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: $1
store:
  type: postgresql
  url: "$URL"
  sync-interval: 100ms
lease:
  time: 30s
  renew: 50%
  rebind: 87.5%
  offer-hold: 3s
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    pools: [198.18.0.10-198.18.0.250]
log:
  level: info
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
# A server whose URL names only the standby refuses to start: it could answer but never ACK.
URL="postgresql:///landlord?host=$STANDBY&user=landlord" config 198.18.0.1 >"$WORK/standby-only.yaml"
refused=0
ip netns exec "$NS_A" timeout 30 "$LANDLORD" --allow-root -c "$WORK/standby-only.yaml" \
  >"$WORK/standby-only.log" 2>&1 || refused=$?
((refused != 0 && refused != 124)) || fail "a server on the standby alone did not refuse to start (exit $refused)"
grep -aq "is a standby (in recovery) and accepts no writes" "$WORK/standby-only.log" ||
  fail "a server on the standby alone did not say why: $(tail -n 3 "$WORK/standby-only.log")"
note "a server whose URL names only the standby refuses to start: $(grep -ao 'is a standby.*' "$WORK/standby-only.log" | head -n 1)"

start_server a
start_server b
note "landlord A (pid $PID_A) and B (pid $PID_B) serve one link from the primary"

# Every write the store accepts, in commit order (the test's own table; landlord ignores it).
# Written by a trigger in the writing transaction, so it is replicated with the write.
on "$PGDIR" "create table lease_writes (id bigserial primary key, address text, state text,
       client_key text, writer text, fencing_token bigint, granted_at_ms bigint, lease_time_ms bigint);
     create function log_lease_write() returns trigger language plpgsql as \$\$
     begin
       insert into lease_writes (address, state, client_key, writer, fencing_token, granted_at_ms, lease_time_ms)
       values (new.address, new.state, new.client_key, new.writer::text, new.fencing_token,
               new.granted_at_ms, new.lease_time_ms);
       return new;
     end \$\$;
     create trigger lease_writes after insert or update on leases
       for each row execute function log_lease_write();" >/dev/null || fail "cannot install the write log"

# 100 clients arriving over 25 s (some of them while the standby is away), 75 s in all.
ip netns exec "$NS_C" timeout 120 "$SIM" --interface ll-cli0 --clients 100 --rate 4 \
  --duration 75s --seed 31 --retransmit-base 1s --renew-min 1s \
  --report "$WORK/sim.json" >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
sim_start_ms=$(date +%s%3N)

# ---- 1: the synchronous standby goes for 8 s ----
sleep 12
pg_ctl_as_owner -D "$STANDBY/data" -m immediate -w stop >/dev/null || fail "cannot stop the standby"
standby_gone_ms=$(date +%s%3N)  # pg_ctl returned: the standby is gone (it took ~1 s under load)
note "the standby is stopped"
# Someone cancels the commits waiting for the standby (pg_cancel_backend: an operator, a tool
# that ends long queries): PostgreSQL then answers COMMIT, with a WARNING that the transaction
# is committed locally but maybe on no standby. landlord must not ACK those (asserted below: no
# grant while the standby is away).
sleep 2
cancelled=$(on "$PGDIR" "select count(*) from (select pg_cancel_backend(pid)
                         from pg_stat_activity where wait_event = 'SyncRep') c")
sleep 6
waiting=$(on "$PGDIR" "select count(*) filter (where wait_event = 'SyncRep') || ' ' ||
                              count(*) filter (where wait_event_type = 'Lock')
                       from pg_stat_activity where backend_type = 'client backend'")
note "commits waiting for the standby cancelled at 2 s: $cancelled; backends on the primary waiting for it at 8 s: ${waiting% *}, for a lock: ${waiting#* }"
pg_ctl_as_owner -D "$STANDBY/data" -l "$STANDBY/server.log" -w -t 30 \
  -o "-c listen_addresses='' -c unix_socket_directories='$STANDBY' -c max_connections=60" \
  start >/dev/null || fail "cannot restart the standby"
standby_back_ms=$(date +%s%3N)
for _ in $(seq 100); do
  [[ $(on "$PGDIR" "select sync_state from pg_stat_replication") == sync ]] && break
  sleep 0.1
done
note "the standby is back ($(on "$PGDIR" "select sync_state from pg_stat_replication"))"

# ---- 2: the primary goes, the standby is promoted 3 s later ----
sleep 12
pg_ctl_as_owner -D "$PGDIR/data" -m immediate -w stop >/dev/null || fail "cannot stop the primary"
primary_gone_ms=$(date +%s%3N)
note "the primary is stopped"
# What the standby will start from: everything it received, once replayed.
for _ in $(seq 50); do
  [[ $(on "$STANDBY" "select pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()") == t ]] && break
  sleep 0.1
done
dump_leases "$STANDBY" >"$WORK/at-failover.tsv"
sleep 3
promote_ms=$(date +%s%3N)
pg_ctl_as_owner -D "$STANDBY/data" -w -t 30 promote >/dev/null || fail "cannot promote the standby"
note "the standby is promoted ($(wc -l <"$WORK/at-failover.tsv") leases in it)"

status=0
wait "$SIM_PID" || status=$?
SIM_PID=""
[[ -s $WORK/sim.json ]] || fail "no report (landlord-sim exit $status): $(tail -5 "$WORK/sim.log")"
jq -c '{clients, leases_acquired, renewals: .renewals.count, rebinds: .rebinds.count, expirations,
        naks, timeouts, violation_count}' "$WORK/sim.json"
dump_leases "$STANDBY" >"$WORK/at-end.tsv"

counters() {  # a|b: the counters line the daemon logs on SIGUSR1
  local pid=$PID_A
  [[ $1 == b ]] && pid=$PID_B
  kill -USR1 "$pid"
  sleep 0.5
  grep -a "stale_refusals=" "$WORK/landlord-$1.log" | tail -n 1 | grep -oE 'store_failures=[0-9]+ dropped_store_down=[0-9]+'
}
counters_a=$(counters a)
counters_b=$(counters b)
daemon_stop_and_check "$PID_A" "$WORK/landlord-a.log" "landlord A" || fail "landlord A"
PID_A=""
daemon_stop_and_check "$PID_B" "$WORK/landlord-b.log" "landlord B" || fail "landlord B"
PID_B=""

# Every ACK either server logged: ms address mac lease_s server.
for side in a b; do
  grep -aE '^[0-9T:.+-]+ info (grant|renew|rebind) ' "$WORK/landlord-$side.log" >"$WORK/ack-lines-$side.txt" || true
  cut -d' ' -f1 "$WORK/ack-lines-$side.txt" | date -f - +%s%3N >"$WORK/ack-ms-$side.txt"
  awk -v side="$side" '{for (i = 1; i <= NF; ++i) if ($i == "lease") lease = $(i + 1); sub(/s$/, "", lease);
                        print $3, $4, $6, lease, side}' "$WORK/ack-lines-$side.txt" |
    paste -d' ' "$WORK/ack-ms-$side.txt" - >"$WORK/acks-$side.txt"
done
sort -n -k1,1 "$WORK/acks-a.txt" "$WORK/acks-b.txt" >"$WORK/acks.txt"  # ms kind address mac lease_s side
# log_ms SIDE PATTERN AFTER_MS: the time of the first line of SIDE's log matching PATTERN after AFTER_MS.
log_ms() {
  grep -aE "$2" "$WORK/landlord-$1.log" | cut -d' ' -f1 | date -f - +%s%3N |
    awk -v after="$3" '$1 > after { print; exit }'
}

# missing STORE_TSV BEFORE_MS: the addresses whose last ACK before BEFORE_MS the store lacks
# (another holder, or an end more than 2 s before the one the ACK gave).
missing() {
  awk -v before="$2" 'NR == FNR { holder[$1] = $2; end[$1] = $3; next }
    $1 < before { last_ms[$3] = $1; last_mac[$3] = $4; last_lease[$3] = $5 }
    END { for (a in last_ms) {
            if (!(a in holder) || holder[a] != last_mac[a] ||
                end[a] < last_ms[a] + last_lease[a] * 1000 - 2000) print a } }' "$1" "$WORK/acks.txt"
}

# ---- 1: while the standby was away ----
grace=1000  # a commit the standby confirmed just before it went is ACKed just after
window="\$1 > $((standby_gone_ms + grace)) && \$1 < $standby_back_ms"
grants_while_away=$(awk "$window && \$2 == \"grant\"" "$WORK/acks.txt" | wc -l)
extended_while_away=$(awk "$window && \$2 != \"grant\"" "$WORK/acks.txt" | wc -l)
# Renewals answered with what is left of the stored lease (no write): logged at most once per
# few seconds, with "(and N more like it)".
from_stored=$(cat "$WORK"/landlord-[ab].log | grep -a 'answered from its durable lease' |
  awk '{ n = 1; for (i = 1; i < NF; ++i) if ($i == "(and") n += $(i + 1); total += n } END { print total + 0 }')
first_after_standby=$(awk -v after="$standby_back_ms" '$1 > after { print $1 - after; exit }' "$WORK/acks.txt")
timed_out_a=$(grep -ac 'store commit failed: .*timed out' "$WORK/landlord-a.log" || true)
timed_out_b=$(grep -ac 'store commit failed: .*timed out' "$WORK/landlord-b.log" || true)
note "standby away $((standby_back_ms - standby_gone_ms)) ms: $grants_while_away grants and $extended_while_away extensions ACKed meanwhile, $from_stored renewals answered from the stored lease in the run; commit timeouts logged: A $timed_out_a, B $timed_out_b; first ACK ${first_after_standby:-?} ms after the standby was back"
((grants_while_away == 0)) || fail "$grants_while_away grants ACKed while the synchronous standby was away"
((extended_while_away == 0)) || fail "$extended_while_away leases extended while the synchronous standby was away"
((timed_out_a > 0 && timed_out_b > 0)) || fail "a server logged no commit timing out while the standby was away"
for side in a b; do
  recovered=$(log_ms "$side" ' store recovered: ' "$standby_back_ms")
  [[ -n $recovered ]] || fail "landlord $side did not recover after the standby came back"
done

# ---- 2: the primary's loss ----
acks_without_primary=$(awk -v from="$((primary_gone_ms + grace))" -v to="$promote_ms" '$1 > from && $1 < to' "$WORK/acks.txt" | wc -l)
first_after_stop=$(awk -v after="$primary_gone_ms" -v promoted="$promote_ms" '$1 > promoted { print $1 - after; exit }' "$WORK/acks.txt")
acked_after=$(awk -v after="$promote_ms" '$1 > after' "$WORK/acks.txt" | wc -l)
# Every ACK before the promotion, read from the standby before it was promoted.
lost_at_failover=$(missing "$WORK/at-failover.tsv" "$promote_ms" | tr '\n' ' ')
lost_at_end=$(missing "$WORK/at-end.tsv" 99999999999999 | tr '\n' ' ')
answering=""
for side in a b; do
  lost=$(log_ms "$side" "lost the shared store's changes" "$((primary_gone_ms - 5000))")
  again=$(log_ms "$side" 'answering again' "$primary_gone_ms")
  [[ -n $lost ]] || fail "landlord $side did not notice the primary going"
  [[ -n $again ]] || fail "landlord $side did not reload its view from the promoted standby"
  first_ack=$(awk -v after="$promote_ms" -v side="$side" '$1 > after && $6 == side { print $1 - after; exit }' "$WORK/acks.txt")
  [[ -n $first_ack ]] || fail "landlord $side ACKed nothing on the promoted standby"
  answering+="$side: answering again $((again - promote_ms)) ms after pg_ctl promote began, first ACK $first_ack ms after it; "
done
note "primary stopped (pg_ctl stop returned), standby promoted from $((promote_ms - primary_gone_ms)) ms later: $acks_without_primary ACKs meanwhile; first ACK ${first_after_stop:-?} ms after the primary stopped; $answering$acked_after ACKs after the promotion"
((acks_without_primary == 0)) || fail "$acks_without_primary ACKs while there was no primary"
((acked_after >= 20)) || fail "only $acked_after ACKs after the promotion"
[[ -z $lost_at_failover ]] || fail "ACKed but not in the standby when the primary stopped: $lost_at_failover"
[[ -z $lost_at_end ]] || fail "ACKed but not in the promoted database at the end: $lost_at_end"

# ---- the whole run ----
note "A: $counters_a; B: $counters_b"
[[ $status -eq 0 ]] || fail "landlord-sim exited $status: $(jq -c .violations "$WORK/sim.json")"
jq -e '.violation_count == 0' "$WORK/sim.json" >/dev/null || fail "auditor violations: $(jq -c .violations "$WORK/sim.json")"
jq -e '.expirations == 0' "$WORK/sim.json" >/dev/null || fail "a client lost its lease"
jq -e '.leases_acquired >= 100' "$WORK/sim.json" >/dev/null || fail "not every client got a lease"
for counted in "$counters_a" "$counters_b"; do
  [[ ${counted%% *} != store_failures=0 ]] || fail "a server counted no failed commit: $counted"
done
moved=$(awk '{ print $4, $3 }' "$WORK/acks.txt" | sort -u | awk '{ print $1 }' | uniq -d | tr '\n' ' ')
[[ -z $moved ]] || fail "these clients were ACKed more than one address: $moved"
writes=$(on "$STANDBY" "select count(*) from lease_writes")
over_running=$(on "$STANDBY" "select count(*) from (select state, client_key, granted_at_ms,
    lag(state) over w as prev_state, lag(client_key) over w as prev_client,
    lag(granted_at_ms + lease_time_ms) over w as prev_end
  from lease_writes window w as (partition by address order by id)) h
  where state = 'bound' and prev_state = 'bound' and client_key <> prev_client
    and prev_end > granted_at_ms")
doubled=$(on "$STANDBY" "select count(*) from (select client_key from leases where state = 'bound'
                 and expires_at > now() group by client_key having count(*) > 1) twice")
note "store history: $writes writes, bound over another client's running lease: $over_running; clients with two running leases: $doubled"
((writes > 0)) || fail "the write log is empty"
((over_running == 0)) || fail "$over_running double grants in the store's history"
((doubled == 0)) || fail "$doubled clients hold two running leases in the store"
echo "PASS: two servers on a primary and its synchronous standby: no grant ACKed while the standby was away, commits timed out and were written once it was back; primary stopped and standby promoted under load: both servers followed, every ACKed lease in the promoted database, 0 double grants"
