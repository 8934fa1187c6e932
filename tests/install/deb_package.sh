#!/usr/bin/env bash
# The .deb, end to end: a release build with CMAKE_INSTALL_PREFIX=/usr, `cpack -G DEB`, its
# control fields (Depends from dpkg-shlibdeps, conffiles, maintainer scripts) and file list;
# then installed with apt into a fresh Debian 12 root made by debootstrap (needs
# deb.debian.org): the landlord user and /var/lib/landlord exist, the unit is enabled (not
# started), `landlord --version` and `--check` work there, the daemon started as root in that
# root (in its own empty network namespace) becomes the landlord user, and a purge cleans up.
# Without a reachable mirror it says so and checks the extracted package on this host instead.
# Usage: deb_package.sh SOURCE_DIR WORK_DIR [BUILD_DIR]
#   WORK_DIR keeps the release build and a cached Debian root; BUILD_DIR, if given, is packaged
#   instead of a release build (it must be configured with -DCMAKE_INSTALL_PREFIX=/usr).
set -euo pipefail
source_dir="$1"
work_dir="$2"
mkdir -p "$work_dir"
build="${3:-$work_dir/build}"
scratch="$(mktemp -d /tmp/landlord-deb.XXXXXX)"
root="$scratch/root"
mounted=()
cleanup() {
  local point
  for point in "${mounted[@]}"; do umount -l "$point" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (chroot, mounts)"; exit 77; }

if [[ -z "${3:-}" ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX=/usr -DLANDLORD_TESTS=OFF -DLANDLORD_BENCH=OFF "${launcher[@]}" >/dev/null
fi
grep -qx 'CMAKE_INSTALL_PREFIX:PATH=/usr' "$build/CMakeCache.txt" || fail "$build is not configured for /usr"
# Everything the install rules name: the programs and the compressed man pages (tests and
# benchmarks are off in this build).
cmake --build "$build" -j2
rm -f "$build"/landlord_*.deb
(cd "$build" && cpack -G DEB >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; fail "cpack"; }
deb="$(ls "$build"/landlord_*.deb)"
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# Control fields.
dpkg-deb -I "$deb" >"$scratch/info"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for library in libc6 libstdc++6 libsqlite3-0 libyaml-cpp0.7 libsystemd0 libcap-ng0 libfmt9 passwd procps; do
  [[ ", $depends," == *", $library"[\ ,]* ]] || fail "Depends lacks $library: $depends"
done
for script in postinst prerm postrm conffiles; do
  grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\*? *$script" "$scratch/info" || fail "no $script in the package"
done
[[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" == /etc/landlord/landlord.yaml ]] \
  || fail "conffiles is not /etc/landlord/landlord.yaml"
dpkg-deb -c "$deb" | awk '{print $6}' >"$scratch/files"
for path in ./usr/sbin/landlord ./usr/bin/landlord-sim ./usr/bin/landlordctl \
  ./etc/landlord/landlord.yaml ./lib/systemd/system/landlord.service \
  ./usr/share/man/man8/landlord.8.gz ./usr/share/man/man5/landlord.yaml.5.gz \
  ./usr/share/man/man1/landlord-sim.1.gz ./usr/share/bash-completion/completions/landlordctl; do
  grep -qxF "$path" "$scratch/files" || fail "$path is not in the package"
done
echo "ok: control fields and file list"

# lintian: nothing beyond what the project cannot settle in the build (a real maintainer address,
# a Debian changelog and a copyright file need a maintainer and a declared licence).
if command -v lintian >/dev/null; then
  lintian --tag-display-limit 0 "$deb" 2>/dev/null | grep -E "^[EW]: " \
    | grep -vE "^E: landlord: (bogus-mail-host|no-changelog|no-copyright-file)( |$)" >"$scratch/lintian" || true
  [[ ! -s "$scratch/lintian" ]] || { cat "$scratch/lintian"; fail "lintian"; }
  echo "ok: lintian (3 known errors: bogus-mail-host, no-changelog, no-copyright-file)"
fi

mirror=http://deb.debian.org/debian
if ! command -v debootstrap >/dev/null || ! timeout 10 bash -c "exec 3<>/dev/tcp/deb.debian.org/80" 2>/dev/null; then
  echo "NOTE: no debootstrap or no route to deb.debian.org: checking the extracted package on this host"
  dpkg-deb -x "$deb" "$scratch/extracted"
  "$scratch/extracted/usr/sbin/landlord" --version
  "$scratch/extracted/usr/sbin/landlord" --check --config "$scratch/extracted/etc/landlord/landlord.yaml"
  echo "PASS (extracted only: a fresh Debian 12 root could not be made here)"
  exit 0
fi

# A fresh Debian 12 root, cached as a tarball in WORK_DIR (debootstrap takes minutes).
cache="$work_dir/bookworm-minbase.tar"
if [[ ! -s "$cache" ]]; then
  debootstrap --variant=minbase bookworm "$scratch/bootstrap" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
    || { tail -20 "$scratch/debootstrap.log"; fail "debootstrap"; }
  tar -C "$scratch/bootstrap" -cf "$cache.partial" . && mv "$cache.partial" "$cache"
  rm -rf "$scratch/bootstrap"
fi
mkdir -p "$root"
tar -C "$root" -xf "$cache"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/landlord.deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update -qq >/dev/null
in_root apt-get install -y -qq --no-install-recommends /tmp/landlord.deb >"$scratch/apt.log" 2>&1 \
  || { cat "$scratch/apt.log"; fail "apt-get install of the .deb in a fresh Debian 12 root"; }
echo "ok: installed into a fresh Debian 12 root with apt (dependencies from the Depends line)"

in_root landlord --version
in_root landlord-sim --version
in_root landlordctl --version
in_root landlord --check --config /etc/landlord/landlord.yaml
in_root getent passwd landlord | grep -q ':/var/lib/landlord:/usr/sbin/nologin$' \
  || fail "no landlord system user: $(in_root getent passwd landlord)"
[[ "$(in_root stat -c '%U:%G %a' /var/lib/landlord)" == "landlord:landlord 750" ]] \
  || fail "/var/lib/landlord is $(in_root stat -c '%U:%G %a' /var/lib/landlord)"
[[ -L "$root/etc/systemd/system/multi-user.target.wants/landlord.service" ]] \
  || fail "the unit is not enabled"
echo "ok: landlord user, /var/lib/landlord, unit enabled"

# Started by hand as root, in an empty network namespace (only its own loopback): it binds,
# then runs as landlord with CAP_NET_RAW alone.
unshare --net chroot "$root" /usr/sbin/landlord --config /etc/landlord/landlord.yaml \
  >"$scratch/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do grep -q "serving on" "$scratch/daemon.log" && break; sleep 0.1; done
grep -q "serving on" "$scratch/daemon.log" || { kill "$daemon" 2>/dev/null; cat "$scratch/daemon.log"; fail "the daemon did not start"; }
pid="$(pgrep -P "$daemon" -x landlord || echo "$daemon")"
uid="$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")"
capabilities="$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")"
kill -TERM "$daemon"; wait "$daemon" || fail "the daemon exited non-zero: $(cat "$scratch/daemon.log")"
[[ "$uid" == "$(in_root id -u landlord)" && "$capabilities" == 0000000000002000 ]] \
  || fail "the daemon ran as uid $uid with capabilities $capabilities"
echo "ok: the installed daemon ran as landlord with CAP_NET_RAW only; its store: $(in_root stat -c '%U %n' /var/lib/landlord/leases.db)"

in_root dpkg --purge landlord >/dev/null
[[ ! -e "$root/var/lib/landlord" && ! -e "$root/etc/systemd/system/multi-user.target.wants/landlord.service" ]] \
  || fail "purge left /var/lib/landlord or the unit's enablement"
echo "PASS: the .deb installs, runs and purges in a fresh Debian 12 root"
