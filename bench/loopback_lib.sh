# Sourced by the benches that run landlord in relay mode on loopback (nothing leaves
# 127.0.0.1): a work directory, a free port pair, the relay config, start, stop and CPU ticks.
# The sourcing script sets `landlord` (the binary) before calling start_landlord.
#   loopback_setup NAME        $work (mode 755: a dropped-privilege server can read it), $port;
#                              the EXIT trap stops every started server, runs
#                              `loopback_extra_cleanup` if defined, then removes $work
#   next_port                  $port moves to the next pair PORT, PORT+1 both free
#   relay_config NAME STORE_YAML [EXTRA_YAML] [SERVER_ID]
#                              $work/NAME.yaml: 198.18.0.0/16 relayed from 127.0.0.1, 1 h leases
#   start_landlord NAME        runs $work/NAME.yaml (log $work/NAME.log) until it serves (its
#                              control socket appears once its leases are loaded: a server on
#                              PostgreSQL binds its port seconds before it answers), appends
#                              the PID to loopback_pids
#   stop_landlords             kill and reap every started server
#   cpu_ticks PID              user + system clock ticks so far
loopback_pids=()

loopback_setup() {
  work=$(mktemp -d "/tmp/bench-$1.XXXXXX")
  chmod 755 "$work"
  trap loopback_cleanup EXIT INT TERM
  port=$((30000 + $$ % 20000 - 2))
  next_port
}

loopback_cleanup() {
  stop_landlords
  if declare -F loopback_extra_cleanup >/dev/null; then loopback_extra_cleanup; fi
  rm -rf "$work"
}

next_port() {
  port=$((port + 2))
  while ss -Huln "sport = :$port or sport = :$((port + 1))" | grep -q .; do port=$((port + 2)); done
}

wait_listening() { for _ in $(seq 100); do ss -Huln "sport = :$1" | grep -q . && return 0; sleep 0.1; done; return 1; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

relay_config() {
  cat >"$work/$1.yaml" <<YAML
server:
  listen: 127.0.0.1:$port
  server-id: ${4:-127.0.0.1}
store:
$2
lease:
  time: 1h
  offer-hold: 10s
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.0-198.18.254.255]
    relays: [127.0.0.1]
${3:-}
control:
  socket: $work/$1.sock
log:
  level: warn
YAML
}

start_landlord() {
  "$landlord" --allow-root -c "$work/$1.yaml" >"$work/$1.log" 2>&1 &
  loopback_pids+=($!)
  local waited
  for ((waited = 0; waited < 300; waited++)); do [[ -S $work/$1.sock ]] && return 0; sleep 0.1; done
  cat "$work/$1.log"
  echo "$1 did not start serving in 30 s" >&2
  exit 1
}

stop_landlords() {
  local pid
  for pid in "${loopback_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  loopback_pids=()
}
