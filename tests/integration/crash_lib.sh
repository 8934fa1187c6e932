# Shared by the crash_*.sh durability tests (issue #4); sourced, not run.
# The daemon runs on 127.0.0.1 on a free port of its own (tests run in parallel), with a work
# directory per run. Only PIDs started here are ever signalled; the EXIT trap stops them.

source "$(dirname "${BASH_SOURCE[0]}")/daemon_checks.sh"

WORK=$(mktemp -d /tmp/landlord-"${TEST_NAME:-crash}".XXXXXX)
SERVER_PID=""
SERVER_LOG=""
SERVER_GENERATION=0
EXTRA_PIDS=()

crash_cleanup() {
  local pid
  for pid in "${EXTRA_PIDS[@]}" $SERVER_PID; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -CONT "$pid" 2>/dev/null || true
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if declare -F test_cleanup >/dev/null; then test_cleanup; fi
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap crash_cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }

# A UDP port on 127.0.0.1 nobody listens on (several tests and helpers share the machine).
free_udp_port() {
  local port tries
  for tries in $(seq 200); do
    port=$((20000 + (RANDOM * 7 + $$) % 40000))
    if ! ss -Hlun "sport = :$port" | grep -q .; then echo "$port"; return 0; fi
  done
  return 1
}

# write_config FILE PORT DB LEASE_TIME POOL
write_config() {
  cat > "$1" <<YAML
server:
  listen: 127.0.0.1:$2
store:
  type: sqlite
  path: $3
lease:
  time: $4
  offer-hold: 5s
subnets:
  - subnet: 198.18.0.0/16
    pools: [$5]
    relays: [127.0.0.1]
    options: {routers: [198.18.0.1]}
log:
  level: info
YAML
}

# start_server CONFIG [extra landlord args...]: starts the daemon, waits until it serves
# (bounded), sets SERVER_PID and SERVER_LOG (one log file per start).
start_server() {
  local config=$1; shift
  SERVER_GENERATION=$((SERVER_GENERATION + 1))
  SERVER_LOG=$WORK/server.$SERVER_GENERATION.log
  "$LANDLORD" --allow-root --config "$config" "$@" >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  wait_for_log "$SERVER_LOG" "serving on" 20 "$SERVER_PID" ||
    fail "landlord did not start (log $SERVER_LOG): $(tail -5 "$SERVER_LOG")"
}

# wait_for_log FILE PATTERN SECONDS [PID]: true once PATTERN appears; false on timeout or when
# PID exits first.
wait_for_log() {
  local file=$1 pattern=$2 seconds=$3 pid=${4:-} i
  for i in $(seq $((seconds * 20))); do
    grep -q -- "$pattern" "$file" 2>/dev/null && return 0
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.05
  done
  return 1
}

# stop_server [LOG]: the end of a daemon the test did not mean to kill: it must still run,
# exit 0 on SIGTERM (bounded wait) and leave no sanitizer report in LOG (default SERVER_LOG).
# Prints why and returns 1 otherwise.
stop_server() {
  local pid=$SERVER_PID
  SERVER_PID=""
  daemon_stop_and_check "$pid" "${1:-$SERVER_LOG}" landlord
}

crash_server() {
  kill -KILL "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# The log's counters line, as the daemon prints it on SIGUSR1 and when stopping.
counter() {  # counter LOG NAME
  grep -o "counters: .*" "$1" | tail -1 | grep -o "\b$2=[0-9]*" | cut -d= -f2
}

# The fencing tests: two servers, A and B, sharing one store file and a one-address pool
# (198.18.1.10), configured in WORK/a.yaml and WORK/b.yaml on private ports PORT_A and PORT_B.
two_servers_one_address() {
  command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
  PORT_A=$(free_udp_port) || fail "no free UDP port"
  PORT_B=$(free_udp_port) || fail "no free UDP port"
  [[ $PORT_A != "$PORT_B" ]] || PORT_B=$((PORT_A + 1))
  DB=$WORK/leases.db
  write_config "$WORK/a.yaml" "$PORT_A" "$DB" 10m "198.18.1.10-198.18.1.10"
  write_config "$WORK/b.yaml" "$PORT_B" "$DB" 10m "198.18.1.10-198.18.1.10"
}

# The stored row of that address: "TOKEN STATE HWADDR".
holder() {
  sqlite3 -batch "$DB" "SELECT fencing_token || ' ' || state || ' ' || hwaddr FROM leases WHERE address = '198.18.1.10';"
}
