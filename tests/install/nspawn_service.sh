#!/usr/bin/env bash
# landlord.service under a real systemd (issue #11): a Debian 12 root (debootstrap, with
# systemd) gets the .deb installed with apt and is booted with systemd-nspawn. Its network is
# its own: --private-network plus one end of a veth pair made here (198.18.0.1/24 inside); the
# other end is in a namespace of this test, where a real dhclient asks for a lease. Checked with
# systemd's own view (systemctl show, the journal with systemd at debug level):
#   - the unit the package enabled is started at boot; ActiveState=active only after READY=1
#     (Type=notify); StatusText is landlord's summary; the main process runs as landlord with
#     CAP_NET_RAW only, under the unit's seccomp filter and NoNewPrivileges;
#   - it serves the dhclient (DORA, then a renewal) with all the unit's hardening on, and
#     landlordctl answers on the RuntimeDirectory's socket;
#   - systemctl reload: systemd receives RELOADING=1 then READY=1;
#   - a wedged event loop (SIGSTOP to the main PID) is killed by the watchdog (the unit's
#     WatchdogSec=30s) and restarted (NRestarts=1, a new MainPID that serves again);
#   - systemctl stop: systemd receives STOPPING=1 and the service ends with Result=success.
# Usage: nspawn_service.sh LANDLORD.DEB|DIR_WITH_ONE WORK_DIR
#   WORK_DIR keeps the debootstrapped root as a tarball between runs (bookworm-systemd.tar).
#   Exit 77 (skip) without root, systemd-nspawn, debootstrap or a route to deb.debian.org.
set -euo pipefail
deb="${1:?usage: nspawn_service.sh LANDLORD.DEB|DIR WORK_DIR}"
if [[ -d $deb ]]; then deb="$(ls "$deb"/landlord_*.deb 2>/dev/null | head -1)"; fi
[[ -f $deb ]] || { echo "FAIL: no .deb at $1 (deb_package makes one)"; exit 1; }
deb="$(realpath "$deb")"
work_dir="$(mkdir -p "${2:?usage: nspawn_service.sh LANDLORD.DEB WORK_DIR}" && realpath "$2")"
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root"
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (package systemd-container)"
command -v debootstrap >/dev/null || skip "no debootstrap"
command -v dhclient >/dev/null || skip "no dhclient"
mirror=http://deb.debian.org/debian
timeout 10 bash -c "exec 3<>/dev/tcp/deb.debian.org/80" 2>/dev/null || skip "no route to deb.debian.org"

machine=llnspawn client_ns=llnspawn-c server_if=llnsp-srv client_if=llnsp-cli
scratch="$(mktemp -d /var/tmp/landlord-nspawn.XXXXXX)"
root="$scratch/root"
nspawn_pid="" leader="" dhclient_pid=""
inside() { nsenter -t "$leader" -a /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SYSTEMD_COLORS=0 "$@"; }
cleanup() {
  if [[ -n $dhclient_pid ]]; then kill "$dhclient_pid" 2>/dev/null || true; wait "$dhclient_pid" 2>/dev/null || true; fi
  if [[ -n $nspawn_pid ]] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true  # nspawn asks the container's systemd to power off
    for _ in $(seq 150); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
    wait "$nspawn_pid" 2>/dev/null || true
  fi
  # The container's PID 1 (started by this test) if nspawn left it behind.
  if [[ -n $leader && "$(cat "/proc/$leader/comm" 2>/dev/null)" == systemd ]]; then kill -KILL "$leader" 2>/dev/null || true; fi
  ip link del "$server_if" 2>/dev/null || true
  ip netns del "$client_ns" 2>/dev/null || true
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
  echo "FAIL: $*"
  if [[ -n $leader ]]; then
    echo "--- the container's journal for landlord:"; inside journalctl -u landlord --no-pager -n 60 || true
  fi
  exit 1
}

# A Debian 12 root with systemd as init, cached as a tarball (debootstrap takes minutes).
cache="$work_dir/bookworm-systemd.tar"
if [[ ! -s "$cache" ]]; then
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,iproute2 bookworm \
    "$scratch/bootstrap" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
    || { tail -20 "$scratch/debootstrap.log"; fail "debootstrap"; }
  tar -C "$scratch/bootstrap" -cf "$cache.partial" . && mv "$cache.partial" "$cache"
  rm -rf "$scratch/bootstrap"
fi
# The root with this very .deb installed is cached too (apt fetching its dependencies takes
# minutes): keyed by the package's SHA-256.
installed_cache="$work_dir/bookworm-systemd-landlord-$(sha256sum "$deb" | cut -c1-16).tar"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
mkdir -p "$root"
if [[ -s "$installed_cache" ]]; then
  tar -C "$root" -xf "$installed_cache"
else
  tar -C "$root" -xf "$cache"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp "$deb" "$root/tmp/landlord.deb"
  # apt in the root before it boots: nothing starts (policy-rc.d), the postinst enables the unit.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
  mount -t proc proc "$root/proc"
  in_root apt-get update -qq >/dev/null
  status=0
  in_root apt-get install -y -qq --no-install-recommends /tmp/landlord.deb >"$scratch/apt.log" 2>&1 || status=$?
  umount "$root/proc"
  [[ $status -eq 0 ]] || { cat "$scratch/apt.log"; fail "apt-get install of the .deb"; }
  rm "$root/usr/sbin/policy-rc.d" "$root/tmp/landlord.deb"
  rm -f "$work_dir"/bookworm-systemd-landlord-*.tar
  tar -C "$root" -cf "$installed_cache.partial" . && mv "$installed_cache.partial" "$installed_cache"
fi
[[ -L "$root/etc/systemd/system/multi-user.target.wants/landlord.service" ]] || fail "the package did not enable the unit"

# The container's link: the veth end passed in keeps its name; a oneshot unit of this test
# gives it 198.18.0.1/24 before landlord starts.
cat >"$root/etc/landlord/landlord.yaml" <<YAML
server:
  interfaces: [$server_if]
  listen: 0.0.0.0:67
  server-id: 198.18.0.1
  user: landlord
store:
  type: sqlite
  path: /var/lib/landlord/leases.db
lease:
  time: 40s
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [$server_if]
    pools: [198.18.0.100-198.18.0.199]
    options: {routers: [198.18.0.1]}
control:
  socket: /run/landlord/control.sock
log:
  level: debug
YAML
cat >"$root/etc/systemd/system/lab-address.service" <<UNIT
[Unit]
Description=198.18.0.1/24 on $server_if (the test's link)
Before=landlord.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/sbin/ip address add 198.18.0.1/24 dev $server_if
ExecStart=/sbin/ip link set $server_if up
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/lab-address.service "$root/etc/systemd/system/multi-user.target.wants/"
# An ASan+UBSan build (its Depends name libasan8): LeakSanitizer stops the world with ptrace at
# exit, which the unit's SystemCallFilter (no @debug) forbids, so it reports a fatal error and
# exits non-zero. Leak checking is off for this run; ASan and UBSan stay on. A release build
# needs nothing of the sort.
if dpkg-deb -f "$deb" Depends | grep -q libasan; then
  mkdir -p "$root/etc/systemd/system/landlord.service.d"
  printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' >"$root/etc/systemd/system/landlord.service.d/sanitizer.conf"
  echo "note: a sanitizer build: LeakSanitizer off in the unit (a drop-in of this test)"
fi
# systemd at debug level logs every notification it receives from the service.
mkdir -p "$root/etc/systemd/system.conf.d"
printf '[Manager]\nLogLevel=debug\n' >"$root/etc/systemd/system.conf.d/debug.conf"
echo "ok: the .deb installed into a Debian 12 root with systemd $(in_root dpkg-query -W -f='${Version}' systemd)"

ip netns add "$client_ns"
ip link add "$server_if" type veth peer name "$client_if"
ip link set "$client_if" netns "$client_ns"
ip -n "$client_ns" link set lo up
ip -n "$client_ns" link set "$client_if" up

# Boot. Without a systemd on the host: no machined registration (--register=no) and no scope of
# its own (--keep-unit), which would need the host's system bus. nspawn waits for udev to have
# initialized a --network-interface whenever the host's /sys is writable (it takes that to mean
# udev runs); there is no udev here, so it runs in a mount namespace where /sys is read-only.
unshare --mount sh -c 'mount -o remount,bind,ro /sys /sys && exec systemd-nspawn "$@"' nspawn \
  -D "$root" -M "$machine" -b --register=no --keep-unit --network-interface="$server_if" \
  --console=pipe </dev/null >"$scratch/boot.log" 2>&1 &
nspawn_pid=$!
for _ in $(seq 100); do
  leader="$(pgrep -P "$nspawn_pid" -x systemd || true)"
  [[ -n $leader ]] && break
  sleep 0.1
done
[[ -n $leader ]] || { cat "$scratch/boot.log"; fail "systemd-nspawn did not start systemd"; }
state=""
for _ in $(seq 600); do
  state="$(inside systemctl is-system-running 2>/dev/null || true)"
  [[ $state == running || $state == degraded ]] && break
  sleep 0.1
done
[[ $state == running ]] || { inside systemctl --failed --no-pager || true; fail "the container's systemd is '$state'"; }
echo "ok: the container booted (systemd is PID 1 there: $(inside cat /proc/1/comm)); system state: $state"

show() { inside systemctl show landlord -p "$1" --value; }
for _ in $(seq 300); do
  [[ "$(show ActiveState)" == activating ]] || break
  sleep 0.1
done
[[ "$(show ActiveState)/$(show SubState)" == active/running ]] \
  || fail "landlord.service is $(show ActiveState)/$(show SubState) after boot"
[[ "$(show NRestarts)" == 0 ]] || fail "landlord.service was restarted $(show NRestarts) times at boot"
main_pid="$(show MainPID)"
echo "ok: landlord.service started at boot; MainPID $main_pid; Type=$(show Type); WatchdogUSec=$(show WatchdogUSec)"
[[ "$(show Type)" == notify && "$(show WatchdogUSec)" == 30s ]] || fail "not Type=notify with a 30 s watchdog"
journal() { inside journalctl --no-pager -o cat "$@"; }
# Consumers read the whole stream (no grep -q): with pipefail, a writer cut off by SIGPIPE
# would make a match look like a failure.
journal_has() { journal | grep -E "$1" >/dev/null; }
notifications() { journal | grep -E "landlord.service: Got notification message from PID $1"; }
# READY=1 came from landlord itself, the unit only became active after it.
notifications "$main_pid" | grep "READY=1" >/dev/null || fail "systemd got no READY=1 from PID $main_pid"
status_text="$(show StatusText)"
[[ $status_text =~ ^[0-9]+\ addresses\ in\ use\ of\ 100\ in\ pools ]] || fail "StatusText is '$status_text'"
echo "ok: READY=1 received; StatusText=$status_text"

# The process as the unit made it: user landlord, CAP_NET_RAW only, seccomp filter, no new privs.
proc_status() { inside awk -v k="$1:" '$1 == k {print $2}' "/proc/$main_pid/status"; }
landlord_uid="$(inside id -u landlord)"
[[ "$(proc_status Uid)" == "$landlord_uid" ]] || fail "the main process runs as uid $(proc_status Uid), not landlord ($landlord_uid)"
[[ "$(proc_status CapEff)" == 0000000000002000 ]] || fail "CapEff is $(proc_status CapEff), not CAP_NET_RAW only"
[[ "$(proc_status Seccomp)" == 2 ]] || fail "no seccomp filter on the main process (Seccomp: $(proc_status Seccomp))"
[[ "$(proc_status NoNewPrivs)" == 1 ]] || fail "NoNewPrivs is not set"
echo "ok: the main process: uid $landlord_uid (landlord), CapEff 0x2000, Seccomp 2 (filter), NoNewPrivs 1"

# A real client on the container's link: a lease, then (lease 40 s, T1 20 s) a renewal.
client_mac="$(ip -n "$client_ns" -br link show "$client_if" | awk '{print $3}')"
# dhclient runs its script with an environment of its own: the events file is written into it.
cat >"$scratch/client-script" <<SCRIPT
#!/bin/sh
echo "\$reason \$new_ip_address" >>"$scratch/client.events"
case "\$reason" in
  BOUND|RENEW|REBIND|REBOOT) ip address replace "\$new_ip_address/\$new_subnet_mask" dev "\$interface" ;;
esac
SCRIPT
chmod +x "$scratch/client-script"
ip netns exec "$client_ns" \
  dhclient -d -4 -sf "$scratch/client-script" -lf "$scratch/client.leases" -pf "$scratch/client.pid" \
  "$client_if" >"$scratch/client.log" 2>&1 &
dhclient_pid=$!
wait_for() {  # SECONDS WHAT COMMAND...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq $((seconds * 10))); do "$@" && return 0; sleep 0.1; done
  fail "timed out after ${seconds}s waiting for: $what"
}
events_have() { grep -qE "$1" "$scratch/client.events" 2>/dev/null; }
wait_for 30 "the client bound" events_have "^BOUND 198\.18\.0\."
address="$(awk '$1 == "BOUND" {print $2}' "$scratch/client.events" | head -1)"
journal -u landlord | grep -F "$address" | grep -F "$client_mac" >/dev/null \
  || fail "landlord's journal does not show the lease of $address to $client_mac"
inside landlordctl leases | grep "$address" >/dev/null || fail "landlordctl leases does not list $address"
echo "ok: dhclient bound $address from landlord under systemd; landlordctl answers on /run/landlord/control.sock"
wait_for 40 "the client renewing at T1" events_have "^RENEW $address$"
echo "ok: the client renewed $address"

# Reload: SIGHUP via ExecReload; systemd sees RELOADING=1 then READY=1 from the main PID.
inside systemctl reload landlord || fail "systemctl reload failed"
reload_seen() { notifications "$main_pid" | grep -A50 RELOADING=1 | grep READY=1 >/dev/null; }
wait_for 10 "RELOADING=1 then READY=1 after the reload" reload_seen
[[ "$(show ActiveState)" == active && "$(show MainPID)" == "$main_pid" ]] || fail "not active with the same PID after reload"
echo "ok: systemctl reload: RELOADING=1 then READY=1 received, same MainPID"

# The watchdog: a wedged event loop (SIGSTOP) stops feeding WATCHDOG=1; after WatchdogSec systemd
# aborts it (then kills it) and Restart=on-failure starts a new one.
notifications "$main_pid" | grep "WATCHDOG=1" >/dev/null || fail "systemd got no WATCHDOG=1 from landlord"
stopped_at=$(date +%s)
inside kill -STOP "$main_pid"
new_pid_started() { [[ "$(show MainPID)" != "$main_pid" && "$(show MainPID)" != 0 && "$(show ActiveState)" == active ]]; }
wait_for 90 "the watchdog restarting landlord" new_pid_started
restarted_after_s=$(($(date +%s) - stopped_at))
journal_has "landlord.service: Watchdog timeout" || fail "the journal has no watchdog timeout"
[[ "$(show NRestarts)" == 1 ]] || fail "NRestarts is $(show NRestarts)"
new_pid="$(show MainPID)"
echo "ok: SIGSTOP on PID $main_pid: watchdog timeout, restarted as PID $new_pid after ${restarted_after_s}s (NRestarts=1)"
notifications "$new_pid" | grep "READY=1" >/dev/null || fail "no READY=1 from the restarted landlord"
# The restarted server still holds the client's lease.
inside landlordctl leases | grep "$address" >/dev/null || fail "the restarted landlord does not list $address"

# Stop: STOPPING=1, then a clean exit.
inside systemctl stop landlord || fail "systemctl stop failed"
notifications "$new_pid" | grep "STOPPING=1" >/dev/null || fail "systemd got no STOPPING=1"
[[ "$(show ActiveState)" == inactive && "$(show Result)" == success ]] \
  || fail "after stop: $(show ActiveState), Result=$(show Result)"
echo "ok: systemctl stop: STOPPING=1 received, inactive, Result=success"
echo "PASS: landlord.service under systemd $(inside systemctl --version | head -1 | awk '{print $2}') in systemd-nspawn: ready, status, reload, watchdog restart, stop; hardened; served a real client"
