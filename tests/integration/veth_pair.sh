# Sourced by integration scripts that need one server namespace and one client namespace joined
# by a veth pair. veth_pair_prepare names them (with the script's PID), makes a scratch WORK
# directory and sets the cleanup trap; veth_pair_up builds the pair.

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
