# Sourced by the tests with two landlord peers on one PostgreSQL store and one client link
# (lab_postgres_failover.sh, lab_postgres_primary.sh, lab_postgres_replica_peers.sh) after
# they set LANDLORD and SIM; brings postgres_lab.sh and daemon_checks.sh with it.
# Topology (198.18.0.0/24 only):
#   <prefix>a: ll-srv0 198.18.0.1/24 (landlord A)   <prefix>b: ll-srv0 198.18.0.2/24 (landlord B)
#   <prefix>c: ll-cli0 unnumbered (landlord-sim)     all three ports of bridge br0 in <prefix>w
#   peers_lab_prepare NAME TAG  skips (exit 77) unless root with jq, psql and PostgreSQL 15;
#                    WORK=/tmp/NAME.XXXXXX, prefix=TAG$$, PGDIR; the cleanup trap
#                    (peers_lab_cleanup: ends SIM_PID, PID_A, PID_B, then peers_lab_down)
#   peers_lab_up     the namespaces, the bridge and the cluster; sets URL (exit 77: no netns)
#   peers_lab_down   removes them, and the cluster in STANDBY if the caller set it
#   peers_lab_configs, peers_lab_start/stop/kill/counters SIDE, peers_lab_sim: below
source "$(dirname "${BASH_SOURCE[0]}")/daemon_checks.sh"
source "$(dirname "${BASH_SOURCE[0]}")/postgres_lab.sh"
CLUSTER="$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)/postgres_cluster.sh"

peers_lab_prepare() {  # NAME TAG
  [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root for network namespaces"; exit 77; }
  postgres_lab_require
  WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  chmod 755 "$WORK"  # the cluster runs as nobody
  prefix="$2$$"
  PGDIR="/tmp/$prefix-p"
  NS_A="${prefix}a" NS_B="${prefix}b" NS_C="${prefix}c" NS_W="${prefix}w"
  PID_A="" PID_B="" SIM_PID=""
  trap peers_lab_cleanup EXIT INT TERM
}

peers_lab_cleanup() {
  local pid
  for pid in $SIM_PID $PID_A $PID_B; do
    kill -CONT "$pid" 2>/dev/null || true  # a SIGSTOPped one too
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  peers_lab_down
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}

fail() {
  echo "FAIL: $*"
  for log in "$WORK"/landlord-*.log; do echo "---- $log"; grep -av ' debug ' "$log" | tail -n 25; done
  KEEP_WORK=1
  exit 1
}
note() { echo "[$(date +%T)] $*"; }

peers_lab_up() {
  ip netns add "$NS_W" || { echo "SKIP: cannot create network namespaces"; exit 77; }
  local ns side inner
  for ns in "$NS_A" "$NS_B" "$NS_C"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
  ip -n "$NS_W" link add br0 type bridge
  ip -n "$NS_W" link set br0 up
  for side in a b c; do
    ns="${prefix}$side"
    inner=ll-srv0
    [[ $side == c ]] && inner=ll-cli0
    ip -n "$NS_W" link add "p$side" type veth peer name "$inner" netns "$ns"
    ip -n "$NS_W" link set "p$side" master br0 up
    ip -n "$ns" link set "$inner" up
  done
  ip -n "$NS_A" addr add 198.18.0.1/24 dev ll-srv0
  ip -n "$NS_B" addr add 198.18.0.2/24 dev ll-srv0
  note "starting PostgreSQL in $PGDIR"
  "$CLUSTER" start "$PGDIR" || fail "cannot start PostgreSQL"
  URL="postgresql:///landlord?host=$PGDIR&user=landlord"
}

peers_lab_down() {
  local ns dir
  for ns in "$NS_A" "$NS_B" "$NS_C" "$NS_W"; do ip netns del "$ns" 2>/dev/null || true; done
  for dir in "$PGDIR" ${STANDBY:+"$STANDBY"}; do "$CLUSTER" stop "$dir" >/dev/null 2>&1 || true; done
}

# peers_lab_config SERVER_ID: a server's config on URL. The caller may set PEERS_KEY (default:
# the two servers are peers), SYNC_KEY (default: poll every 100 ms), LEASE_TIME (10s),
# EXTRA_SUBNET_KEYS (more lines of the subnet) and LOG_LEVEL (info).
peers_lab_config() {
  local peers="peers: {servers: [198.18.0.1, 198.18.0.2]}"
  cat <<YAML
${PEERS_KEY-$peers}
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: $1
store:
  type: postgresql
  url: "$URL"
  ${SYNC_KEY:-sync-interval: 100ms}
lease:
  time: ${LEASE_TIME:-10s}
  renew: 50%
  rebind: 87.5%
  offer-hold: 3s
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    pools: [198.18.0.10-198.18.0.250]
${EXTRA_SUBNET_KEYS:-}
log:
  level: ${LOG_LEVEL:-info}
YAML
}

peers_lab_configs() {  # $WORK/a.yaml and b.yaml
  peers_lab_config 198.18.0.1 >"$WORK/a.yaml"
  peers_lab_config 198.18.0.2 >"$WORK/b.yaml"
}

peers_lab_start() {  # a|b: starts it, waits until it listens, sets PID_A / PID_B
  local side=$1 ns="${prefix}$1" pid
  ip netns exec "$ns" "$LANDLORD" --allow-root -c "$WORK/$side.yaml" >>"$WORK/landlord-$side.log" 2>&1 &
  pid=$!
  daemon_wait_listening "$pid" 20 "$ns" 67 || fail "landlord $side did not start"
  printf -v "PID_${side^^}" '%s' "$pid"
}

peers_lab_pid() { if [[ $1 == a ]]; then echo "$PID_A"; else echo "$PID_B"; fi; }

peers_lab_stop() {  # a|b: SIGTERM, with the checks every daemon test makes
  daemon_stop_and_check "$(peers_lab_pid "$1")" "$WORK/landlord-$1.log" "landlord ${1^^}" || fail "landlord ${1^^}"
  printf -v "PID_${1^^}" '%s' ""
}

peers_lab_kill() {  # a|b: kill -9
  local pid
  pid=$(peers_lab_pid "$1")
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  printf -v "PID_${1^^}" '%s' ""
}

peers_lab_counters() {  # a|b: the counters line the daemon logs on SIGUSR1
  kill -USR1 "$(peers_lab_pid "$1")"
  sleep 0.5
  grep -a "stale_refusals=" "$WORK/landlord-$1.log" | tail -n 1
}

# peers_lab_sim NAME TIMEOUT_S SIM_ARGS...: landlord-sim on the client link in the background
# (SIM_PID), its report in $WORK/NAME.json, its output in $WORK/NAME.log.
peers_lab_sim() {
  local name=$1 limit=$2
  shift 2
  ip netns exec "$NS_C" timeout "$limit" "$SIM" --interface ll-cli0 --retransmit-base 1s --renew-min 1s \
    "$@" --report "$WORK/$name.json" >"$WORK/$name.log" 2>&1 &
  SIM_PID=$!
}
