# Sourced by demo_smoke.sh and demo_peers_smoke.sh (their $1 is the build directory): sets repo
# and build, defines skip (exit 77) and fail (prints the demo's output, kept in the caller's $out),
# and skips unless this is root and may create network namespaces, which the demos need.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; echo "---- demo output"; cat "$out"; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces"
probe="lldemoprobe$$"
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces"
ip netns del "$probe"
