#!/usr/bin/env bash
# DHCP is answered while the control plane is attacked (issue #31). A relay agent's clients
# (crash_client, one DORA at a time, in rounds) are served by landlord in control_lab.sh's namespace, first
# calm, then while a local user on the control socket sends: a 200,000-deep JSON array (it once
# crashed landlord), config-test of a FIFO in the config's directory (it once froze the event
# loop in open() until someone wrote to the FIFO), four config-tests at once of a 0.8 MB YAML
# (they once ran on the DHCP loop), and 40 /events streams (they once took every connection
# slot). Checks: every DORA ACKed; no request waited more than 1 s for its ACK during the attack
# (a frozen loop would); the deep JSON and the FIFO answered result 1 at once; status-get answered
# while the streams were open; the daemon alive, its log clean, stopped cleanly. Prints the
# request->ACK p50/p99 calm and under attack. Root; about 20 s.
# Usage: control_attack.sh LANDLORD CRASH_CLIENT   (exit 77 = skipped)
set -euo pipefail
landlord=$1
client=$2
source "$(dirname "$0")/control_lab.sh"
control_lab_require
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }

work=$(mktemp -d /tmp/control_attack.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # A loop frozen in open() of the FIFO (the old code) is let go before the daemon is stopped.
  [[ -p $work/fifo.yaml ]] && timeout 2 sh -c "echo > '$work/fifo.yaml'" 2>/dev/null || true
  control_lab_down
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
control_lab_up "llatk$$" "$work"
control_start "$landlord" || exit 1

# The attack's material: a 200,000-deep array (~400 KB, under the 1 MiB body limit), a FIFO and
# a 0.8 MB config (13,000 reservations), both in the config's directory.
python3 -c 'import sys; sys.stdout.write("{\"command\": \"lease4-get\", \"arguments\": " + "[" * 200000 + "]" * 200000 + "}")' \
  >"$work/deep.json"
mkfifo "$work/fifo.yaml"
{
  echo "subnets:"
  echo "  - subnet: 10.0.0.0/12"
  echo "    pools: [10.0.0.1-10.15.255.254]"
  echo "    reservations:"
  for ((i = 0; i < 13000; i++)); do
    printf '      - {mac: "02:20:00:00:%02x:%02x", address: 10.1.%d.%d, hostname: host%d}\n' \
      $((i / 256)) $((i % 256)) $((i / 250)) $((i % 250 + 1)) "$i"
  done
} >"$work/big.yaml"
echo "big.yaml: $(wc -c <"$work/big.yaml") bytes"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# The clients keep coming for the whole attack: rounds of 20 DORAs (the same 20 clients, so the
# pool never runs out) every 0.2 s until the attack is over, at most 150 rounds (~40 s). One
# round that is not wholly ACKed fails the run.
(
  for ((round = 0; round < 150; round++)); do
    [[ -e $work/attack-over ]] && break
    ip netns exec "$control_ns" "$client" dora --server 198.18.0.1:67 --ledger "$work/ledger" --clients 20 \
      --window 1 --duration-s 20 >"$work/client.out" 2>&1 || exit 1
    grep -q "^doras_acked=20 " "$work/client.out" || exit 1
    sleep 0.2
  done
) &
client_pid=$!
pids+=("$client_pid")
sleep 3
attack_start=$(now_ms)
fail=0

deep=$(curl -sS --max-time 10 --unix-socket "$work/control.sock" --data-binary @"$work/deep.json" http://landlord/ || true)
echo "deep JSON: $deep"
[[ $(jq -r .text <<<"$deep" 2>/dev/null) == "the request nests deeper than 32 levels" ]] || {
  echo "FAIL: the 200,000-deep request was not refused"
  fail=1
}
fifo=$(control_ask '{"command": "config-test", "arguments": {"path": "fifo.yaml"}}' 5 || true)
echo "config-test of a FIFO: $fifo"
[[ $(jq -r .text <<<"$fifo" 2>/dev/null) == "$work/fifo.yaml: is not a regular file" ]] || {
  echo "FAIL: config-test of a FIFO was not refused at once"
  fail=1
}
config_tests=()
for round in 1 2 3; do
  for i in 1 2 3 4; do
    control_ask '{"command": "config-test", "arguments": {"path": "big.yaml"}}' 60 >"$work/big.$round.$i" &
    pids+=($!)
    config_tests+=($!)
  done
  sleep 1
done
for i in $(seq 40); do
  curl -sS -N --max-time 8 --unix-socket "$work/control.sock" http://landlord/events >/dev/null 2>&1 &
  pids+=($!)
done
sleep 1
status=$(control_ask '{"command": "status-get"}' 3 || true)
[[ $(jq .result <<<"$status" 2>/dev/null) == 0 ]] || {
  echo "FAIL: status-get was not answered while 40 /events streams were asked for: $status"
  fail=1
}
sleep 6
attack_end=$(now_ms)
touch "$work/attack-over"

if ! wait "$client_pid"; then
  echo "FAIL: crash_client's DORAs were not all ACKed: $(tail -3 "$work/client.out")"
  fail=1
fi
# Each has up to 60 s: under ASan on a loaded machine a check of 0.8 MB takes seconds.
for pid in "${config_tests[@]}"; do wait "$pid" || true; done
answered=$(cat "$work"/big.*.* | jq -s '[.[] | select(.result == 0 or (.text | test("in progress")))] | length')
echo "config-test of big.yaml: $answered of 12 answered (sane, or refused while four were running)"
((answered == 12)) || { echo "FAIL: a config-test of big.yaml went unanswered"; fail=1; }

# Request->ACK times (ledger: "ack ACK_MS ... REQUESTED_MS"), calm and under attack.
latency() {  # FROM_MS TO_MS: the p50 and p99 of ACKs in that window, and their count
  awk -v a="$1" -v b="$2" '$1 == "ack" && $2 >= a && $2 <= b { print $2 - $9 }' "$work/ledger" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print "0 0 0"; exit } ; p50 = v[int(NR * 0.5) + 1]; i99 = int(NR * 0.99) + 1; if (i99 > NR) i99 = NR; print p50, v[i99], NR }'
}
read -r calm50 calm99 calm_n < <(latency 0 "$attack_start")
read -r atk50 atk99 atk_n < <(latency "$attack_start" "$attack_end")
longest=$(awk -v a="$attack_start" -v b="$attack_end" '$1 == "ack" && $2 >= a && $2 <= b { d = $2 - $9; if (d > m) m = d } END { print m + 0 }' "$work/ledger")
echo "request->ACK calm: p50 $calm50 ms p99 $calm99 ms ($calm_n); under attack: p50 $atk50 ms p99 $atk99 ms ($atk_n), longest $longest ms"
if ((atk_n == 0)) || ((longest > 1000)); then
  echo "FAIL: DHCP was not answered throughout the attack"
  fail=1
fi
control_check_end || fail=1
if ((fail)); then
  control_fail_report "$work/client.out"
  exit 1
fi
echo "PASS: deep JSON, FIFO and big config-tests, 40 /events streams: DHCP answered throughout"
