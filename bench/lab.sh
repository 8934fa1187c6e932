# Sourced by bench/run: the namespace lab and the process bookkeeping around it.
#
# Two network namespaces joined by one veth pair, addresses from 198.18.0.0/15 only and no
# default route, so nothing a benchmark sends can leave the lab. Names carry $$ so parallel
# runs never collide; lab_down (run from an EXIT trap) kills only the PIDs lab_spawn started
# and deletes only this run's namespaces, which takes the veth pair with them.

lab_tag="llb$$"
lab_server_ns="${lab_tag}s"
lab_client_ns="${lab_tag}c"
lab_server_if="${lab_tag}s0"  # interface names must fit in 15 characters
lab_client_if="${lab_tag}c0"
lab_subnet=198.18.0.0/15
lab_server_addr=198.18.0.1
lab_client_addr=198.18.0.2
lab_pool_first=198.18.1.0        # 130,810 addresses: room for every perfdhcp client we use
lab_pool_last=198.19.255.250
lab_dir=""                        # scratch directory for configs, stores, logs, outputs
lab_pids=()                       # every process we started, killed on exit
lab_nice=-20                      # servers and perfdhcp outrank the shared box's compilers

lab_log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

lab_up() {
  lab_dir=$(mktemp -d "/tmp/landlord-bench.$$.XXXXXX")
  ip netns add "$lab_server_ns"
  ip netns add "$lab_client_ns"
  ip link add "$lab_server_if" type veth peer name "$lab_client_if"
  ip link set "$lab_server_if" netns "$lab_server_ns"
  ip link set "$lab_client_if" netns "$lab_client_ns"
  ip -n "$lab_server_ns" addr add "$lab_server_addr/15" dev "$lab_server_if"
  ip -n "$lab_client_ns" addr add "$lab_client_addr/15" dev "$lab_client_if"
  local ns
  for ns in "$lab_server_ns" "$lab_client_ns"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$lab_server_ns" link set "$lab_server_if" up
  ip -n "$lab_client_ns" link set "$lab_client_if" up
  lab_log "lab up: $lab_server_ns/$lab_server_if $lab_server_addr <-> $lab_client_ns/$lab_client_if $lab_client_addr, scratch $lab_dir"
}

lab_down() {
  local pid
  for pid in "${lab_pids[@]}"; do
    lab_stop "$pid"
  done
  lab_pids=()
  ip netns del "$lab_server_ns" 2>/dev/null || true
  ip netns del "$lab_client_ns" 2>/dev/null || true
  if [[ -n "$lab_dir" && -d "$lab_dir" && -z "${BENCH_KEEP:-}" ]]; then
    rm -rf "$lab_dir"
  fi
}

# lab_prefix CPU: sets lab_prefix_command to the nice level and, unless CPU is "-", the pin.
lab_prefix() {
  lab_prefix_command=(nice -n "$lab_nice")
  [[ "$1" != "-" ]] && lab_prefix_command+=(taskset -c "$1")
  return 0
}

# lab_spawn LOGFILE CPU COMMAND...: start COMMAND in the server namespace (see lab_prefix)
# and set lab_spawned_pid. `ip netns exec`, `nice` and `taskset` all exec, so the PID is the
# server's own.
lab_spawn() {
  local log=$1
  lab_prefix "$2"
  shift 2
  ip netns exec "$lab_server_ns" "${lab_prefix_command[@]}" "$@" >"$log" 2>&1 &
  lab_spawned_pid=$!
  lab_pids+=("$lab_spawned_pid")
}

# lab_stop PID: TERM, then KILL after 10 s; only ever for PIDs lab_spawn started.
lab_stop() {
  local pid=$1 tries
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((tries = 0; tries < 100; tries++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local kept=() p
  for p in "${lab_pids[@]}"; do
    [[ "$p" != "$pid" ]] && kept+=("$p")
  done
  lab_pids=("${kept[@]}")
}

# lab_wait_udp67 PID SECONDS: wait until PID has a socket bound to UDP port 67 (bounded).
lab_wait_udp67() {
  local pid=$1 seconds=$2 i
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 1
    if ip netns exec "$lab_server_ns" ss -Hlunp 'sport = :67' 2>/dev/null | grep -q "pid=$pid,"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# CPU time (user + system, all threads, in clock ticks) and resident set of a process.
lab_clock_ticks_per_s=$(getconf CLK_TCK)
lab_cpu_ticks() {
  # Fields after the ")" that closes the command name: utime and stime are the 12th and 13th.
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  awk '{ print $12 + $13 }' <<<"$stat"
}
lab_rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
