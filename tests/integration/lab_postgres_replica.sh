#!/usr/bin/env bash
# landlord on a PostgreSQL primary with a synchronous streaming replica (issue #14): under load,
# the primary's WAL sender stalls (SIGSTOP) for 2 s, then the primary dies (SIGKILL to all its
# processes: no shutdown, nothing more sent to the standby), the replica is promoted 3 s later,
# and landlord, whose URL names both hosts with target_session_attrs=read-write, finds the new
# primary by itself. The stall is the worst case: the primary commits writes the replica never
# gets; with synchronous replication it confirms none of them, so landlord ACKs none (with
# asynchronous replication this test fails: those ACKs die with the primary).
# Asserted:
#   - nothing acknowledged is lost: for every address landlord ACKed before the primary died,
#     the replica holds that client's lease, ending when the last ACK said (within 2 s of commit
#     latency; a lost renewal would show the previous grant, a half-lease earlier); and after the
#     run the promoted database holds the last ACK of every address;
#   - clients keep their addresses: each client was ACKed one address in the whole run, none
#     lost its lease (0 expirations), the auditor found no violation;
#   - landlord said it lost the store and recovered, and ACKed again on the promoted replica.
# No namespaces: landlord on 127.0.0.1 and landlord-sim as a relay agent (198.18.0.0/16 clients);
# both clusters on UNIX sockets in scratch directories (tests/support/postgres_cluster.sh).
# Usage: lab_postgres_replica.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/veth_pair.sh"
source "$here/postgres_lab.sh"
LANDLORD=${1:?usage: lab_postgres_replica.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_replica.sh landlord landlord-sim}
CLUSTER="$here/../support/postgres_cluster.sh"
postgres_lab_require

veth_pair_prepare lab_postgres_replica llrp  # WORK, the cleanup trap; no namespace is made
chmod 755 "$WORK"
PRIMARY="/tmp/llrp-p$$" REPLICA="/tmp/llrp-r$$"
SIM_PID=""
cleanup() {
  if [[ -n $SIM_PID ]]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi
  veth_pair_cleanup
  "$CLUSTER" stop "$PRIMARY" >/dev/null 2>&1 || true
  "$CLUSTER" stop "$REPLICA" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; tail -n 30 "$WORK/landlord.log"; KEEP_WORK=1; exit 1; }
note() { echo "[$(date +%T)] $*"; }

"$CLUSTER" start "$PRIMARY" || fail "cannot start the primary"
"$CLUSTER" replica "$PRIMARY" "$REPLICA" || fail "cannot start the replica"
[[ $(on "$PRIMARY" "select sync_state from pg_stat_replication") == sync ]] ||
  fail "the replica is not synchronous"
note "primary in $PRIMARY, synchronous replica in $REPLICA"

loopback_ports
cat >"$WORK/landlord.yaml" <<YAML
server:
  listen: 127.0.0.1:$SERVER_PORT
store:
  type: postgresql
  # Both hosts; libpq tries them in order and takes the one that accepts writes.
  url: "host=$PRIMARY,$REPLICA user=landlord dbname=landlord target_session_attrs=read-write connect_timeout=2"
  sync-interval: 100ms
lease:
  time: 30s
  renew: 50%
  rebind: 87.5%
  offer-hold: 3s
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.0-198.18.1.250]
    relays: [127.0.0.1]
log:
  level: info
YAML
allow_root=()
[[ $(id -u) -eq 0 ]] && allow_root=(--allow-root)
"$LANDLORD" "${allow_root[@]}" -c "$WORK/landlord.yaml" >"$WORK/landlord.log" 2>&1 &
SERVER_PID=$!
landlord_ready "" "$SERVER_PORT" 127.0.0.1

# 150 clients over 15 s, 60 s in all: every client renews at T1 (15 s) at least twice, across the
# failover at 20 s (which stops commits for about 7 s: less than the 15 s from T1 to the end).
timeout 90 "$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" \
  --clients 150 --rate 10 --duration 60s --seed 21 --retransmit-base 1s --renew-min 1s \
  --report "$WORK/report.json" >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
sleep 18
sender=$(on "$PRIMARY" "select pid from pg_stat_replication")
[[ -n $sender ]] || fail "the primary has no WAL sender"
kill -STOP "$sender"
note "the primary's WAL sender (pid $sender) is stopped"
sleep 2
stop_ms=$(date +%s%3N)
# The primary's machine dies: every process of the cluster at once, the stopped sender included,
# so nothing it held back reaches the replica. (Each of them leads a session of its own: by PID.)
postmaster=$(head -n 1 "$PRIMARY/data/postmaster.pid")
kill -KILL "$postmaster" $(ps -o pid= --ppid "$postmaster")
ipcrm -m "$(sed -n 7p "$PRIMARY/data/postmaster.pid" | awk '{print $2}')" 2>/dev/null || true
rm -f "$PRIMARY/data/postmaster.pid"
note "the primary is down"
# What the promoted replica will start from: everything it received, once replayed.
wait_replayed "$REPLICA"
dump_leases "$REPLICA" >"$WORK/at-failover.tsv"
sleep 3
"$CLUSTER" promote "$REPLICA" || fail "cannot promote the replica"
promote_ms=$(date +%s%3N)
note "the replica is promoted ($(wc -l <"$WORK/at-failover.tsv") leases in it)"
wait_sim "$WORK/report.json" "$WORK/sim.log"
dump_leases "$REPLICA" >"$WORK/at-end.tsv"
landlord_stop_and_check

# Every ACK landlord logged: ms kind address mac lease_s landlord.
acks_of_log "$WORK/landlord.log" landlord >"$WORK/acks.txt"
acked_before=$(awk -v before="$stop_ms" '$1 < before { print $3 }' "$WORK/acks.txt" | sort -u | wc -l)
acked_after=$(awk -v after="$promote_ms" '$1 > after' "$WORK/acks.txt" | wc -l)
lost_at_failover=$(acks_missing "$WORK/at-failover.tsv" "$stop_ms" "$WORK/acks.txt" | tr '\n' ' ')
lost_at_end=$(acks_missing "$WORK/at-end.tsv" 99999999999999 "$WORK/acks.txt" | tr '\n' ' ')
moved=$(clients_moved "$WORK/acks.txt")
first_after_ms=$(awk -v after="$promote_ms" '$1 > after { print $1 - after; exit }' "$WORK/acks.txt")
note "$acked_before addresses ACKed before the primary died, $acked_after ACKs after the promotion (the first ${first_after_ms:-?} ms after it)"

check_sim "$WORK/report.json" 150
((acked_before >= 100)) || fail "only $acked_before addresses ACKed before the failover: too little load"
((acked_after >= 100)) || fail "only $acked_after ACKs after the promotion: landlord did not find the new primary"
[[ -z $lost_at_failover ]] || fail "ACKed but not in the replica when the primary died: $lost_at_failover"
[[ -z $lost_at_end ]] || fail "ACKed but not in the promoted database at the end: $lost_at_end"
[[ -z $moved ]] || fail "these clients were ACKed more than one address: $moved"
grep -aq "store commit failed\|lost the shared store's changes" "$WORK/landlord.log" ||
  fail "landlord did not notice the primary going"
grep -aq "answering again" "$WORK/landlord.log" || fail "landlord did not reload its view"
echo "PASS: primary killed and replica promoted under load: landlord reconnected, every ACKed lease in the promoted database, no client lost or changed its address"
