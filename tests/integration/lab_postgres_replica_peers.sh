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
source "$(dirname "$0")/peers_lab.sh"
LANDLORD=${1:?usage: lab_postgres_replica_peers.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_replica_peers.sh landlord landlord-sim}
peers_lab_prepare lab_replica_peers llrq
STANDBY="/tmp/$prefix-s"  # the primary's (PGDIR's) synchronous standby
pg_ctl_as_owner() { runuser -u nobody -- "$PGBIN/pg_ctl" "$@"; }

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

LEASE_TIME=30s peers_lab_configs

# A server whose URL names only the standby refuses to start: it could answer but never ACK.
URL="postgresql:///landlord?host=$STANDBY&user=landlord" LEASE_TIME=30s peers_lab_config 198.18.0.1 >"$WORK/standby-only.yaml"
refused=0
ip netns exec "$NS_A" timeout 30 "$LANDLORD" --allow-root -c "$WORK/standby-only.yaml" \
  >"$WORK/standby-only.log" 2>&1 || refused=$?
((refused != 0 && refused != 124)) || fail "a server on the standby alone did not refuse to start (exit $refused)"
grep -aq "is a standby (in recovery) and accepts no writes" "$WORK/standby-only.log" ||
  fail "a server on the standby alone did not say why: $(tail -n 3 "$WORK/standby-only.log")"
note "a server whose URL names only the standby refuses to start: $(grep -ao 'is a standby.*' "$WORK/standby-only.log" | head -n 1)"

peers_lab_start a
peers_lab_start b
note "landlord A (pid $PID_A) and B (pid $PID_B) serve one link from the primary"

install_write_log "$PGDIR"

# 100 clients arriving over 25 s (some of them while the standby is away), 75 s in all.
peers_lab_sim sim 120 --clients 100 --rate 4 --duration 75s --seed 31
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
# The servers may recover before pg_ctl's -w returns (the standby streams before pg_ctl has
# seen it ready): recovery is looked for after the start began, the ACKs "while away" before it.
standby_starting_ms=$(date +%s%3N)
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
wait_replayed "$STANDBY"
dump_leases "$STANDBY" >"$WORK/at-failover.tsv"
sleep 3
promote_ms=$(date +%s%3N)
pg_ctl_as_owner -D "$STANDBY/data" -w -t 30 promote >/dev/null || fail "cannot promote the standby"
note "the standby is promoted ($(wc -l <"$WORK/at-failover.tsv") leases in it)"

wait_sim "$WORK/sim.json" "$WORK/sim.log"
dump_leases "$STANDBY" >"$WORK/at-end.tsv"

counters() {  # a|b
  # The pairs stand in the counter table's order, not side by side: each taken by its name.
  local line
  line=$(peers_lab_counters "$1")
  echo "$(grep -oE 'store_failures=[0-9]+' <<<"$line") $(grep -oE 'dropped_store_down=[0-9]+' <<<"$line")"
}
counters_a=$(counters a)
counters_b=$(counters b)
peers_lab_stop a
peers_lab_stop b

# Every ACK either server logged, in time order: ms kind address mac lease_s side.
acks_of_log "$WORK/landlord-a.log" a >"$WORK/acks-a.txt"
acks_of_log "$WORK/landlord-b.log" b >"$WORK/acks-b.txt"
sort -n -k1,1 "$WORK/acks-a.txt" "$WORK/acks-b.txt" >"$WORK/acks.txt"
# log_ms SIDE PATTERN AFTER_MS: the time of the first line of SIDE's log matching PATTERN after AFTER_MS.
log_ms() {
  grep -aE "$2" "$WORK/landlord-$1.log" | cut -d' ' -f1 | date -f - +%s%3N |
    awk -v after="$3" '$1 > after { print; exit }'
}

# ---- 1: while the standby was away ----
grace=1000  # a commit the standby confirmed just before it went is ACKed just after
window="\$1 > $((standby_gone_ms + grace)) && \$1 < $standby_starting_ms"
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
  recovered=$(log_ms "$side" ' store recovered: ' "$standby_starting_ms")
  [[ -n $recovered ]] || fail "landlord $side did not recover after the standby came back"
done

# ---- 2: the primary's loss ----
acks_without_primary=$(awk -v from="$((primary_gone_ms + grace))" -v to="$promote_ms" '$1 > from && $1 < to' "$WORK/acks.txt" | wc -l)
first_after_stop=$(awk -v after="$primary_gone_ms" -v promoted="$promote_ms" '$1 > promoted { print $1 - after; exit }' "$WORK/acks.txt")
acked_after=$(awk -v after="$promote_ms" '$1 > after' "$WORK/acks.txt" | wc -l)
# Every ACK before the promotion, read from the standby before it was promoted.
lost_at_failover=$(acks_missing "$WORK/at-failover.tsv" "$promote_ms" "$WORK/acks.txt" | tr '\n' ' ')
lost_at_end=$(acks_missing "$WORK/at-end.tsv" 99999999999999 "$WORK/acks.txt" | tr '\n' ' ')
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
check_sim "$WORK/sim.json" 100
for counted in "$counters_a" "$counters_b"; do
  [[ ${counted%% *} != store_failures=0 ]] || fail "a server counted no failed commit: $counted"
done
moved=$(clients_moved "$WORK/acks.txt")
[[ -z $moved ]] || fail "these clients were ACKed more than one address: $moved"
writes=$(on "$STANDBY" "select count(*) from lease_writes")
over_running=$(count_over_running "$STANDBY")
doubled=$(count_doubled "$STANDBY")
note "store history: $writes writes, bound over another client's running lease: $over_running; clients with two running leases: $doubled"
((writes > 0)) || fail "the write log is empty"
((over_running == 0)) || fail "$over_running double grants in the store's history"
((doubled == 0)) || fail "$doubled clients hold two running leases in the store"
echo "PASS: two servers on a primary and its synchronous standby: no grant ACKed while the standby was away, commits timed out and were written once it was back; primary stopped and standby promoted under load: both servers followed, every ACKed lease in the promoted database, 0 double grants"
