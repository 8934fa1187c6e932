#!/usr/bin/env bash
# `--version` of each tool: the project version and the git revision of the source tree it was
# built from; and cmake/git_revision.cmake on a tree without git (a tarball) says so.
# Usage: version.sh PROJECT_VERSION TOOL...
set -euo pipefail
expected_version="$1"; shift
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  head="$(git -C "$repo" rev-parse HEAD)"
else
  head=""
fi
for tool in "$@"; do
  name="$(basename "$tool")"
  output="$("$tool" --version)" || { echo "FAIL: $name --version exited $?"; exit 1; }
  [[ "$(wc -l <<<"$output")" -eq 1 ]] || { echo "FAIL: $name --version: not one line: $output"; exit 1; }
  [[ "$output" == "$name $expected_version ("*")" ]] \
    || { echo "FAIL: $name --version: '$output', expected '$name $expected_version (…)'"; exit 1; }
  if [[ -n "$head" ]]; then
    # "git <12 hex digits>[-dirty]" (or a v* tag's describe output ending in g<hex>)
    revision="$(sed -E 's/.*\(git ([^)]*)\)$/\1/' <<<"$output")"
    [[ "$revision" != "$output" ]] || { echo "FAIL: $name: no git revision in '$output'"; exit 1; }
    hex="$(sed -E 's/-dirty$//; s/.*-g([0-9a-f]+)$/\1/' <<<"$revision")"
    [[ "$head" == "$hex"* && ${#hex} -ge 7 ]] \
      || { echo "FAIL: $name: revision '$revision' is not HEAD $head"; exit 1; }
  fi
  echo "ok: $output"
done

# A copy of the sources without .git: the generator must say the revision is unknown.
mkdir -p "$work/tarball/cmake"
cp "$repo/cmake/git_revision.cmake" "$work/tarball/cmake/"
(cd "$work" && cmake -DSOURCE_DIR="$work/tarball" -DOUTPUT="$work/revision.hpp" \
  -P "$work/tarball/cmake/git_revision.cmake")
grep -q 'LANDLORD_GIT_REVISION "unknown (built outside a git checkout' "$work/revision.hpp" \
  || { echo "FAIL: a tree without git got:"; cat "$work/revision.hpp"; exit 1; }
echo "ok: tarball build says: $(grep -o '"[^"]*"' "$work/revision.hpp")"
