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
# perfdhcp's flags and the output files.
expect_usage "drops not a number" "--max-drops" "${server[@]}" --max-drops many --duration 1s
expect_usage "drops above 100%" "--max-drops" "${server[@]}" --max-drops 120% --duration 1s
expect_usage "negative exchanges" "--max-exchanges" "${server[@]}" --max-exchanges -1 --duration 1s
expect_usage "missing MAC file" "--macs" "${server[@]}" --macs "$work/none.txt" --duration 1s
printf '02:aa:00:00:00:01\n' >"$work/one-mac.txt"
expect_usage "too few MACs" "1 MACs for 5 clients" "${server[@]}" --clients 5 --macs "$work/one-mac.txt"
printf '02:aa:00:00:00:01\nnonsense\n' >"$work/bad-macs.txt"
expect_usage "bad MAC line" "line 2" "${server[@]}" --clients 1 --macs "$work/bad-macs.txt"
expect_usage "MAC list and base" "--base-mac" "${server[@]}" --clients 1 --macs "$work/one-mac.txt" \
  --base-mac 02:00:00:00:00:01
expect_usage "bad base MAC" "--base-mac" "${server[@]}" --base-mac 02:zz:00:00:00:01
expect_usage "base MAC at the top" "leaves no room" "${server[@]}" --clients 10 --base-mac ff:ff:ff:ff:ff:fe
expect_usage "option the client sets" "--request-lease-time" "${server[@]}" --option 51:u32:60
expect_usage "option of no type" "unknown type" "${server[@]}" --option 60:string:x
expect_usage "option twice" "given twice" "${server[@]}" --option 60:text:a --option 60:text:b
expect_usage "bad prl" "--prl" "${server[@]}" --prl 1,x
expect_usage "lease under a second" "--request-lease-time" "${server[@]}" --request-lease-time 500ms
expect_usage "zero stats period" "--stats-every" "${server[@]}" --stats-every 0s
expect_usage "bad timeline path" "$work/missing/t.csv" "${server[@]}" --timeline "$work/missing/t.csv"
expect_usage "bad html path" "$work/missing/r.html" "${server[@]}" --html "$work/missing/r.html"

# Nobody answers on 127.0.0.1:9: exit 3, "unreachable", and still a report.
status=0
timeout 20 "$sim" "${server[@]}" --clients 2 --duration 2s --retransmit-base 200ms \
  --report "$work/unreachable.json" >"$work/out" 2>"$work/err" || status=$?
[[ $status -eq 3 ]] || { echo "FAIL: no server: exit $status, want 3"; cat "$work/out" "$work/err"; exit 1; }
grep -q "unreachable" "$work/err" || { echo "FAIL: no server: no 'unreachable' in:"; cat "$work/err"; exit 1; }
[[ -s $work/unreachable.json ]] || { echo "FAIL: no server: no report"; exit 1; }

# The closed loop with a MAC list stops where the list ends, instead of running off its end.
status=0
timeout 20 "$sim" "${server[@]}" --closed-loop --rate 10 --step 1s --duration 5s \
  --macs "$work/one-mac.txt" --report "$work/closed.json" >"$work/out" 2>"$work/err" || status=$?
grep -q '"stopped_by": "max-clients"' "$work/closed.json" && ! grep -qE "terminate|what\(\)" "$work/err" ||
  { echo "FAIL: closed loop with one MAC: exit $status"; cat "$work/out" "$work/err"; exit 1; }

# --stats-every alone: CSV lines on stdout, one a period (0.5 s over 2 s).
"$sim" "${server[@]}" --clients 2 --duration 2s --stats-every 500ms >"$work/out" 2>/dev/null || true
lines=$(grep -c '^[0-9.]*,' "$work/out" || true)
grep -q '^time_s,clients_init' "$work/out" && ((lines >= 4 && lines <= 5)) ||
  { echo "FAIL: --stats-every 500ms printed $lines CSV lines in 2 s:"; cat "$work/out"; exit 1; }

cat >"$work/scenario.yaml" <<'YAML'
rate: 0
YAML
expect_usage "zero rate in a scenario" "--rate" "${server[@]}" --scenario "$work/scenario.yaml"

status=0
"$sim" --help >"$work/out" 2>&1 || status=$?
[[ $status -eq 0 ]] || { echo "FAIL: --help exited $status, want 0"; exit 1; }
echo "PASS: landlord-sim usage errors exit 2 before the run"
