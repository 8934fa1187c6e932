#!/usr/bin/env bash
# Failover time of two landlord peers on one PostgreSQL store (issue #14): server A is killed
# (-9) while new clients keep arriving; how long until server B answers
#   - a NEW client of A's hash buckets (B answers it at once when the database shows A's session
#     gone, else once its DISCOVER's secs reaches peers.answer-all-after, here 1s): kill -> B's
#     first ACK to such a client;
#   - A's EXISTING clients (they renew with A at T1, unanswered, and rebind at T2 to B):
#     kill -> B's first and last rebind ACK of them, with 10 s leases (T2 at 8.75 s).
# Namespaces like tests/integration/lab_postgres_failover.sh (198.18.0.0/24 only), a throwaway
# PostgreSQL on a UNIX socket; holds /tmp/landlord-netns.lock. Root. Then, side by side, the
# same measurement of two Kea 2.2 servers with Kea's HA hook in load-balancing mode
# (bench/failover_kea.sh, ~3.5 min more; BENCH_KEA_HA=0 skips it).
#   bench/failover.sh [BUILD_DIR]      (default build/release; KEEP_WORK=1 keeps the logs in /tmp)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
landlord=$build/tools/landlord/landlord
sim=$build/tools/landlord-sim/landlord-sim
[[ -x $landlord && -x $sim ]] || { echo "no landlord or landlord-sim in $build" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "bench/failover.sh: network namespaces need root" >&2; exit 1; }

exec 9>/tmp/landlord-netns.lock
flock 9
work=$(mktemp -d /tmp/bench-failover.XXXXXX)
chmod 755 "$work"
pgdir=/tmp/llpg-failover-$$
prefix="llfo$$"
pid_a="" pid_b="" sim_pid=""
cleanup() {
  local pid
  for pid in $sim_pid $pid_a $pid_b; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  for side in a b c w; do ip netns del "$prefix$side" 2>/dev/null || true; done
  "$repo/tests/support/postgres_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true
  [[ -n ${KEEP_WORK:-} ]] || rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "${prefix}w"
ip -n "${prefix}w" link add br0 type bridge
ip -n "${prefix}w" link set br0 up
for side in a b c; do
  ns="$prefix$side" inner=ll-srv0
  [[ $side == c ]] && inner=ll-cli0
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip -n "${prefix}w" link add "p$side" type veth peer name "$inner" netns "$ns"
  ip -n "${prefix}w" link set "p$side" master br0 up
  ip -n "$ns" link set "$inner" up
done
ip -n "${prefix}a" addr add 198.18.0.1/24 dev ll-srv0
ip -n "${prefix}b" addr add 198.18.0.2/24 dev ll-srv0
"$repo/tests/support/postgres_cluster.sh" start "$pgdir"
for side in a b; do
  id=198.18.0.1
  [[ $side == b ]] && id=198.18.0.2
  cat >"$work/$side.yaml" <<YAML
server: {interfaces: [ll-srv0], server-id: $id}
store: {type: postgresql, url: "postgresql:///landlord?host=$pgdir&user=landlord", sync-interval: 100ms}
peers: {servers: [198.18.0.1, 198.18.0.2], answer-all-after: 1s}
lease: {time: 10s, renew: 50%, rebind: 87.5%, offer-hold: 3s}
subnets: [{subnet: 198.18.0.0/24, interfaces: [ll-srv0], pools: [198.18.0.10-198.18.0.250]}]
log: {level: debug}
YAML
  ip netns exec "$prefix$side" "$landlord" --allow-root -c "$work/$side.yaml" >"$work/$side.log" 2>&1 &
  if [[ $side == a ]]; then pid_a=$!; else pid_b=$!; fi
done
for _ in $(seq 100); do
  ip netns exec "${prefix}a" ss -Huln "sport = :67" | grep -q . &&
    ip netns exec "${prefix}b" ss -Huln "sport = :67" | grep -q . && break
  sleep 0.2
done

# 8 new clients a second for 30 s; A is killed at 12 s.
ip netns exec "${prefix}c" timeout 70 "$sim" --interface ll-cli0 --clients 240 --rate 8 \
  --duration 30s --seed 31 --retransmit-base 1s --renew-min 1s --report "$work/sim.json" \
  >"$work/sim.log" 2>&1 &
sim_pid=$!
sleep 12
kill -KILL "$pid_a"
killed_ms=$(date +%s%3N)
wait "$pid_a" 2>/dev/null || true
pid_a=""
wait "$sim_pid" || true
sim_pid=""

# "2026-12-02T01:16:19.123+0000 info grant 198.18.0.10 client 02:..:.. id ...": ms since the epoch.
to_ms() { date -d "$1" +%s%3N; }
# Clients of A's buckets: those B left to its peer, and those it offered to for A once the store
# said A was down (debug lines), by MAC.
grep -aE "peer's hash buckets|offered for its peer, which is down" "$work/b.log" | awk '{print $6}' |
  sort -u >"$work/a-bucket-macs.txt"
# A's clients when it died: the addresses it ACKed.
grep -aoE " info (grant|renew|rebind) 198\.18\.0\.[0-9]+" "$work/a.log" | awk '{print $3}' | sort -u >"$work/held-by-a.txt"
first_new="" first_rebind="" last_rebind="" taken_over=0
while read -r stamp _level kind address _client mac _; do
  ms=$(to_ms "$stamp")
  ((ms > killed_ms)) || continue
  if [[ $kind == grant && -z $first_new ]] && grep -qx "$mac" "$work/a-bucket-macs.txt"; then
    first_new=$((ms - killed_ms))
  elif [[ $kind == rebind ]] && grep -qx "$address" "$work/held-by-a.txt"; then
    [[ -z $first_rebind ]] && first_rebind=$((ms - killed_ms))
    last_rebind=$((ms - killed_ms))
    taken_over=$((taken_over + 1))
  fi
done < <(grep -aE "^[0-9T:.+-]+ info (grant|rebind) " "$work/b.log")
echo "bench/failover.sh: $(basename "$build") build, 2 peers, 10 s leases, answer-all-after 1s, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "kill -9 A -> B's first ACK to a new client of A's buckets: ${first_new:-none} ms"
echo "kill -9 A -> B's first / last rebind ACK of A's $(wc -l <"$work/held-by-a.txt") clients: ${first_rebind:-none} / ${last_rebind:-none} ms ($taken_over rebinds ACKed)"
jq -r '"clients: \(.clients), leases \(.leases_acquired), NAKs \(.naks), expirations \(.expirations), violations \(.violation_count)"' "$work/sim.json"

# Side by side: Kea 2.2's HA hook in load-balancing mode, same lab shape, same clients
# (bench/failover_kea.sh; BENCH_KEA_HA=0 leaves it out). The lock is still ours.
if [[ ${BENCH_KEA_HA:-1} == 1 ]]; then
  cleanup
  trap - EXIT INT TERM
  BENCH_NETNS_LOCKED=1 "$repo/bench/failover_kea.sh" "$build"
fi
