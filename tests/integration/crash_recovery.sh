#!/usr/bin/env bash
# Issue #4, restart recovery: leases that ended while the daemon was down are reclaimed at once
# when it starts, counted, and their addresses are free again; leases still running survive.
# A pool of 4 addresses is filled by 4 clients (20 s leases, as config/loopback.yaml); the
# daemon is killed; the store is edited so that 2 of the leases ended an hour ago (the same as
# the daemon being down for an hour); on restart those 2 must be expired by the start-up
# reclaim (waited for, at most 20 s; the time taken is reported), counted, and handed to 2 new
# clients, while the 2 others are still ACKed to their holders.
# A second round does the same without touching the store: 4 s leases, and the daemon stays
# down until they have ended by the clock.
# Usage: crash_recovery.sh path/to/landlord path/to/crash_client
set -euo pipefail
LANDLORD=${1:?usage: crash_recovery.sh landlord crash_client}
CLIENT=${2:?usage: crash_recovery.sh landlord crash_client}
TEST_NAME=crash_recovery
source "$(dirname "$0")/crash_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }

PORT=$(free_udp_port) || fail "no free UDP port"
DB=$WORK/leases.db
write_config "$WORK/landlord.yaml" "$PORT" "$DB" 20s "198.18.1.10-198.18.1.13"
SERVER=127.0.0.1:$PORT

start_server "$WORK/landlord.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/first.txt" --clients 4 --seed 11 --duration-s 10 \
  >"$WORK/first.out" || fail "crash_client: $(cat "$WORK/first.out")"
[[ $(wc -l <"$WORK/first.txt") -eq 4 ]] || fail "4 clients should fill the pool: $(cat "$WORK/first.out")"
crash_server

# Two of the four leases ended an hour ago; the other two run on.
sort -k6,6 "$WORK/first.txt" >"$WORK/sorted.txt"
head -2 "$WORK/sorted.txt" >"$WORK/ended.txt"
tail -2 "$WORK/sorted.txt" >"$WORK/running.txt"
ended=$(cut -d' ' -f6 "$WORK/ended.txt" | sed "s/.*/'&'/" | paste -sd,)
sqlite3 -batch "$DB" "UPDATE leases SET granted_at_ms = granted_at_ms - 3600000 WHERE address IN ($ended);"
past=$(sqlite3 -batch "$DB" "SELECT count(*) FROM leases WHERE state = 'bound' AND expires_at < strftime('%s', 'now');")
[[ $past -eq 2 ]] || fail "crafting the store: $past bound leases in the past, expected 2"

start_server "$WORK/landlord.yaml"
for address in $(cut -d' ' -f6 "$WORK/ended.txt"); do
  wait_for_log "$SERVER_LOG" "expire $address " 20 "$SERVER_PID" ||
    fail "$address not expired within 20 s of start: $(tail -5 "$SERVER_LOG")"
done
kill -USR1 "$SERVER_PID"
wait_for_log "$SERVER_LOG" "counters:" 5 "$SERVER_PID" || fail "no counters line after SIGUSR1"
expirations=$(counter "$SERVER_LOG" expirations)
[[ $expirations -eq 2 ]] || fail "expirations=$expirations after start, expected 2"
states=$(sqlite3 -batch "$DB" "SELECT group_concat(state, ',') FROM (SELECT state FROM leases WHERE address IN ($ended));")
[[ $states == expired,expired ]] || fail "store states of the ended leases: $states"

# The expired addresses are free: two new clients get exactly them (the pool has no other).
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/second.txt" --clients 2 --seed 12 --duration-s 10 \
  >"$WORK/second.out" || fail "crash_client: $(cat "$WORK/second.out")"
[[ $(cut -d' ' -f6 "$WORK/second.txt" | sort | paste -sd' ') == "$(cut -d' ' -f6 "$WORK/ended.txt" | sort | paste -sd' ')" ]] ||
  fail "new clients got $(cut -d' ' -f6 "$WORK/second.txt" | paste -sd' '), expected the expired $ended"
# The running leases survived the crash and the restart; the ended ones are gone from their
# former holders.
"$CLIENT" check --server "$SERVER" --ledger "$WORK/running.txt" --expect ack >"$WORK/running.out" ||
  fail "running leases not honoured: $(cat "$WORK/running.out")"
ended_status=0
"$CLIENT" check --server "$SERVER" --ledger "$WORK/ended.txt" --expect no-ack >"$WORK/ended.out" ||
  ended_status=$?
case $ended_status in
  0) ;;
  1) fail "an expired lease was ACKed to its old holder: $(cat "$WORK/ended.out")" ;;
  3) fail "the old holders got no answer from a live server: $(cat "$WORK/ended.out")" ;;
  *) fail "crash_client check exited $ended_status: $(cat "$WORK/ended.out")" ;;
esac
stop_server || fail "landlord exited non-zero on SIGTERM"
# Milliseconds from "serving on" to the last expiry line: "at once" as measured.
ms_of() { grep -m1 -- "$1" "$2" | cut -c12-23 | awk -F'[:.]' '{ print (($1 * 60 + $2) * 60 + $3) * 1000 + $4 }'; }
crafted_delay=$(( $(ms_of "expire $(cut -d' ' -f6 "$WORK/ended.txt" | tail -1) " "$WORK/server.2.log") -
                  $(ms_of "serving on" "$WORK/server.2.log") ))

# The same without editing the store: 4 s leases, the daemon killed and left down until they
# have ended by the clock.
DB2=$WORK/short.db
write_config "$WORK/short.yaml" "$PORT" "$DB2" 4s "198.18.2.10-198.18.2.11"
start_server "$WORK/short.yaml"
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/short.txt" --clients 2 --seed 13 --duration-s 10 \
  >"$WORK/short.out" || fail "crash_client: $(cat "$WORK/short.out")"
[[ $(wc -l <"$WORK/short.txt") -eq 2 ]] || fail "2 clients should fill the pool: $(cat "$WORK/short.out")"
crash_server
for _ in $(seq 100); do
  ended_count=$(sqlite3 -batch "$DB2" "SELECT count(*) FROM leases WHERE state = 'bound' AND expires_at < strftime('%s', 'now');")
  ((ended_count == 2)) && break
  sleep 0.1
done
((ended_count == 2)) || fail "the 4 s leases did not end within 10 s of the kill"
start_server "$WORK/short.yaml"
for address in $(cut -d' ' -f6 "$WORK/short.txt"); do
  wait_for_log "$SERVER_LOG" "expire $address " 20 "$SERVER_PID" ||
    fail "$address not expired within 20 s of start: $(tail -5 "$SERVER_LOG")"
done
kill -USR1 "$SERVER_PID"
wait_for_log "$SERVER_LOG" "counters:" 5 "$SERVER_PID" || fail "no counters line after SIGUSR1"
real_expirations=$(counter "$SERVER_LOG" expirations)
real_delay=$(( $(ms_of "expire $(cut -d' ' -f6 "$WORK/short.txt" | tail -1) " "$SERVER_LOG") -
               $(ms_of "serving on" "$SERVER_LOG") ))
"$CLIENT" dora --server "$SERVER" --ledger "$WORK/short2.txt" --clients 2 --seed 14 --duration-s 10 \
  >"$WORK/short2.out" || fail "crash_client: $(cat "$WORK/short2.out")"
[[ $(wc -l <"$WORK/short2.txt") -eq 2 ]] || fail "the expired addresses were not reusable: $(cat "$WORK/short2.out")"
stop_server || fail "landlord exited non-zero on SIGTERM"
[[ $real_expirations -eq 2 ]] || fail "expirations=$real_expirations after the real wait, expected 2"

echo "RESULT crafted: expired_while_down=2 expirations_counted=$expirations reused=2 running_kept=2" \
     "old_holders_refused=$(grep -o 'naks=[0-9]*' "$WORK/ended.out" | cut -d= -f2)" \
     "last_expiry_after_start_ms=$crafted_delay"
echo "RESULT waited: expired_while_down=2 expirations_counted=$real_expirations reused=2" \
     "last_expiry_after_start_ms=$real_delay"
echo "PASS: leases that ended while landlord was down were reclaimed at start and reused"
