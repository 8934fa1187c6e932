# Sourced: one landlord asked only on its control socket, for whole-table commands over
# many leases (control_wipe_large.sh, control_reclaim_large.sh, bench/api_million.sh). It runs
# in a network namespace of its own with nothing but loopback (198.18.0.1/32 on lo, relayed
# traffic only), so no packet can leave it whatever its lease data says. Subnet 1 is
# 10.0.0.0/12 (for rows written by bench/million.sh's million_fill), subnet 2 198.18.0.0/24;
# SQLite store in the work dir.
#   control_lab_require        exit 77 (skip) unless root with curl, jq, sqlite3 and ip
#   control_lab_up NS WORK     creates namespace NS and WORK/landlord.yaml (store WORK/leases.db,
#                              socket WORK/control.sock); the caller's trap calls control_lab_down
#   control_ask JSON [SECONDS] POSTs JSON to the control socket (default 120 s), prints the answer
#   control_start LANDLORD     starts it (log WORK/landlord.log, appended), waits until status-get
#                              answers, sets control_pid; prints the log and fails if it does not
#   control_stop               SIGTERM, reaps it
#   control_fill LANDLORD N    the store holds N bound leases (million_fill's rows in the schema a
#                              first run of LANDLORD created); landlord is stopped after
#   control_store_holds STATE N  the store file holds subnet 1's leases as N in STATE, no other;
#                              says what it holds and returns 1 otherwise
#   control_check_end          the log has no refused or failed commit and the daemon stops
#                              cleanly; says why and returns 1 otherwise
#   control_fail_report OUT    prints the tails of the daemon's log and of a client's output OUT
#   control_lab_down           kills a running server, deletes the namespace (the caller removes WORK)
source "$(dirname "${BASH_SOURCE[0]}")/daemon_checks.sh"
repo_dir=${repo_dir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
source "$repo_dir/bench/million.sh"  # million_fill
control_ns="" control_work="" control_pid=""

control_lab_require() {
  if ((EUID != 0)); then echo "SKIP: needs root (network namespace)"; exit 77; fi
  local tool
  for tool in curl jq sqlite3 ip; do
    command -v $tool >/dev/null || { echo "SKIP: needs $tool"; exit 77; }
  done
}

control_lab_up() {
  control_ns=$1 control_work=$2
  ip netns add "$control_ns"
  ip -n "$control_ns" link set lo up
  ip -n "$control_ns" addr add 198.18.0.1/32 dev lo
  cat >"$control_work/landlord.yaml" <<YAML
server:
  interfaces: []
  listen: 198.18.0.1:67
  server-id: 198.18.0.1
store:
  type: sqlite
  path: $control_work/leases.db
lease:
  time: 3600s
control:
  socket: $control_work/control.sock
subnets:
  - subnet: 10.0.0.0/12
    pools: [10.0.0.1-10.15.255.254]
  - subnet: 198.18.0.0/24
    pools: [198.18.0.10-198.18.0.250]
log:
  level: warn
YAML
}

control_ask() {
  curl -sS --max-time "${2:-120}" --unix-socket "$control_work/control.sock" -d "$1" http://landlord/
}

control_start() {
  rm -f "$control_work/control.sock"
  ip netns exec "$control_ns" "$1" --allow-root -c "$control_work/landlord.yaml" \
    >>"$control_work/landlord.log" 2>&1 &
  control_pid=$!
  for _ in $(seq 600); do
    [[ -S $control_work/control.sock ]] && control_ask '{"command":"status-get"}' >/dev/null 2>&1 && return 0
    kill -0 "$control_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$control_work/landlord.log"
  echo "FAIL: landlord did not start serving its control socket in 60 s" >&2
  return 1
}

control_stop() {
  [[ -n $control_pid ]] || return 0
  kill "$control_pid" 2>/dev/null || true
  wait "$control_pid" 2>/dev/null || true
  control_pid=""
}

control_fill() {
  control_start "$1" || exit 1  # creates the schema
  daemon_stop_and_check "$control_pid" "$control_work/landlord.log" landlord || exit 1
  control_pid=""
  million_fill "$control_work/leases.db" "$2"  # bound leases 10.x.y.z for MAC 02:10:00:x:y:z
}

control_store_holds() {
  local held
  held=$(sqlite3 "$control_work/leases.db" "SELECT state || ' ' || count(*) FROM leases WHERE subnet_id = 1 GROUP BY state")
  [[ $held == "$1 $2" ]] && return 0
  echo "FAIL: the store holds in subnet 1: $held (want $1 $2)"
  return 1
}

control_check_end() {
  local status=0
  if grep -E 'commit queue full|store commit failed|not accepting writes' "$control_work/landlord.log"; then
    echo "FAIL: the daemon's log reports a refused or failed commit"
    status=1
  fi
  daemon_stop_and_check "$control_pid" "$control_work/landlord.log" landlord || status=1
  control_pid=""
  return $status
}

control_fail_report() {
  echo "---- landlord.log (last 20 lines)"; tail -20 "$control_work/landlord.log"
  echo "---- crash_client"; tail -5 "$1"
}

control_lab_down() {
  control_stop
  [[ -n $control_ns ]] && ip netns del "$control_ns" 2>/dev/null || true
}
