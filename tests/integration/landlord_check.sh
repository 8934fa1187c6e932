#!/usr/bin/env bash
# `landlord --check`: every example config in config/ is valid (exit 0); a broken file is
# refused (exit 1) with every error as FILE:LINE:COLUMN: message.
set -euo pipefail
landlord="$1"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for config in "$repo"/config/*.yaml; do
  "$landlord" --check --config "$config" >"$work/out" 2>&1 || {
    echo "FAIL: $config should be valid:"; cat "$work/out"; exit 1; }
  grep -q "OK" "$work/out" || { echo "FAIL: no OK for $config"; exit 1; }
done

broken="$work/broken.yaml"
cat >"$broken" <<'YAML'
server:
  listen: 1.2.3:67
  colour: blue
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.1.10-198.18.1.20]
YAML
status=0
"$landlord" --check --config "$broken" >"$work/out" 2>&1 || status=$?
[[ $status -eq 1 ]] || { echo "FAIL: broken config exited $status, want 1"; cat "$work/out"; exit 1; }
for expected in "$broken:2:11: " "$broken:3:3: " "$broken:6:"; do
  grep -qF "$expected" "$work/out" || {
    echo "FAIL: missing error at $expected in:"; cat "$work/out"; exit 1; }
done
lines=$(grep -c "^$broken:[0-9]*:[0-9]*: " "$work/out")
[[ $lines -eq 3 ]] || { echo "FAIL: want 3 located errors, got $lines:"; cat "$work/out"; exit 1; }

status=0
"$landlord" --check --config "$work/missing.yaml" >"$work/out" 2>&1 || status=$?
[[ $status -eq 1 ]] || { echo "FAIL: a missing file exited $status, want 1"; exit 1; }
# One set of log level names for the file and the flag: every name log.level takes is taken by
# --log-level too; an unknown one is a usage error (2), not CLI11's own exit code.
for level in trace debug info warn error critical off; do
  printf 'log:\n  level: %s\nsubnets:\n  - subnet: 198.18.0.0/24\n' "$level" >"$work/level.yaml"
  "$landlord" --check --config "$work/level.yaml" >"$work/out" 2>&1 || {
    echo "FAIL: log.level $level refused:"; cat "$work/out"; exit 1; }
  "$landlord" --check --config "$repo/config/loopback.yaml" --log-level "$level" >"$work/out" 2>&1 || {
    echo "FAIL: --log-level $level refused:"; cat "$work/out"; exit 1; }
done
status=0
"$landlord" --check --config "$repo/config/loopback.yaml" --log-level loud >"$work/out" 2>&1 || status=$?
[[ $status -eq 2 ]] || { echo "FAIL: --log-level loud exited $status, want 2"; cat "$work/out"; exit 1; }
echo "PASS: landlord --check"
