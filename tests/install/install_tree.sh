#!/usr/bin/env bash
# `cmake --install` into a scratch DESTDIR: every file where an administrator (and systemd,
# man, bash-completion) looks for it; the installed binaries run; the installed example config
# passes --check; the installed unit passes `systemd-analyze verify` (its man pages included)
# and scores at most 2.0 in `systemd-analyze security --offline`.
# Usage: install_tree.sh BUILD_DIR
set -euo pipefail
build="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
prefix="$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")"
DESTDIR="$root" cmake --install "$build" >"$work/install.log"

failures=0
expect_file() {  # PATH [executable]
  if [[ ! -f "$root$1" ]]; then
    echo "FAIL: $1 not installed"; failures=$((failures + 1))
  elif [[ "${2:-}" == executable && ! -x "$root$1" ]]; then
    echo "FAIL: $1 is not executable"; failures=$((failures + 1))
  else
    echo "ok: $1"
  fi
}
unit_dir="$(sed -n 's/^LANDLORD_SYSTEMD_UNIT_DIR:PATH=//p' "$build/CMakeCache.txt")"
if [[ -z "$unit_dir" ]]; then  # the default follows the prefix (cmake/install.cmake)
  unit_dir="$prefix/lib/systemd/system"
  [[ "$prefix" == /usr ]] && unit_dir=/lib/systemd/system
fi
expect_file "$prefix/sbin/landlord" executable
expect_file "$prefix/bin/landlord-sim" executable
expect_file "$prefix/bin/landlordctl" executable
expect_file /etc/landlord/landlord.yaml
expect_file "$unit_dir/landlord.service"
man_pages=(man8/landlord.8 man5/landlord.yaml.5 man1/landlord-sim.1 man1/landlordctl.1)
for page in "${man_pages[@]}"; do
  expect_file "$prefix/share/man/$page.gz"
done
for tool in landlord landlord-sim landlordctl; do
  expect_file "$prefix/share/bash-completion/completions/$tool"
done
((failures == 0)) || exit 1

# Debian policy 12.1: man pages gzip -9n (no name, no time stamp: byte 3 FLG and bytes 4-7 MTIME
# are zero), and man reads the installed file.
for page in "${man_pages[@]}"; do
  file="$root$prefix/share/man/$page.gz"
  gzip -t "$file" || { echo "FAIL: $page.gz is not gzip"; exit 1; }
  [[ "$(od -An -tx1 -j3 -N5 "$file" | tr -d " \n")" == 0000000000 ]] \
    || { echo "FAIL: $page.gz carries a name or a time stamp (not gzip -n)"; exit 1; }
  gzip -dc "$file" | gzip -9n | cmp -s - "$file" || { echo "FAIL: $page.gz is not gzip -9n"; exit 1; }
  name="$(basename "$page")"  # landlord.yaml.5 -> LANDLORD.YAML(5)
  heading="$(tr "[:lower:]" "[:upper:]" <<<"${name%.*}")(${name##*.})"
  MANWIDTH=80 man -l "$file" 2>"$work/man.err" >"$work/man.out" \
    || { echo "FAIL: man -l $page.gz: $(cat "$work/man.err")"; exit 1; }
  head -1 "$work/man.out" | grep -qF "$heading" \
    || { echo "FAIL: man -l $page.gz does not show $heading: $(head -1 "$work/man.out")"; exit 1; }
  [[ ! -s "$work/man.err" ]] || { echo "FAIL: man -l $page.gz warns: $(cat "$work/man.err")"; exit 1; }
done
echo "ok: man pages gzip -9n, readable with man -l"

"$root$prefix/sbin/landlord" --version
"$root$prefix/sbin/landlord" --check --config "$root/etc/landlord/landlord.yaml"

# The unit as installed, its commands pointed into the scratch root for verify.
unit="$root$unit_dir/landlord.service"
grep -qx "ExecStart=$prefix/sbin/landlord --config /etc/landlord/landlord.yaml" "$unit" \
  || { echo "FAIL: ExecStart does not run the installed binary on the installed config"; exit 1; }
for line in Type=notify User=landlord StateDirectory=landlord WatchdogSec=30s \
  "AmbientCapabilities=CAP_NET_BIND_SERVICE CAP_NET_RAW" ProtectSystem=strict PrivateTmp=yes \
  NoNewPrivileges=yes "RestrictAddressFamilies=AF_UNIX AF_INET AF_NETLINK AF_PACKET" \
  SystemCallFilter=@system-service; do
  grep -qxF "$line" "$unit" || { echo "FAIL: the unit lacks $line"; exit 1; }
done
mkdir -p "$work/verify"
sed "s|$prefix/sbin/landlord|$root$prefix/sbin/landlord|g; s|/etc/landlord/|$root/etc/landlord/|g" \
  "$unit" >"$work/verify/landlord.service"
if ! MANPATH="$root$prefix/share/man" systemd-analyze verify "$work/verify/landlord.service" \
  >"$work/verify.log" 2>&1; then
  echo "FAIL: systemd-analyze verify:"; cat "$work/verify.log"; exit 1
fi
echo "ok: systemd-analyze verify (man pages found: $(grep -c . "$work/verify.log") warnings)"
cat "$work/verify.log"
security="$(systemd-analyze security --offline=yes "$work/verify/landlord.service" 2>&1 | tail -1)"
score="$(grep -oE 'level for landlord.service: [0-9.]+' <<<"$security" | awk '{print $NF}')"
[[ -n "$score" ]] || { echo "FAIL: no security score: $security"; exit 1; }
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' \
  || { echo "FAIL: systemd-analyze security exposure $score > 2.0"; exit 1; }
echo "ok: systemd-analyze security --offline: exposure $score"
