# Sourced by integration scripts that need one server namespace and one client namespace joined
# by a veth pair. The caller sets SERVER_NS, CLIENT_NS, SERVER_IF and CLIENT_IF (names carrying
# its PID) and calls veth_pair_down from its cleanup trap.

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
