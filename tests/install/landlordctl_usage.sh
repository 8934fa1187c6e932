#!/usr/bin/env bash
# landlordctl's command line as people type it (issue #37): a usage error exits 2 (not CLI11's
# 105/106), the global options work after the subcommand too (`leases --json`), and --url takes
# ADDRESS:PORT without "http://". No daemon runs: the commands that parse go on to fail to
# connect (exit 1, one line on stderr), which is how a parsed command is told from a refused one.
# Usage: landlordctl_usage.sh path/to/landlordctl
set -uo pipefail
CTL=${1:?usage: landlordctl_usage.sh landlordctl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect STATUS STDERR-PATTERN ARGS...: landlordctl ARGS exits STATUS and its stderr matches.
expect() {
  local want=$1 pattern=$2
  shift 2
  "$CTL" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [[ $got != "$want" ]] || { [[ -n $pattern ]] && ! grep -Eq -- "$pattern" "$work/err"; }; then
    echo "FAIL: landlordctl $* exited $got (want $want), stderr:" >&2
    sed 's/^/  /' "$work/err" >&2
    failures=$((failures + 1))
  fi
}

no_socket="$work/absent.sock"
# Usage errors: 2, with CLI11's reason.
expect 2 'A subcommand is required|subcommand' --socket "$no_socket"
expect 2 'bogus|subcommand' --socket "$no_socket" bogus
expect 2 'key' --socket "$no_socket" lease
expect 2 'interval' --socket "$no_socket" top --interval 0
expect 2 'not-an-option' --socket "$no_socket" status --not-an-option
# Help and version: 0.
expect 0 '' --help
expect 0 '' --version
# Global flags after the subcommand parse, then fail to connect: 1, "landlordctl: ...".
expect 1 "^landlordctl: .*${no_socket}" leases --json --socket "$no_socket"
expect 1 "^landlordctl: .*${no_socket}" --socket "$no_socket" leases --json --state bound
# --url without the scheme is taken (port 1 on loopback: nobody listens, connection refused).
expect 1 '^landlordctl: .*(refused|connect)' --url 127.0.0.1:1 status
expect 1 '^landlordctl: .*(refused|connect)' status --url http://127.0.0.1:1
# Another scheme, or a name instead of an address, is refused with the reason.
expect 1 '^landlordctl: URL must be http://' --url https://127.0.0.1:1 status
expect 1 '^landlordctl: URL host must be an IPv4 address' --url localhost:1 status

if ((failures > 0)); then
  echo "landlordctl_usage: $failures failure(s)" >&2
  exit 1
fi
echo "landlordctl_usage: every case as expected"
