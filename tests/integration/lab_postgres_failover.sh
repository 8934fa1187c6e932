#!/usr/bin/env bash
# Two landlord servers on one client link, one PostgreSQL lease store (issue #14), landlord-sim's
# clients on the same link, 10 s leases (T1 5 s, T2 8.75 s). Three phases, each a fresh set of
# simulated clients:
#   kill:    server A is killed (-9) under load: its clients' renewals go unanswered, they rebind
#            at T2 to server B, which extends their leases from the shared store; none expires.
#            Asserted per client: every address A ACKed before the kill is rebound by B. The
#            servers are peers (RFC 3074 split), so each holds about half of the clients.
#   stop:    server B is SIGSTOPped for 15 s (longer than a lease), then SIGCONTed: whatever it
#            writes from its old view is refused by the store, and it ACKs nothing it could not
#            commit (the auditor would see a second holder of an address).
#   restart: PostgreSQL restarts under load: both servers log that they lost the store, stop
#            answering, reload their view and answer again.
# After each phase: the auditor found no violation and no client lost its lease; a SQL check
# finds no address or client with two running leases and every client still holding a lease at
# the end bound to it in the store.
# Topology: tests/integration/peers_lab.sh (namespaces named with this script's PID,
# 198.18.0.0/24 only); PostgreSQL on a UNIX socket in a scratch directory.
# Usage: lab_postgres_failover.sh path/to/landlord path/to/landlord-sim
set -euo pipefail
source "$(dirname "$0")/peers_lab.sh"
LANDLORD=${1:?usage: lab_postgres_failover.sh landlord landlord-sim}
SIM=${2:?usage: lab_postgres_failover.sh landlord landlord-sim}
peers_lab_prepare lab_postgres llpg

# ---- the lab ----
peers_lab_up

# The servers are peers (config key peers): each answers the DISCOVERs of its RFC 3074 hash
# buckets and allocates from its half of the pool first. LAB_PEERS=0 leaves that out (both answer
# every DISCOVER) to compare the NAKs and retries it saves.
# LAB_SYNC_NOTIFY=1: the servers learn each other's commits by LISTEN/NOTIFY (store.sync-notify),
# polling only every 1 s (its default then) for a notification that was lost.
PEERS_KEY="" SYNC_KEY=""
[[ ${LAB_PEERS:-1} == 1 ]] && PEERS_KEY="peers: {servers: [198.18.0.1, 198.18.0.2]}"
[[ ${LAB_SYNC_NOTIFY:-0} == 1 ]] && SYNC_KEY="sync-notify: true"
peers_lab_configs
peers_lab_start a
peers_lab_start b
if [[ ${LAB_SYNC_NOTIFY:-0} == 1 ]]; then
  for side in a b; do  # logged just after the server listens: up to 5 s for it
    for ((try = 0; try < 50; try++)); do
      grep -aq "listening for their commits' notifications and polling its changes every 1s" \
        "$WORK/landlord-$side.log" && break
      sleep 0.1
    done
    ((try < 50)) || fail "landlord $side does not listen for notifications"
  done
fi
note "landlord A (pid $PID_A) and B (pid $PID_B) serve one link from one database"

# run_sim PHASE SEED DURATION_S: landlord-sim in the background, 100 clients arriving over 5 s.
run_sim() {
  phase_start_ms=$(date +%s%3N)
  peers_lab_sim "$1" $(($3 + 30)) --clients 100 --rate 20 --duration "$3s" --seed "$2"
}
wait_phase() {  # PHASE
  wait_sim "$WORK/$1.json" "$WORK/$1.log" "$1"
  phase_end_ms=$(date +%s%3N)
  note "$1: $(jq .clients "$WORK/$1.json") clients received $(jq .offers "$WORK/$1.json") OFFERs and $(jq .naks "$WORK/$1.json") NAKs, retransmitted $(jq .timeouts "$WORK/$1.json") times (peers split: ${LAB_PEERS:-1})"
  check_sim "$WORK/$1.json" 100 "$1"
  # Peers answer disjoint clients from disjoint halves of the pool: no two OFFERs of one
  # address, so no grant refused by the store and NAKed (21-37 NAKs per phase without the split).
  if [[ ${LAB_PEERS:-1} == 1 ]]; then
    jq -e '.naks <= 2' "$WORK/$1.json" >/dev/null || fail "$1: $(jq .naks "$WORK/$1.json") NAKs although the peers split clients"
  fi
}

# The store's side, after a phase. An address has one row (primary key), so a double grant would
# show as an ACKed lease overwritten by another client's: every client the simulator ends in
# BOUND must hold a row of this phase (granted or extended since it began: the earlier phases'
# clients have stopped) whose lease ran past the simulator's end. The servers reclaim such a lease
# once it runs out (the clients stopped), so the row may already say 'expired': what counts is
# the lease's end, not the time of this check. Clients with two running leases (a paused server's
# late ACK of a free address to a client that had moved on: no double grant) are counted, not
# failed.
check_store() {  # PHASE
  local holding bound doubled
  holding=$(jq '.states_at_end.bound' "$WORK/$1.json")
  bound=$(on "$PGDIR" "select count(distinct hwaddr) from leases where state in ('bound', 'expired')
               and granted_at_ms >= $phase_start_ms
               and granted_at_ms + lease_time_ms >= $phase_end_ms")
  doubled=$(count_doubled "$PGDIR")
  note "$1 store: $bound of this phase's clients bound in the store, $holding in BOUND at the end; clients with two running leases: $doubled"
  ((holding > 0)) || fail "$1: no client ended bound"
  ((bound >= holding)) || fail "$1: $holding clients hold a lease but only $bound are bound in the store"
}

# ---- phase 1: kill -9 A under load ----
note "kill: 100 clients over 40 s; A is killed at 12 s"
run_sim kill 11 40
sleep 12
peers_lab_kill a
note "killed A"
# Which clients A held when it died: the addresses it ACKed (grant, renew) in this phase, its
# first. Its clients talk only to A until T2, so each of them must rebind to B. How many that is
# depends on which server answered each client first (both answer every DISCOVER unless peers
# split them): the assertion is per client, not a fixed count.
leased_addresses() {  # LOG KIND...: the distinct addresses of the log's ACK lines of these kinds
  local log=$1
  shift
  grep -aoE " info ($(IFS='|'; echo "$*")) 198\.18\.0\.[0-9]+" "$log" | awk '{print $3}' | sort -u
}
leased_addresses "$WORK/landlord-a.log" grant renew rebind >"$WORK/held-by-a.txt"
wait_phase kill
held_by_a=$(wc -l <"$WORK/held-by-a.txt")
leased_addresses "$WORK/landlord-b.log" rebind >"$WORK/rebound-by-b.txt"
leased_addresses "$WORK/landlord-b.log" grant renew rebind >"$WORK/held-by-b.txt"
not_taken_over=$(comm -23 "$WORK/held-by-a.txt" "$WORK/rebound-by-b.txt" | tr '\n' ' ')
note "kill: A held $held_by_a clients when killed, B $(comm -13 "$WORK/held-by-a.txt" "$WORK/held-by-b.txt" | wc -l) others; B extended $(wc -l <"$WORK/rebound-by-b.txt") REBINDING leases; the simulator counted $(jq .rebinds.count "$WORK/kill.json") rebinds, p50 at $(jq .rebinds.lease_fraction_p50 "$WORK/kill.json") of the lease"
((held_by_a > 0)) || fail "kill: A held no client when it was killed: nothing to take over"
if [[ ${LAB_PEERS:-1} == 1 ]]; then  # the RFC 3074 split: about half each, whatever the load
  held_by_b_only=$(comm -13 "$WORK/held-by-a.txt" "$WORK/held-by-b.txt" | wc -l)
  ((held_by_a >= 20 && held_by_b_only >= 20)) ||
    fail "kill: the peers did not split the clients (A held $held_by_a, B $held_by_b_only others)"
fi
[[ -z $not_taken_over ]] || fail "kill: B did not take over these leases of A's clients: $not_taken_over"
jq -e --argjson held "$held_by_a" '.rebinds.count >= $held' "$WORK/kill.json" >/dev/null ||
  fail "kill: A held $held_by_a clients but the simulator saw only $(jq .rebinds.count "$WORK/kill.json") rebinds"
check_store kill

# ---- phase 2: SIGSTOP B past a lease ----
peers_lab_start a
note "stop: 100 new clients over 45 s; B is stopped at 10 s for 15 s"
run_sim stop 12 45
sleep 10
kill -STOP "$PID_B"
note "stopped B"
sleep 15
woke_at_line=$(wc -l <"$WORK/landlord-b.log")
kill -CONT "$PID_B"
note "continued B"
wait_phase stop
# What B writes from the view it had when it stopped is refused unless it is still right: an
# expiry of a lease A has since extended, a grant of an address A has since granted, are refused
# and not sent; a queued RENEW of a client that still holds its address is written and ACKed.
# Which of them B meets depends on whether its timers, its queued packets or its first poll of
# the others' changes run first, so they are reported; the auditor's verdict (no address ACKed
# to two clients) is the assertion. The refusal itself is asserted deterministically by
# store_postgresql's PausedServersWritesAreRefusedAfterATakeover.
tail -n +"$((woke_at_line + 1))" "$WORK/landlord-b.log" | grep -a 'not sent: .*stale fencing token' \
  >"$WORK/refused-after-wake.txt" || true
note "stop: after waking, B's writes the store refused (not sent), by kind: $(awk '{print $3}' "$WORK/refused-after-wake.txt" | sort | uniq -c | tr -s ' \n' ' '); ACKs B sent after waking: $(tail -n +"$((woke_at_line + 1))" "$WORK/landlord-b.log" | grep -acE ' info (grant|renew|rebind) ' || true)"
note "stop: B's counters: $(peers_lab_counters b | grep -o 'stale_refusals=[0-9]*' || true)"
check_store stop

# ---- phase 3: PostgreSQL restarts under load ----
note "restart: 100 new clients over 40 s; PostgreSQL restarts at 10 s"
run_sim restart 13 40
sleep 10
runuser -u nobody -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w restart \
  -o "-c listen_addresses='' -c unix_socket_directories='$PGDIR'" >/dev/null ||
  fail "PostgreSQL did not restart"
note "restarted PostgreSQL"
wait_phase restart
for side in a b; do
  grep -aq "lost the shared store's changes\|store commit failed" "$WORK/landlord-$side.log" ||
    fail "restart: landlord $side did not notice the database going"
  grep -aq "answering again\|store recovered" "$WORK/landlord-$side.log" ||
    fail "restart: landlord $side did not say it answers again"
done
check_store restart

peers_lab_stop a
peers_lab_stop b
echo "PASS: two servers on one PostgreSQL store: takeover at T2 after kill -9, a paused server fenced, a database restart survived; no violations"
