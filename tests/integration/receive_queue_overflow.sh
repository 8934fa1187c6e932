#!/usr/bin/env bash
# A receive-queue overflow provoked for real (issue #17): landlord on loopback is stopped
# (SIGSTOP) while landlord-sim sends a bounded burst of 20,000 DISCOVERs as a relay, so its socket's
# receive queue fills and the kernel drops the rest; then it is continued. The kernel's own drop
# count for the socket (/proc/net/udp, column "drops") and landlord's
# landlord_packets_dropped_total{reason="receive_queue_overflow"} must agree: the kernel stamps
# its count on the next datagram queued (SO_RXQ_OVFL), here the clients' retransmissions.
# No namespaces, no root needed beyond binding loopback ports.
# Usage: receive_queue_overflow.sh path/to/landlord-sim path/to/landlord
set -euo pipefail
source "$(dirname "$0")/veth_pair.sh"

SIM=${1:?usage: receive_queue_overflow.sh landlord-sim landlord}
LANDLORD=${2:?usage: receive_queue_overflow.sh landlord-sim landlord}
command -v curl >/dev/null || { echo "SKIP: curl is not installed (tools/install-deps)"; exit 77; }

veth_pair_prepare receive_overflow lro
fail() { echo "FAIL: $*"; KEEP_WORK=1; exit 1; }
# A stopped server cannot act on the cleanup's SIGTERM: continue it first.
continue_then_cleanup() { [[ -n ${SERVER_PID:-} ]] && kill -CONT "$SERVER_PID" 2>/dev/null; veth_pair_cleanup; }
trap continue_then_cleanup EXIT INT TERM

landlord_on_loopback "$LANDLORD" 198.18.16.0-198.18.111.255 "lease:
  time: 1h
control:
  socket: $WORK/control.sock"
metric() {
  curl -sS --max-time 5 --unix-socket "$WORK/control.sock" http://landlord/metrics |
    awk '/^landlord_packets_dropped_total\{reason="receive_queue_overflow"\}/ { print $2 }'
}
# The kernel's drops for the server's UDP socket: /proc/net/udp's last column, port in hex.
kernel_drops() {
  awk -v port="$(printf ':%04X' "$SERVER_PORT")" '$2 ~ port"$" { print $NF }' /proc/net/udp
}
for _ in $(seq 50); do [[ -S $WORK/control.sock ]] && metric >/dev/null 2>&1 && break; sleep 0.1; done
[[ $(metric) == 0 ]] || fail "overflow counted before any: $(metric)"
[[ $(kernel_drops) == 0 ]] || fail "the kernel dropped before the burst"

kill -STOP "$SERVER_PID"
# landlord's socket asks for a 4 MiB receive buffer (SO_RCVBUFFORCE): 20,000 DISCOVERs in
# 0.4 s are more than it holds. Their first retransmission comes 2 s later, after the CONT.
"$SIM" --server "127.0.0.1:$SERVER_PORT" --bind "127.0.0.1:$RELAY_PORT" --clients 20000 \
  --rate 50000 --duration 25s --retransmit-base 2s --report "$WORK/report.json" \
  >"$WORK/sim.out" 2>&1 &
sim_pid=$!
# The burst is over once the kernel's drops stop growing (at most 10 s: a slow machine's
# simulator may take well over the nominal 0.4 s); only then is 20,000 - drops what was queued.
dropped_while_stopped=0
for _ in $(seq 40); do
  sleep 0.25
  previous=$dropped_while_stopped
  dropped_while_stopped=$(kernel_drops)
  ((dropped_while_stopped > 0 && dropped_while_stopped == previous)) && break
done
kill -CONT "$SERVER_PID"
echo "kernel drops while landlord was stopped: $dropped_while_stopped"
((dropped_while_stopped > 0)) || fail "the burst did not overflow the receive queue"
wait "$sim_pid" || true
tail -n 12 "$WORK/sim.out"
counted=$(metric)
total=$(kernel_drops)
echo "kernel drops in all: $total; landlord_packets_dropped_total{reason=\"receive_queue_overflow\"} $counted"
[[ -n $counted ]] || fail "no receive_queue_overflow line in /metrics"
((counted == total)) || fail "landlord counted $counted overflow drops, the kernel $total"
# Every DISCOVER the queue held was answered once landlord went on (the retransmissions of the
# dropped ones meet a busy server and may overflow it again: not judged here).
jq -e --argjson queued $((20000 - dropped_while_stopped)) '.offers >= $queued' "$WORK/report.json" >/dev/null ||
  fail "fewer OFFERs than DISCOVERs queued: $(jq .offers "$WORK/report.json")"
landlord_stop_and_check
echo "PASS: a real receive-queue overflow is counted as the kernel counts it"
