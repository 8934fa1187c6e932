# Sourced by the tests with two landlord peers on one PostgreSQL store and one client link
# (lab_postgres_failover.sh, lab_postgres_primary.sh). The caller sets `prefix` (unique: it
# holds the script's PID), PGDIR and CLUSTER (tests/support/postgres_cluster.sh) and defines
# note() and fail(). Topology (198.18.0.0/24 only):
#   <prefix>a: ll-srv0 198.18.0.1/24 (landlord A)   <prefix>b: ll-srv0 198.18.0.2/24 (landlord B)
#   <prefix>c: ll-cli0 unnumbered (landlord-sim)     all three ports of bridge br0 in <prefix>w
#   peers_lab_up     the namespaces, the bridge and the cluster; sets URL (exit 77: no netns)
#   peers_lab_down   removes them (from the caller's EXIT trap, after its processes are ended)
NS_A="${prefix}a" NS_B="${prefix}b" NS_C="${prefix}c" NS_W="${prefix}w"

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
  local ns
  for ns in "$NS_A" "$NS_B" "$NS_C" "$NS_W"; do ip netns del "$ns" 2>/dev/null || true; done
  "$CLUSTER" stop "$PGDIR" >/dev/null 2>&1 || true
}
