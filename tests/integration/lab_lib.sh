# Helpers for the real-client lab tests (sourced). A test script runs twice: first on the host
# (`main`: checks prerequisites, writes the config, starts tools/lab), then inside the lab
# (`inside`), where tools/lab has set LAB_DIR, LAB_NS_*, LAB_STORE, LAB_SERVER_LOG.
# Clients run in the background with their own lease, pid and script files under LAB_DIR and
# are ended by PID; tools/lab removes anything left in its namespaces.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/tests/integration/daemon_checks.sh"

skip() { echo "SKIP: $*"; exit 77; }
fail() {
  echo "FAIL: $*"
  if [[ -n "${LAB_SERVER_LOG:-}" && -f "$LAB_SERVER_LOG" ]]; then
    echo "---- landlord log (last 60 lines)"; tail -n 60 "$LAB_SERVER_LOG"
  fi
  for log in "${LAB_DIR:-/nonexistent}"/*.client.log; do
    [[ -f "$log" ]] && { echo "---- $log"; tail -n 25 "$log"; }
  done
  exit 1
}
note() { echo "[$(date +%T)] $*"; }

# Host side: skip unless root with network namespaces and the clients installed; then run this
# script again inside a fresh lab. Usage: lab_main LANDLORD CONFIG_TEXT [tools/lab options...]
lab_main() {
  local landlord="$1" config_text="$2"
  shift 2
  [[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
  local probe="llprobe$$"
  ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces"
  ip netns del "$probe"
  local tool
  for tool in dhclient dhcpcd udhcpc dhcrelay tcpdump sqlite3; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (tools/install-deps)"
  done
  local config
  config="$(mktemp /tmp/landlord-test-config.XXXXXX.yaml)"
  printf '%s\n' "$config_text" >"$config"
  local status=0
  timeout --signal=INT 170 "$repo/tools/lab" --config "$config" --landlord "$landlord" "$@" \
    run bash "$(realpath "${BASH_SOURCE[1]}")" inside || status=$?
  rm -f "$config"
  exit "$status"
}

# The config every lab test starts from: short leases so T1, T2 and expiry happen in seconds.
# LEASE_TIME, POOL and EXTRA_SUBNET_KEYS can be set before calling.
lab_config() {
  cat <<EOF
server:
  interfaces: [ll-srv0]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
store:
  type: sqlite
  path: /tmp/landlord-test-placeholder.db
lease:
  time: ${LEASE_TIME:-20s}
  renew: 50%
  rebind: 87.5%
  offer-hold: 5s
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [ll-srv0]
    pools: [${POOL:-198.18.0.100-198.18.0.199}]
    options: {routers: [198.18.0.1]}
${EXTRA_SUBNET_KEYS:-}
  - subnet: 198.18.2.0/24
    pools: [198.18.2.100-198.18.2.199]
    relays: [198.18.1.2]
    options: {routers: [198.18.2.1]}
log:
  level: debug
EOF
}

# ---- clients: NAME is a file prefix under LAB_DIR; NS the namespace; the link is ll-cli0 ----
# Each client's script appends "EVENT ADDRESS" lines to $LAB_DIR/NAME.events and configures
# the address in its namespace.

start_dhclient() {  # NAME NS [IFACE]
  local name="$1" ns="$2" iface="${3:-ll-cli0}" dir="$LAB_DIR"
  cat >"$dir/$name.script" <<EOF
#!/bin/sh
echo "\$reason \${new_ip_address:-\$old_ip_address}" >> "$dir/$name.events"
case "\$reason" in
  BOUND|RENEW|REBIND|REBOOT) ip addr replace "\$new_ip_address/\$new_subnet_mask" dev "\$interface" ;;
  EXPIRE|FAIL|RELEASE|STOP) ip addr flush dev "\$interface" ;;
esac
${DHCLIENT_SCRIPT_EXTRA:-}
exit 0
EOF
  chmod +x "$dir/$name.script"
  # dhclient's default first retransmission (initial-interval 10 s) would jump straight over
  # the few seconds between T2 and expiry of the tests' short leases.
  # DHCLIENT_CONF_EXTRA: more dhclient.conf lines (e.g. 'send dhcp-lease-time 30;');
  # DHCLIENT_SCRIPT_EXTRA: more lines for its script (e.g. a distribution's exit hook).
  printf 'request subnet-mask, broadcast-address, routers;\ninitial-interval 1;\nbackoff-cutoff 2;\n%s\n' \
    "${DHCLIENT_CONF_EXTRA:-}" >"$dir/$name.conf"
  ip netns exec "$ns" dhclient -4 -d -v -cf "$dir/$name.conf" -lf "$dir/$name.leases" \
    -pf "$dir/$name.pid" -sf "$dir/$name.script" "$iface" >"$dir/$name.client.log" 2>&1 &
  echo $! >"$dir/$name.clientpid"
}

release_dhclient() {  # NAME NS [IFACE]: dhclient -r sends a RELEASE and stops the client
  local name="$1" ns="$2" iface="${3:-ll-cli0}" dir="$LAB_DIR"
  timeout 20 ip netns exec "$ns" dhclient -4 -r -v -cf "$dir/$name.conf" -lf "$dir/$name.leases" \
    -pf "$dir/$name.pid" -sf "$dir/$name.script" "$iface" >>"$dir/$name.client.log" 2>&1
}

start_udhcpc() {  # NAME NS [IFACE]
  local name="$1" ns="$2" iface="${3:-ll-cli0}" dir="$LAB_DIR"
  cat >"$dir/$name.script" <<EOF
#!/bin/sh
echo "\$1 \$ip" >> "$dir/$name.events"
case "\$1" in
  bound|renew) ip addr replace "\$ip/\$mask" dev "\$interface" ;;
  deconfig) ip addr flush dev "\$interface" ;;
esac
exit 0
EOF
  chmod +x "$dir/$name.script"
  # UDHCPC_ARGS: more udhcpc arguments (e.g. -a to ARP-check the address before taking it);
  # UDHCPC_HOSTNAME: the hostname it sends (option 12), else NAME.
  # shellcheck disable=SC2086
  ip netns exec "$ns" udhcpc -f -i "$iface" -s "$dir/$name.script" -t 6 -T 2 -A 2 \
    -x hostname:"${UDHCPC_HOSTNAME:-$name}" ${UDHCPC_ARGS:-} >"$dir/$name.client.log" 2>&1 &
  echo $! >"$dir/$name.clientpid"
}

start_dhcpcd() {  # NAME NS [IFACE]
  local name="$1" ns="$2" iface="${3:-ll-cli0}" dir="$LAB_DIR"
  cat >"$dir/$name.script" <<EOF
#!/bin/sh
echo "\$reason \${new_ip_address:-\$old_ip_address}" >> "$dir/$name.events"
exit 0
EOF
  chmod +x "$dir/$name.script"
  # dhcpcd keeps its pid, socket and lease files in fixed host paths: give this one a private
  # mount namespace with empty /run/dhcpcd and /var/lib/dhcpcd so parallel labs never share them.
  ip netns exec "$ns" unshare --mount --propagation private sh -c "
    mkdir -p '$dir/$name.run' '$dir/$name.db'
    mount --bind '$dir/$name.run' /run && mkdir -p /run/dhcpcd
    mount --bind '$dir/$name.db' /var/lib/dhcpcd 2>/dev/null || true
    exec dhcpcd -4 --nobackground --debug --noipv4ll --noarp --nogateway --nohook resolv.conf \
      --script '$dir/$name.script' --config /dev/null --option subnet_mask,routers \
      --timeout 30 '$iface'" >"$dir/$name.client.log" 2>&1 &
  echo $! >"$dir/$name.clientpid"
}

stop_client() {  # NAME: ends the client we started, by its PID
  local pid
  pid="$(cat "$LAB_DIR/$1.clientpid" 2>/dev/null || true)"
  [[ -n "$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

vanish_client() {  # NAME: the client disappears without a word (no RELEASE)
  local pid
  pid="$(cat "$LAB_DIR/$1.clientpid" 2>/dev/null || true)"
  [[ -n "$pid" ]] && { pkill -KILL -P "$pid" 2>/dev/null || true; kill -KILL "$pid" 2>/dev/null || true; }
  return 0
}

# ---- waiting and asserting ----

wait_until() {  # SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.2 s
  local limit="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for: $what"
    sleep 0.2
  done
}

client_address() {  # NS [IFACE]: the IPv4 address configured on the client's link, if any
  ip -n "$1" -4 -o addr show dev "${2:-ll-cli0}" 2>/dev/null | awk '{split($4, a, "/"); print a[1]; exit}'
}

has_address() { [[ -n "$(client_address "$@")" ]]; }

log_has() { grep -qE "$1" "$LAB_SERVER_LOG"; }

# One lease row as "state|hwaddr|last_extension|subnet_id" (the schema in src/store/sqlite_schema.cpp).
lease_row() {
  sqlite3 -cmd ".timeout 2000" "$LAB_STORE" \
    "select state, hwaddr, last_extension, subnet_id from leases where address = '$1'" 2>/dev/null
}

lease_state_is() {  # ADDRESS STATE [EXTENSION]
  local row
  row="$(lease_row "$1")"
  [[ "$row" == "$2|"* ]] || return 1
  [[ -z "${3:-}" ]] || [[ "$(cut -d'|' -f3 <<<"$row")" == "$3" ]]
}

link_mac() { ip -n "$1" link show dev "${2:-ll-cli0}" | awk '/link\/ether/ {print $2}'; }

# A capture of DHCP (and ARP) in the server namespace, written to $LAB_DIR/NAME.pcap.
start_capture() {  # NAME INTERFACE
  ip netns exec "$LAB_NS_SERVER" tcpdump -i "$2" -n -U --immediate-mode -w "$LAB_DIR/$1.pcap" \
    'arp or (udp and (port 67 or port 68))' >"$LAB_DIR/$1.tcpdump.log" 2>&1 &
  echo $! >"$LAB_DIR/$1.capturepid"
  wait_until 5 "tcpdump listening on $2" grep -q "listening on" "$LAB_DIR/$1.tcpdump.log"
}

stop_capture() {  # NAME: tcpdump writes out what it holds and exits on SIGINT; wait for that
  local pid
  pid="$(cat "$LAB_DIR/$1.capturepid")"
  kill -INT "$pid" 2>/dev/null || true
  daemon_wait_exit "$pid" 5 || fail "tcpdump ($1) did not stop within 5 s of SIGINT"
}

read_capture() {  # NAME [tcpdump filter]: the captured packets, verbose
  tcpdump -n -v -r "$LAB_DIR/$1.pcap" "${@:2}" 2>/dev/null
}

# The capture NAME decoded from its bytes by dhcp_frames (one line per DHCP or ARP frame, see
# dhcp_frames.cpp), in $LAB_DIR/NAME.frames; the test fails if it cannot be read.
capture_frames() {  # NAME
  [[ -x ${DHCP_FRAMES:-} ]] || fail "DHCP_FRAMES does not name the dhcp_frames tool"
  "$DHCP_FRAMES" "$LAB_DIR/$1.pcap" >"$LAB_DIR/$1.frames" || fail "dhcp_frames cannot read $1.pcap"
}
