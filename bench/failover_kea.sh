#!/usr/bin/env bash
# Failover time of two Kea 2.2 servers with Kea's High Availability hook (libdhcp_ha.so) in
# load-balancing mode (issue #14), in the lab shape of bench/failover.sh: server A is killed
# (-9) while new clients keep arriving; how long until server B
#   - answers a NEW client of A's scope (an address of A's pool, never A's before), and
#   - ACKs A's EXISTING clients again (an address A had allocated: their rebinds at T2, or, once
#     their 10 s leases ran out, their new DISCOVERs),
# and when B's HA state machine went to partner-down. Kea's HA peers talk HTTP to each other
# (HA+MT: the hook's own listener on port 8001, no kea-ctrl-agent); each server has its own
# memfile lease file, kept in step by the hook's lease updates; the pool is split in two, one
# half per server (client classes HA_server1 / HA_server2, as Kea's documentation does it).
# Each run of KEA_HA_RUNS (default "tuned defaults"):
#   tuned:    heartbeat-delay 1 s, max-response-delay 2 s, max-ack-delay 1 s,
#             max-unacked-clients 0 (partner-down as soon as the partner stops answering), 45 s
#   defaults: Kea's defaults (10 s, 60 s, 10 s, 10; delayed-updates-limit 100), 120 s
# 8 new clients a second, 200 of them (not bench/failover.sh's 240: each Kea server allocates
# only from its half of the 241 addresses, and A's scope, served by B alone after the kill, would
# run out), 10 s leases (T1 5 s, T2 8.75 s), A killed at 12 s.
# Namespaces (198.18.0.0/24 only); takes /tmp/landlord-netns.lock unless BENCH_NETNS_LOCKED=1
# (bench/failover.sh holds it and calls this script). Root.
#   bench/failover_kea.sh [BUILD_DIR]      (default build/release; its landlord-sim)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-$repo/build/release}
sim=$build/tools/landlord-sim/landlord-sim
kea=${KEA_DHCP4:-/usr/sbin/kea-dhcp4}
hooks=${KEA_HOOKS_DIR:-/usr/lib/x86_64-linux-gnu/kea/hooks}
[[ -x $sim ]] || { echo "no landlord-sim in $build" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "bench/failover_kea.sh: network namespaces need root" >&2; exit 1; }
if [[ ! -x $kea || ! -f $hooks/libdhcp_ha.so || ! -f $hooks/libdhcp_lease_cmds.so ]]; then
  echo "kea 2.2 HA                    not measured: needs $kea and $hooks/libdhcp_ha.so, libdhcp_lease_cmds.so (kea-dhcp4-server)"
  exit 0
fi

if [[ ${BENCH_NETNS_LOCKED:-0} != 1 ]]; then
  exec 9>/tmp/landlord-netns.lock
  flock 9
fi
work=$(mktemp -d /tmp/bench-failover-kea.XXXXXX)
chmod 755 "$work"
prefix="llkh$$"
pid_a="" pid_b="" sim_pid=""
stop_all() {
  local pid
  for pid in $sim_pid $pid_a $pid_b; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  sim_pid="" pid_a="" pid_b=""
  for side in a b c w; do ip netns del "$prefix$side" 2>/dev/null || true; done
}
cleanup() {
  stop_all
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

lab() {
  ip netns add "${prefix}w"
  ip -n "${prefix}w" link add br0 type bridge
  ip -n "${prefix}w" link set br0 up
  for side in a b c; do
    local ns="$prefix$side" inner=ll-srv0
    [[ $side == c ]] && inner=ll-cli0
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "${prefix}w" link add "p$side" type veth peer name "$inner" netns "$ns"
    ip -n "${prefix}w" link set "p$side" master br0 up
    ip -n "$ns" link set "$inner" up
  done
  ip -n "${prefix}a" addr add 198.18.0.1/24 dev ll-srv0
  ip -n "${prefix}b" addr add 198.18.0.2/24 dev ll-srv0
}

# kea_config NAME ADDRESS DIR TIMERS_JSON
kea_config() {
  cat <<JSON
{
  "Dhcp4": {
    "interfaces-config": { "interfaces": [ "ll-srv0" ], "dhcp-socket-type": "raw" },
    "lease-database": { "type": "memfile", "persist": true, "name": "$3/leases.csv", "lfc-interval": 0 },
    "multi-threading": { "enable-multi-threading": true, "thread-pool-size": 2, "packet-queue-size": 64 },
    "valid-lifetime": 10,
    "calculate-tee-times": true,
    "t1-percent": 0.5,
    "t2-percent": 0.875,
    "authoritative": true,
    "hooks-libraries": [
      { "library": "$hooks/libdhcp_lease_cmds.so", "parameters": { } },
      { "library": "$hooks/libdhcp_ha.so", "parameters": { "high-availability": [ {
          "this-server-name": "$1",
          "mode": "load-balancing",
          $4
          "multi-threading": { "enable-multi-threading": true, "http-dedicated-listener": true,
                               "http-listener-threads": 1, "http-client-threads": 1 },
          "peers": [
            { "name": "server1", "url": "http://198.18.0.1:8001/", "role": "primary", "auto-failover": true },
            { "name": "server2", "url": "http://198.18.0.2:8001/", "role": "secondary", "auto-failover": true }
          ] } ] } }
    ],
    "subnet4": [ {
      "id": 1,
      "subnet": "198.18.0.0/24",
      "pools": [
        { "pool": "198.18.0.10 - 198.18.0.129", "client-class": "HA_server1" },
        { "pool": "198.18.0.130 - 198.18.0.250", "client-class": "HA_server2" }
      ],
      "option-data": [ { "name": "routers", "data": "$2" } ]
    } ],
    "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                   "output_options": [ { "output": "$3/kea.log" } ] } ]
  }
}
JSON
}

to_ms() { date -d "$1" +%s%3N; }

# run NAME TIMERS_JSON SIM_SECONDS
run() {
  local name=$1 timers=$2 seconds=$3 side id address dir
  lab
  for side in a b; do
    dir=$work/$name-$side
    mkdir -p "$dir"
    id=server1 address=198.18.0.1
    [[ $side == b ]] && id=server2 address=198.18.0.2
    kea_config "$id" "$address" "$dir" "$timers" >"$dir/kea.json"
    KEA_PIDFILE_DIR=$dir KEA_LOCKFILE_DIR=$dir ip netns exec "$prefix$side" "$kea" -c "$dir/kea.json" \
      >"$dir/kea.out" 2>&1 &
    if [[ $side == a ]]; then pid_a=$!; else pid_b=$!; fi
  done
  # Both must be in the load-balancing state (they found each other and synchronised).
  local ready=0
  for _ in $(seq 150); do
    if grep -q "to LOAD-BALANCING state" "$work/$name-a/kea.log" 2>/dev/null &&
       grep -q "to LOAD-BALANCING state" "$work/$name-b/kea.log" 2>/dev/null; then ready=1; break; fi
    kill -0 "$pid_a" 2>/dev/null && kill -0 "$pid_b" 2>/dev/null || break
    sleep 0.2
  done
  if ((ready == 0)); then
    echo "kea 2.2 HA ($name): the two servers never reached the load-balancing state:"
    tail -n 5 "$work/$name-a/kea.out" "$work/$name-a/kea.log" "$work/$name-b/kea.log" 2>/dev/null
    KEEP_WORK=1
    stop_all
    return 1
  fi
  ip netns exec "${prefix}c" timeout $((seconds + 40)) "$sim" --interface ll-cli0 --clients 200 \
    --rate 8 --duration "${seconds}s" --seed 31 --retransmit-base 1s --renew-min 1s \
    --report "$work/$name-sim.json" >"$work/$name-sim.log" 2>&1 &
  sim_pid=$!
  sleep 12
  local lines_a
  lines_a=$(wc -l <"$work/$name-a/kea.log")
  kill -KILL "$pid_a"
  local killed_ms
  killed_ms=$(date +%s%3N)
  wait "$pid_a" 2>/dev/null || true
  pid_a=""
  wait "$sim_pid" || true
  sim_pid=""

  # "2026-12-02 11:31:00.123 INFO  [kea-dhcp4.leases/..] DHCP4_LEASE_ALLOC [hwtype=1 ..], cid=[..],
  # tid=0x..: lease 198.18.0.12 has been allocated for 10 seconds"
  head -n "$lines_a" "$work/$name-a/kea.log" | grep -a DHCP4_LEASE_ALLOC |
    grep -oE 'lease 198\.18\.0\.[0-9]+ has been allocated' | awk '{print $2}' | sort -u >"$work/$name-held-by-a.txt"
  # Each address A had leased: B's first ACK of it after the kill (the client taken over); any
  # other address of A's pool: a new client of A's scope. One awk pass (a fork per log line
  # took minutes on a loaded box, holding the lock).
  local first_new="" first_old="" last_old="" old=0 partner_down="" ms
  read -r first_new first_old last_old old < <(
    grep -a DHCP4_LEASE_ALLOC "$work/$name-b/kea.log" |
      mawk -v killed="$killed_ms" -v held="$work/$name-held-by-a.txt" '
        BEGIN { while ((getline a < held) > 0) was_a[a] = 1; new = "none"; first = "none"; last = "none"; n = 0 }
        {
          split($1, d, "-"); split($2, t, ":")
          ms = (mktime(d[1] " " d[2] " " d[3] " " t[1] " " t[2] " 0") + t[3]) * 1000 - killed
          if (ms <= 0 || !match($0, /lease 198\.18\.0\.[0-9]+ has/)) next
          address = substr($0, RSTART + 6, RLENGTH - 10)
          split(address, o, "."); if (o[4] < 10 || o[4] > 129) next
          if (address in was_a) {
            if (address in taken) next
            taken[address] = 1; n++
            if (first == "none") first = int(ms)
            last = int(ms)
          } else if (new == "none") new = int(ms)
        }
        END { print new, first, last, n }')
  [[ $first_new == none ]] && first_new=""
  [[ $first_old == none ]] && first_old=""
  [[ $last_old == none ]] && last_old=""
  local line
  line=$(grep -a "to PARTNER-DOWN state" "$work/$name-b/kea.log" | head -n 1 || true)
  [[ -n $line ]] && partner_down=$(($(to_ms "$(cut -d' ' -f1-2 <<<"$line")") - killed_ms))
  local shown
  shown=$(tr -s ' \n' ' ' <<<"$timers" | sed 's/"//g; s/, *$//; s/^ *//; s/ *$//')
  echo "kea 2.2 HA load-balancing, $name (${shown:-the defaults: heartbeat-delay 10000, max-response-delay 60000, max-ack-delay 10000, max-unacked-clients 10})"
  echo "  kill -9 A -> B in partner-down: ${partner_down:-never} ms"
  echo "  kill -9 A -> B's first ACK to a new client of A's scope: ${first_new:-none} ms"
  echo "  kill -9 A -> B's first ACK of each address A had leased: first / last ${first_old:-none} / ${last_old:-none} ms ($old of $(wc -l <"$work/$name-held-by-a.txt") addresses)"
  jq -r '"  clients: \(.clients), leases \(.leases_acquired), NAKs \(.naks), expirations \(.expirations), violations \(.violation_count)"' "$work/$name-sim.json"
  stop_all
}

echo "bench/failover_kea.sh: Kea $("$kea" -v 2>/dev/null | head -n 1), 2 servers, 10 s leases, load $(cut -d' ' -f1-3 /proc/loadavg)"
for which in ${KEA_HA_RUNS:-tuned defaults}; do
  case $which in
    tuned)
      run tuned '"heartbeat-delay": 1000, "max-response-delay": 2000, "max-ack-delay": 1000, "max-unacked-clients": 0,' 45 || true ;;
    defaults)
      run defaults '' 120 || true ;;
    *) echo "unknown KEA_HA_RUNS entry $which" >&2 ;;
  esac
done
