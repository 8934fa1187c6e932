# Sourced by integration scripts that need one server namespace and one client namespace joined
# by a veth pair. veth_pair_prepare names them (with the script's PID), makes a scratch WORK
# directory and sets the cleanup trap; veth_pair_up builds the pair; landlord_on_lab starts
# landlord on it, landlord_on_loopback on 127.0.0.1 for relayed clients instead;
# landlord_stop_and_check ends the test's daemon with the checks every daemon test makes.
source "$(dirname "${BASH_SOURCE[0]}")/daemon_checks.sh"

# veth_pair_prepare NAME TAG: WORK=/tmp/NAME.XXXXXX; SERVER_NS/CLIENT_NS/SERVER_IF/CLIENT_IF
# from TAG and $$; SERVER_PID (empty until the caller sets it) is stopped on exit, the
# namespaces deleted (if they were made) and WORK removed unless KEEP_WORK=1.
veth_pair_prepare() {
  WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  local prefix="$2$$"
  SERVER_NS="${prefix}s"
  CLIENT_NS="${prefix}c"
  SERVER_IF="${prefix}s0"
  CLIENT_IF="${prefix}c0"
  SERVER_PID=""
  trap veth_pair_cleanup EXIT INT TERM
}

veth_pair_cleanup() {
  if [[ -n ${SERVER_PID:-} ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  veth_pair_down
  if [[ ${KEEP_WORK:-0} != 1 ]]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}

veth_pair_up() {  # SERVER_CIDR (e.g. 198.18.0.1/24): exits 77 when namespaces cannot be made
  ip netns add "$SERVER_NS" || { echo "SKIP: cannot create network namespaces"; exit 77; }
  ip netns add "$CLIENT_NS"
  ip link add "$SERVER_IF" type veth peer name "$CLIENT_IF"
  ip link set "$SERVER_IF" netns "$SERVER_NS"
  ip link set "$CLIENT_IF" netns "$CLIENT_NS"
  ip -n "$SERVER_NS" addr add "$1" dev "$SERVER_IF"
  ip -n "$SERVER_NS" link set "$SERVER_IF" up
  ip -n "$SERVER_NS" link set lo up
  ip -n "$CLIENT_NS" link set "$CLIENT_IF" up
  ip -n "$CLIENT_NS" link set lo up
}

veth_pair_down() {  # deleting the namespaces deletes the veth pair with them
  ip netns del "$SERVER_NS" 2>/dev/null || true
  ip netns del "$CLIENT_NS" 2>/dev/null || true
}

# landlord_on_lab LANDLORD PREFIX_LENGTH POOL LEASE_YAML: builds the pair with the server end at
# 198.18.0.1/PREFIX_LENGTH and starts LANDLORD in the server namespace serving 198.18.0.0/
# PREFIX_LENGTH from POOL, with a SQLite store in WORK and LEASE_YAML (a `lease:` section) in
# its config; SERVER_PID is set once the daemon listens, and the test fails if it does not.
landlord_on_lab() {
  veth_pair_up "198.18.0.1/$2"
  cat > "$WORK/landlord.yaml" <<YAML
server:
  interfaces: [$SERVER_IF]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
store:
  type: sqlite
  path: $WORK/leases.db
$4
subnets:
  - subnet: 198.18.0.0/$2
    interfaces: [$SERVER_IF]
    pools: [$3]
log:
  level: warn
YAML
  ip netns exec "$SERVER_NS" "$1" --allow-root -c "$WORK/landlord.yaml" >"$WORK/landlord.log" 2>&1 &
  SERVER_PID=$!
  landlord_ready "$SERVER_NS" 67
}

# landlord_ready NETNS PORT [ADDRESS]: the daemon serves once its UDP port is bound (at most
# 20 s); one that exits first (bad config, port taken) or never binds fails the test with its log.
landlord_ready() {
  daemon_wait_listening "$SERVER_PID" 20 "$@" ||
    { cat "$WORK/landlord.log"; echo "FAIL: landlord did not start serving on port $2"; KEEP_WORK=1; exit 1; }
}

# landlord_stop_and_check: at the end of a test, the daemon must still be running, exit 0 on
# SIGTERM and have no sanitizer report in its log. Fails the test otherwise.
landlord_stop_and_check() {
  local pid=$SERVER_PID
  SERVER_PID=""  # whatever happens, the cleanup has nothing left to stop
  daemon_stop_and_check "$pid" "$WORK/landlord.log" landlord || { KEEP_WORK=1; exit 1; }
}

# loopback_ports: a free UDP port on loopback for the server, SERVER_PORT, with the simulator's
# relay port RELAY_PORT = SERVER_PORT + 1 free beside it (two free ports in a row: a server
# bound with SO_REUSEADDR would share a busy one silently).
loopback_ports() {
  SERVER_PORT=$((20000 + $$ % 20000))
  while ss -Huln "sport = :$SERVER_PORT or sport = :$((SERVER_PORT + 1))" | grep -q .; do
    SERVER_PORT=$((SERVER_PORT + 2))
  done
  RELAY_PORT=$((SERVER_PORT + 1))
}

# landlord_on_loopback LANDLORD POOL LEASE_YAML: no namespaces; LANDLORD on 127.0.0.1 serving
# relayed clients of 198.18.0.0/16 (giaddr 127.0.0.1) from POOL, on loopback_ports.
landlord_on_loopback() {
  loopback_ports
  cat > "$WORK/landlord.yaml" <<YAML
server:
  listen: 127.0.0.1:$SERVER_PORT
store:
  type: sqlite
  path: $WORK/leases.db
$3
subnets:
  - subnet: 198.18.0.0/16
    pools: [$2]
    relays: [127.0.0.1]
log:
  level: warn
YAML
  "$1" --allow-root -c "$WORK/landlord.yaml" >"$WORK/landlord.log" 2>&1 &
  SERVER_PID=$!
  landlord_ready "" "$SERVER_PORT" 127.0.0.1
}

