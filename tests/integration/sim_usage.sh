#!/usr/bin/env bash
# landlord-sim refuses a bad command line before the run starts: exit 2, a message naming the
# flag, no C++ exception and no traffic (--server points at a loopback port nobody serves; no
# run gets as far as opening it). A bad --report path is refused at once, not after the run.
set -euo pipefail
sim="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
server=(--server 127.0.0.1:9 --bind 127.0.0.1:0)

# expect_usage NAME WORD ARGS...: exit 2 within 5 s, stderr names WORD, nothing thrown.
expect_usage() {
  local name="$1" word="$2"
  shift 2
  local status=0 started=$SECONDS
  timeout 20 "$sim" "$@" >"$work/out" 2>"$work/err" || status=$?
  if [[ $status -ne 2 ]]; then
    echo "FAIL: $name exited $status, want 2"; cat "$work/out" "$work/err"; exit 1
  fi
  if (( SECONDS - started > 5 )); then
    echo "FAIL: $name took $((SECONDS - started)) s: it ran before refusing"; exit 1
  fi
  grep -qF -- "$word" "$work/err" || { echo "FAIL: $name: no '$word' in:"; cat "$work/err"; exit 1; }
  if grep -qE "terminate|length_error|what\(\)|runtime error" "$work/err"; then
    echo "FAIL: $name threw:"; cat "$work/err"; exit 1
  fi
}

expect_usage "negative clients" "--clients" "${server[@]}" --clients -5 --duration 1s
expect_usage "too many clients" "--clients" "${server[@]}" --clients 99999999999 --duration 1s
expect_usage "zero rate" "--rate" "${server[@]}" --rate 0 --duration 1s
expect_usage "negative rate" "--rate" "${server[@]}" --rate -3 --duration 1s
expect_usage "rate not a number" "--rate" "${server[@]}" --rate fast --duration 1s
expect_usage "zero duration" "--duration" "${server[@]}" --duration 0s
expect_usage "unknown flag" "--colour" "${server[@]}" --colour blue
expect_usage "no transport" "--server" --clients 1 --duration 1s
expect_usage "bad report path" "$work/missing/report.json" "${server[@]}" --clients 1 \
  --duration 60s --report "$work/missing/report.json"
cat >"$work/scenario.yaml" <<'YAML'
rate: 0
YAML
expect_usage "zero rate in a scenario" "--rate" "${server[@]}" --scenario "$work/scenario.yaml"

status=0
"$sim" --help >"$work/out" 2>&1 || status=$?
[[ $status -eq 0 ]] || { echo "FAIL: --help exited $status, want 0"; exit 1; }
echo "PASS: landlord-sim usage errors exit 2 before the run"
