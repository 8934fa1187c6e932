# Sourced by bench/run: starting each server under test, fresh, in the server namespace.
#
# Both get the same subnet, pool, lease time and interface, and each a store of its own in a
# fresh directory: Kea memfile (a CSV appended per change, not fsync'ed), landlord SQLite.
# server_start NAME [WRAPPER...] sets server_pid and server_dir; WRAPPER (e.g. valgrind) goes
# in front of the server's command line.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(dirname "$bench_dir")
landlord_bin=$repo_dir/build/release/tools/landlord/landlord
# The transport floor (`null`): bench/null_responder.cpp, answers without any DHCP work.
null_bin=${BENCH_NULL_RESPONDER:-$repo_dir/build/release/bench/null_responder}
server_cpu="1"          # CPU the server is pinned to ("-" = not pinned)
server_lease_time_s=3600
server_ready_timeout_s=20
server_count=0

server_start() {
  local name=$1
  shift
  server_count=$((server_count + 1))
  server_dir=$lab_dir/$name.$server_count
  mkdir -p "$server_dir"
  # A fresh server on a fresh link: forget the neighbour (ARP) entries the previous server
  # left behind, or its clients' entries would crowd out this server's.
  ip -n "$lab_server_ns" neigh flush all 2>/dev/null || true
  server_launch "$name" "$@"
  if ! lab_wait_udp67 "$server_pid" "$server_ready_timeout_s"; then
    lab_log "$name did not open UDP port 67 within ${server_ready_timeout_s}s; log:"
    tail -20 "$server_dir/server.log" >&2
    return 1
  fi
  perf_warm_up
}

# server_launch NAME [WRAPPER...]: start NAME on whatever store server_dir already holds.
server_launch() {
  local name=$1
  shift
  case "$name" in
    kea) kea_start "$@" ;;
    landlord) landlord_start "$@" ;;
    null) null_start "$@" ;;
    *) lab_log "unknown server $name"; return 1 ;;
  esac
}

server_stop() { [[ -n "${server_pid:-}" ]] && lab_stop "$server_pid"; server_pid=""; }

kea_start() {
  sed -e "s|@IFACE@|$lab_server_if|" \
      -e "s|@LEASE_FILE@|$server_dir/kea-leases4.csv|" \
      -e "s|@LEASE_TIME_S@|$server_lease_time_s|" \
      -e "s|@SUBNET@|$lab_subnet|" \
      -e "s|@POOL_FIRST@|$lab_pool_first|" \
      -e "s|@POOL_LAST@|$lab_pool_last|" \
      -e "s|@SERVER_ADDR@|$lab_server_addr|" \
      -e "s|@LOG_FILE@|$server_dir/kea.log|" \
      "$bench_dir/kea/kea-dhcp4.json" >"$server_dir/kea-dhcp4.json"
  # Kea keeps its PID and lock files where these say; the defaults are system directories.
  KEA_PIDFILE_DIR=$server_dir KEA_LOCKFILE_DIR=$server_dir \
    lab_spawn "$server_dir/server.log" "$server_cpu" "$@" kea-dhcp4 -c "$server_dir/kea-dhcp4.json"
  server_pid=$lab_spawned_pid
}

landlord_start() {
  landlord_config >"$server_dir/landlord.yaml"
  lab_spawn "$server_dir/server.log" "$server_cpu" "$@" "$landlord_bin" --allow-root --config "$server_dir/landlord.yaml"
  server_pid=$lab_spawned_pid
}

null_start() {
  lab_spawn "$server_dir/server.log" "$server_cpu" "$@" "$null_bin" --server-id "$lab_server_addr"
  server_pid=$lab_spawned_pid
}

# The landlord config equivalent of kea/kea-dhcp4.json: same interface, subnet, pool, lease
# time and router option; durable SQLite store in the fresh directory.
landlord_config() {
  cat <<EOF
server:
  interfaces: [$lab_server_if]
  listen: 0.0.0.0:67
  server-id: $lab_server_addr
store:
  type: sqlite
  path: $server_dir/leases.db
lease:
  time: ${server_lease_time_s}s
  renew: 50%
  rebind: 87.5%
subnets:
  - subnet: $lab_subnet
    interfaces: [$lab_server_if]
    pools: [$lab_pool_first-$lab_pool_last]
    options:
      routers: [$lab_server_addr]
log:
  level: warn
EOF
}
