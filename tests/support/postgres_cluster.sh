#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests, never the system's service:
#   postgres_cluster.sh start DIR   initdb in DIR/data, listen only on a UNIX socket in DIR
#                                   (listen_addresses=''), superuser and database `landlord`
#   postgres_cluster.sh stop DIR    stop it (immediate) and remove DIR
#   postgres_cluster.sh replica PRIMARY_DIR DIR
#                                   a streaming replica of the cluster in PRIMARY_DIR
#                                   (pg_basebackup -R), its socket in DIR; the primary then
#                                   waits for it to flush every commit before answering COMMIT
#                                   (synchronous_standby_names = '*', set on the primary only)
#   postgres_cluster.sh promote DIR the replica in DIR becomes a primary (pg_ctl promote)
#   postgres_cluster.sh restart DIR stop the cluster in DIR as a crash does (immediate: every
#                                   connection is closed) and start it again, data kept
# Connect with: postgresql:///landlord?host=DIR&user=landlord
# LANDLORD_PG_FSYNC=off (start, replica): the cluster never waits for the disk (fsync = off,
# which a replica's base backup copies; initdb and pg_basebackup --no-sync). For tests that
# kill and restart PostgreSQL's processes but never the machine: what a killed process wrote
# is still in the page cache, and set-up, crash recovery and restarts no longer take as long as
# the disk's syncs make them (benches leave it on).
# LANDLORD_PG_CLOCK_OFFSET=+30s (start): the cluster's clock runs that far off the host's
# (libfaketime preloaded into the server only), for tests of servers whose clocks disagree.
# initdb refuses to run as root, so as root the cluster runs as `nobody`.
set -euo pipefail
action=${1:?start or stop}
dir=${2:?directory}
bin=${LANDLORD_PG_BIN:-/usr/lib/postgresql/15/bin}
no_sync=()  # initdb's and pg_basebackup's own syncs of the files they write, skipped too
[[ ${LANDLORD_PG_FSYNC:-on} == on ]] || no_sync=(--no-sync)

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi
}

start_server() {  # the cluster in $dir/data, its socket in $dir
  local preload=()
  if [[ -n ${LANDLORD_PG_CLOCK_OFFSET:-} ]]; then
    local faketime=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
    [[ -f $faketime ]] || { echo "postgres_cluster: no $faketime (tools/install-deps: faketime)" >&2; exit 1; }
    preload=(env LD_PRELOAD="$faketime" FAKETIME="$LANDLORD_PG_CLOCK_OFFSET" FAKETIME_DONT_RESET=1)
  fi
  if ! as_owner "${preload[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=60" \
      start >/dev/null; then
    cat "$dir/server.log" >&2
    exit 1
  fi
}

prepare_dir() {
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [[ $(id -u) -eq 0 ]]; then chown nobody "$dir"; fi
}

stop() {
  if [[ -f $dir/data/postmaster.pid ]]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case $action in
  start)
    if [[ ! -x $bin/initdb ]]; then
      echo "postgres_cluster: no PostgreSQL 15 in $bin (tools/install-deps installs postgresql-15)" >&2
      exit 1
    fi
    stop  # a cluster left by an interrupted run
    prepare_dir
    as_owner "$bin/initdb" -D "$dir/data" -U landlord --auth=trust -E UTF8 --no-locale "${no_sync[@]}" \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    ((${#no_sync[@]} == 0)) || echo "fsync = off" >>"$dir/data/postgresql.conf"
    # The socket lives in DIR; nothing listens on TCP. Short paths: a socket path is at most
    # 107 bytes.
    start_server
    chmod 711 "$dir"  # others reach the socket, not the data
    as_owner "$bin/createdb" -h "$dir" -U landlord landlord
    ;;
  replica)
    # initdb's trust rules include "local replication all trust": the base backup and the
    # stream need nothing more.
    primary=$dir
    dir=${3:?usage: $0 replica PRIMARY_DIR DIR}
    stop
    prepare_dir
    as_owner "$bin/pg_basebackup" -h "$primary" -U landlord -D "$dir/data" -R -X stream \
      -c fast "${no_sync[@]}" >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    start_server
    chmod 711 "$dir"
    # After the copy, so the replica (promoted one day, with no standby of its own) does not
    # wait for a standby too.
    as_owner "$bin/psql" -X -q -h "$primary" -U landlord -d landlord \
      -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" \
      >/dev/null
    # Returns once the replica streams synchronously: the walreceiver connects after start-up
    # and the primary's walsender reads the new setting after the reload, both a moment later.
    for ((tries = 0; tries < 100; tries++)); do
      state=$(as_owner "$bin/psql" -X -At -h "$primary" -U landlord -d landlord \
        -c "select sync_state from pg_stat_replication" 2>/dev/null || true)
      [[ $state == sync ]] && break
      sleep 0.1
    done
    ;;
  promote) as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 30 promote >/dev/null ;;
  restart)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null
    start_server
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop|promote|restart DIR, or $0 replica PRIMARY_DIR DIR" >&2; exit 2 ;;
esac
