# Helpers of the PostgreSQL lab tests (sourced by lab_postgres_replica.sh, and by peers_lab.sh
# for the two-server ones). The caller defines fail(); clusters come from
# tests/support/postgres_cluster.sh, each named by its socket directory (HOST below).
#   postgres_lab_require      exit 77 (skip) without jq, psql or PostgreSQL 15
#   on HOST SQL               one statement as landlord, the answer unaligned
#   install_write_log HOST    a table lease_writes logging every write the store accepts
#   count_over_running HOST   bound writes over another client's running lease (double grants)
#   count_doubled HOST        clients holding two running leases now
#   wait_replayed HOST        a standby has replayed all it received (5 s at most)
#   dump_leases HOST          "address holder end_ms" of every lease row
#   wait_sim REPORT LOG [PHASE] / check_sim REPORT CLIENTS [PHASE]   landlord-sim's SIM_PID
#   acks_of_log LOG SIDE / acks_missing STORE_TSV BEFORE_MS ACKS / clients_moved ACKS
PGBIN=/usr/lib/postgresql/15/bin
# The labs kill and restart PostgreSQL's processes, never the machine: its clusters skip fsync,
# so how long a restart's crash recovery takes does not depend on the disk. With 10 ms a sync,
# lab_postgres_replica_peers' standby was away 22 s instead of 8 s and leases ran out, and
# lab_postgres_failover's restart phase lost a lease.
export LANDLORD_PG_FSYNC=off

postgres_lab_require() {
  command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
  command -v psql >/dev/null || { echo "SKIP: no psql (tools/install-deps)"; exit 77; }
  [[ -x $PGBIN/initdb ]] || { echo "SKIP: no PostgreSQL 15"; exit 77; }
}

on() { psql -X -At "host=$1 user=landlord dbname=landlord" -c "$2"; }

# The test's own table (landlord ignores it), filled in commit order by a trigger in the
# writing transaction: a standby replicates it with the write, so a promoted one has it all.
install_write_log() {  # HOST
  on "$1" "create table lease_writes (id bigserial primary key, address text, state text,
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
}

# In lease_writes: a bound write of an address while another client's lease on it still ran.
count_over_running() {  # HOST
  on "$1" "select count(*) from (select state, client_key, granted_at_ms,
    lag(state) over w as prev_state, lag(client_key) over w as prev_client,
    lag(granted_at_ms + lease_time_ms) over w as prev_end
  from lease_writes window w as (partition by address order by id)) h
  where state = 'bound' and prev_state = 'bound' and client_key <> prev_client
    and prev_end > granted_at_ms"
}

count_doubled() {  # HOST
  on "$1" "select count(*) from (select client_key from leases where state = 'bound'
                 and expires_at > now() group by client_key having count(*) > 1) twice"
}

wait_replayed() {  # HOST
  for _ in $(seq 50); do
    [[ $(on "$1" "select pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()") == t ]] && break
    sleep 0.1
  done
}

dump_leases() {  # HOST
  on "$1" "copy (select host(address), hwaddr, granted_at_ms + lease_time_ms from leases) to stdout"
}

# wait_sim REPORT LOG [PHASE]: waits for landlord-sim (SIM_PID), sets sim_status to its exit
# code and prints its report's counts; fails without a report.
wait_sim() {
  sim_status=0
  wait "$SIM_PID" || sim_status=$?
  SIM_PID=""
  [[ -s $1 ]] || fail "${3:+$3: }no report (landlord-sim exit $sim_status): $(tail -5 "$2")"
  jq -c '{clients, leases_acquired, reboots, renewals: .renewals.count, rebinds: .rebinds.count,
          expirations, naks, timeouts, states_at_end, violation_count}' "$1"
}

# check_sim REPORT CLIENTS [PHASE]: the auditor found no violation, landlord-sim exited 0, no
# client lost its lease and at least CLIENTS leases were acquired.
check_sim() {
  local phase=${3:+$3: }
  jq -e '.violation_count == 0' "$1" >/dev/null || fail "${phase}auditor violations: $(jq -c .violations "$1")"
  ((sim_status == 0)) || fail "${phase}landlord-sim exited $sim_status"
  jq -e '.expirations == 0' "$1" >/dev/null || fail "${phase}a client lost its lease"
  jq -e --argjson n "$2" '.leases_acquired >= $n' "$1" >/dev/null || fail "${phase}not every client got a lease"
}

# acks_of_log LOG SIDE: every ACK (grant, renew, rebind) the daemon logged, a line each:
# "ms kind address mac lease_s SIDE" (the log's timestamps: the same clock as date's).
acks_of_log() {
  local lines="$WORK/ack-lines-$2.txt"
  grep -aE '^[0-9T:.+-]+ info (grant|renew|rebind) ' "$1" >"$lines" || true
  cut -d' ' -f1 "$lines" | date -f - +%s%3N >"$WORK/ack-ms-$2.txt"
  awk -v side="$2" '{for (i = 1; i <= NF; ++i) if ($i == "lease") lease = $(i + 1); sub(/s$/, "", lease);
                     print $3, $4, $6, lease, side}' "$lines" | paste -d' ' "$WORK/ack-ms-$2.txt" -
}

# acks_missing STORE_TSV BEFORE_MS ACKS: the addresses whose last ACK before BEFORE_MS the
# store (dump_leases) lacks: another holder, or an end more than 2 s before the one the ACK gave.
acks_missing() {
  awk -v before="$2" 'NR == FNR { holder[$1] = $2; end[$1] = $3; next }
    $1 < before { last_ms[$3] = $1; last_mac[$3] = $4; last_lease[$3] = $5 }
    END { for (a in last_ms) {
            if (!(a in holder) || holder[a] != last_mac[a] ||
                end[a] < last_ms[a] + last_lease[a] * 1000 - 2000) print a } }' "$1" "$3"
}

clients_moved() {  # ACKS: the clients ACKed more than one address
  awk '{ print $4, $3 }' "$1" | sort -u | awk '{ print $1 }' | uniq -d | tr '\n' ' '
}
