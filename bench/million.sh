# Sourced by bench/run: issue #6's two figures at 1,000,000 leases, which the veth lab cannot
# show (its 198.18.0.0/15 holds 131k addresses): RSS per lease and exec-to-first-OFFER.
#
# The leases are data only: a store file with 1 M bound rows in 10.0.0.0/12, written by the
# sqlite3 shell into the schema landlord itself created (for Kea: the same leases as memfile
# CSV). The server runs in a namespace of its own with nothing but loopback (198.18.0.1/32
# added to lo; no other interface, no route), so no packet can leave it whatever the data
# says. It serves relayed traffic only (landlord: server.interfaces: []); the probe is
# landlord-sim in relay mode on lo, giaddr 198.18.0.1, which selects the small subnet
# 198.18.0.0/24.
#
# Each start: exec the server, wait for its UDP port 67 (landlord binds it before it opens the
# store, and a DISCOVER that arrives while it loads waits in the socket), start one relayed
# client, and read the time of the first OFFER from the simulator's pcap (wall-clock stamps).
# The same procedure on an empty store with the same config gives the baseline RSS.

million_leases=${BENCH_MILLION_LEASES:-1000000}
million_starts=3
million_ns="llm$$"
million_addr=198.18.0.1
million_lease_time_ms=2592000000  # 30 days: nothing expires during the run
million_wait_s=30                 # per start: port, first OFFER; polled every 10 ms
million_kea_wait_s=120
million_dir=""
# BENCH_BUILD_DIR picks another build of landlord and landlord-sim (default build/release).
million_build_dir=${BENCH_BUILD_DIR:-$repo_dir/build/release}
million_landlord_bin=$million_build_dir/tools/landlord/landlord
million_sim_bin=$million_build_dir/tools/landlord-sim/landlord-sim

million_report_rows=(
  "million_restart_ms|1M leases: ms from exec to first OFFER (median)|< 1000|l < 1000"
  "million_probe_ms|  1M: ms from exec to the probe's DISCOVER||"
  "million_start_cpu_ms|  1M: server CPU ms from exec to first OFFER||"
  "million_rss_per_lease_b|1M leases: RSS bytes per lease (vs empty store)|<= 150|l <= 150"
  "million_rss_kib|  1M: VmRSS KiB after the first OFFER||"
  "million_rss_anon_kib|  1M: anonymous RSS KiB (heap, SQLite cache)||"
  "million_rss_base_kib|  empty store, same config: VmRSS KiB||"
  "million_empty_start_ms|  empty store: ms from exec to first OFFER||"
  "million_store_mib|  1M: store file MiB|||count"
)

million_up() {
  million_dir=$lab_dir/million
  mkdir -p "$million_dir"
  million_down
  ip netns add "$million_ns"
  ip -n "$million_ns" link set lo up
  ip -n "$million_ns" addr add "$million_addr/32" dev lo
  lab_log "million: namespace $million_ns (loopback only, $million_addr/32 on lo), scratch $million_dir"
}

million_down() { ip netns del "$million_ns" 2>/dev/null || true; }

# million_config STORE: 10.0.0.0/12 (1,048,574 pool addresses) holds the stored leases; the
# relayed probe's giaddr selects 198.18.0.0/24.
million_config() {
  cat <<EOF
server:
  interfaces: []
  listen: 0.0.0.0:67
  server-id: $million_addr
store:
  type: sqlite
  path: $1
lease:
  time: 3600s
  renew: 50%
  rebind: 87.5%
subnets:
  - subnet: 10.0.0.0/12
    pools: [10.0.0.1-10.15.255.254]
  - subnet: 198.18.0.0/24
    pools: [198.18.0.10-198.18.0.250]
log:
  level: info
EOF
}

# million_fill FILE COUNT: replaces the rows of FILE (a store landlord created) with COUNT
# bound leases as landlord writes them: address 10.x.y.z, MAC 02:10:00:x:y:z, no client id
# or hostname (like perfdhcp's clients), client_key hw1:<mac>, token 1, subnet 1, granted now.
million_fill() {
  local file=$1 count=$2 now_ms lease_ms=$million_lease_time_ms
  now_ms=$(($(date +%s%N) / 1000000))
  sqlite3 "$file" >/dev/null <<EOF
PRAGMA synchronous = OFF;
DELETE FROM leases;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count),
rows AS (SELECT printf('10.%d.%d.%d', i >> 16, (i >> 8) & 255, i & 255) AS address,
                printf('02:10:00:%02x:%02x:%02x', i >> 16, (i >> 8) & 255, i & 255) AS hwaddr
         FROM n)
INSERT INTO leases (address, state, hwaddr, client_id, hostname, fencing_token, subnet_id, hwtype,
                    granted_at_ms, lease_time_ms, renew_time_ms, rebind_time_ms, last_extension,
                    client_key)
SELECT address, 'bound', hwaddr, NULL, NULL, 1, 1, 1, $now_ms, $lease_ms, $((lease_ms / 2)),
       $((lease_ms * 7 / 8)), 'none', 'hw1:' || hwaddr
FROM rows ORDER BY address;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
EOF
}

# million_kea_config LEASE_FILE DIR: the same two subnets for Kea (UDP sockets on lo's
# 198.18.0.1: relayed traffic only), memfile as in kea/kea-dhcp4.json.
million_kea_config() {
  cat <<EOF
{
  "Dhcp4": {
    "interfaces-config": { "interfaces": [ "lo/$million_addr" ], "dhcp-socket-type": "udp" },
    "lease-database": { "type": "memfile", "persist": true, "name": "$1", "lfc-interval": 0 },
    "multi-threading": { "enable-multi-threading": false },
    "valid-lifetime": 3600,
    "calculate-tee-times": true,
    "authoritative": true,
    "subnet4": [
      { "id": 1, "subnet": "10.0.0.0/12", "pools": [ { "pool": "10.0.0.1 - 10.15.255.254" } ] },
      { "id": 2, "subnet": "198.18.0.0/24", "pools": [ { "pool": "198.18.0.10 - 198.18.0.250" } ] }
    ],
    "loggers": [ { "name": "kea-dhcp4", "severity": "INFO",
                   "output_options": [ { "output": "$2/kea.log" } ] } ]
  }
}
EOF
}

# million_fill_kea FILE COUNT: the same leases as million_fill, as Kea 2.2's memfile CSV.
million_fill_kea() {
  awk -v n="$2" -v now="$(date +%s)" -v lt=$((million_lease_time_ms / 1000)) 'BEGIN {
    print "address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context"
    for (i = 1; i <= n; i++) {
      a = int(i / 65536); b = int(i / 256) % 256; c = i % 256
      printf "10.%d.%d.%d,02:10:00:%02x:%02x:%02x,,%d,%d,1,0,0,,0,\n", a, b, c, a, b, c, lt, now + lt
    }
  }' >"$1"
}

# million_start NAME STORE TAG: one fresh start of NAME on STORE, probed until the first
# OFFER. Sets million_start_ms, million_probe_ms, million_cpu_ms, million_rss, million_anon
# (KiB); the server is stopped again.
million_start() {
  local name=$1 store=$2 tag=$1-$3 dir=$million_dir/$1-$3 wait_s=$million_wait_s granted
  mkdir -p "$dir"
  local t0_ns pid sim_pid i
  if [[ "$name" == kea ]]; then
    # Kea reads its whole lease file before it opens a socket: ~25 s for 1 M here.
    wait_s=$million_kea_wait_s
    granted=DHCP4_LEASE_ALLOC
    million_kea_config "$store" "$dir" >"$dir/kea-dhcp4.json"
    t0_ns=$(date +%s%N)
    KEA_PIDFILE_DIR=$dir KEA_LOCKFILE_DIR=$dir ip netns exec "$million_ns" nice -n "$lab_nice" \
      kea-dhcp4 -c "$dir/kea-dhcp4.json" >"$dir/server.log" 2>&1 &
  else
    granted=' grant '
    million_config "$store" >"$dir/landlord.yaml"
    t0_ns=$(date +%s%N)
    ip netns exec "$million_ns" nice -n "$lab_nice" "$million_landlord_bin" --allow-root --config "$dir/landlord.yaml" \
      >"$dir/server.log" 2>&1 &
  fi
  pid=$!
  lab_pids+=("$pid")
  # The server's own view of its namespace's UDP sockets (port 67 = 0043): no `ss -p` (it
  # reads every process's descriptors) and no `ip netns exec` per poll, both of which have
  # taken up to a second on this busy box.
  port_bound() { grep -qs ':0043 ' "/proc/$pid/net/udp"; }
  for ((i = 0; i < wait_s * 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    port_bound && break
    sleep 0.01
  done
  local port_ms=$((($(date +%s%N) - t0_ns) / 1000000))
  if ! port_bound; then
    lab_log "million $tag: $name did not open UDP port 67 within ${wait_s}s"
    tail -5 "$dir/server.log" >&2
    lab_stop "$pid"
    return 1
  fi
  timeout -k 2 $((wait_s + 5)) ip netns exec "$million_ns" "$million_sim_bin" \
    --server "$million_addr:67" --bind "$million_addr:6768" --clients 1 --rate 1 \
    --duration "${wait_s}s" --pcap "$dir/probe.pcap" --report "$dir/probe.json" \
    >"$dir/probe.txt" 2>&1 &
  sim_pid=$!
  lab_pids+=("$sim_pid")
  # The grant follows the OFFER and the REQUEST: by then the pcap holds the OFFER.
  for ((i = 0; i < wait_s * 100; i++)); do
    grep -qs -- "$granted" "$dir/server.log" "$dir/kea.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  million_rss=$(lab_rss_kib "$pid" 2>/dev/null || echo -)
  million_anon=$(awk '/^Anonymous:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo -)
  million_cpu_ms=$(($(lab_cpu_ticks "$pid" 2>/dev/null || echo 0) * 1000 / lab_clock_ticks_per_s))
  cp "/proc/$pid/smaps_rollup" "$dir/smaps_rollup.txt" 2>/dev/null || true
  lab_stop "$sim_pid"
  lab_stop "$pid"
  local offer_s discover_s
  offer_s=$(tcpdump -tt -n -r "$dir/probe.pcap" 'udp src port 67' 2>/dev/null | awk 'NR == 1 { print $1 }')
  discover_s=$(tcpdump -tt -n -r "$dir/probe.pcap" 'udp dst port 67' 2>/dev/null | awk 'NR == 1 { print $1 }')
  if [[ -z "$offer_s" ]]; then
    lab_log "million $tag: no OFFER within ${wait_s}s; log:"
    tail -5 "$dir/server.log" >&2
    return 1
  fi
  million_start_ms=$(awk -v o="$offer_s" -v t="$t0_ns" 'BEGIN { printf "%.0f", o * 1000 - t / 1e6 }')
  # When the DISCOVER left only after the server was ready (a small store; Kea, which opens
  # its socket only after loading), the figure includes the probe's own start: both are shown.
  million_probe_ms=$(awk -v d="${discover_s:-0}" -v t="$t0_ns" 'BEGIN { printf "%.0f", d * 1000 - t / 1e6 }')
  lab_log "million $tag: first OFFER ${million_start_ms} ms after exec (port 67 seen at ${port_ms} ms, DISCOVER sent at ${million_probe_ms} ms; server CPU ${million_cpu_ms} ms), VmRSS ${million_rss} KiB (anonymous ${million_anon})"
}

# million_measure NAME: the baseline on empty stores, then the 1 M-lease starts.
million_measure() {
  local name=$1 s store base_rss=() suffix=db
  [[ "$name" == kea ]] && suffix=csv
  if [[ ! -x "$million_sim_bin" || ("$name" == landlord && ! -x "$million_landlord_bin") ]]; then
    lab_log "million: needs $million_sim_bin (and for landlord $million_landlord_bin); build them or set BENCH_BUILD_DIR"
    return 1
  fi
  million_up
  # Baseline: empty stores, which the server creates (landlord's gets the schema the 1 M file
  # is written into).
  for ((s = 1; s <= million_starts; s++)); do
    store=$million_dir/$name-empty-$s.$suffix
    million_start "$name" "$store" "empty-$s" || return 1
    record "$name" million_rss_base_kib "$million_rss"
    record "$name" million_empty_start_ms "$million_start_ms"
    base_rss+=("$million_rss")
  done
  local template=$million_dir/$name-million.$suffix started_ns stored
  started_ns=$(date +%s%N)
  if [[ "$name" == kea ]]; then
    million_fill_kea "$template" "$million_leases" || return 1
    stored=$(($(wc -l <"$template") - 1))
  else
    cp "$million_dir/$name-empty-1.db" "$template"
    million_fill "$template" "$million_leases" || return 1
    stored=$(sqlite3 "$template" "SELECT count(*) FROM leases WHERE state = 'bound'")
  fi
  record "$name" million_store_mib "$(awk -v b="$(stat -c %s "$template")" 'BEGIN { printf "%.1f", b / 1048576 }')"
  lab_log "million: $name store of $stored leases written in $((($(date +%s%N) - started_ns) / 1000000)) ms, $(stat -c %s "$template") bytes"
  local base
  base=$(printf '%s\n' "${base_rss[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  for ((s = 1; s <= million_starts; s++)); do
    # A fresh copy each time, so every start reads the same file (the probe adds a lease).
    store=$million_dir/$name-run-$s.$suffix
    cp "$template" "$store"
    sync "$store"  # its writeback would otherwise compete with the start
    million_start "$name" "$store" "1M-$s" || return 1
    rm -f "$store" "$store"-* "$store".*
    record "$name" million_restart_ms "$million_start_ms"
    record "$name" million_probe_ms "$million_probe_ms"
    record "$name" million_start_cpu_ms "$million_cpu_ms"
    record "$name" million_rss_kib "$million_rss"
    record "$name" million_rss_anon_kib "$million_anon"
    record "$name" million_rss_per_lease_b "$(awk -v a="$base" -v b="$million_rss" -v n="$stored" \
      'BEGIN { printf "%.1f", (b - a) * 1024 / n }')"
  done
  local binary=$million_landlord_bin
  [[ "$name" == kea ]] && binary="kea-dhcp4 $(kea-dhcp4 -v 2>/dev/null), memfile"
  report_notes+=("1M leases, $name: $binary; $stored bound leases in 10.0.0.0/12 (MAC, no client id, no hostname), the store file in the page cache (a copy made just before each start); probe: landlord-sim relay on lo, first OFFER from its pcap")
  million_down
}
