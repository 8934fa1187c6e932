#!/usr/bin/env bash
# `landlord import` on damaged, foreign and awkward files (issue #31, #37 item 1): every line it
# cannot use is on stderr as FILE:LINE: why (at most 20, then a count); a file that is not the
# format named, or of whose live leases none can be imported, exits 1 with nothing written; a
# stray line in dhcpd.leases costs no other lease; lease.max and lease.min bound the imported
# times (reported); times past what any lease can be are refused with their line; a Kea-style
# config with fixed T1/T2 takes Kea's leases. No daemon runs: the port is only checked free.
# Usage: import_checks.sh path/to/landlord
set -euo pipefail
LANDLORD=${1:?usage: import_checks.sh landlord}
TEST_NAME=import_checks
source "$(dirname "$0")/crash_lib.sh"
PORT=$(free_udp_port) || fail "no free UDP port"
NOW=$(date +%s)

# config FILE [LEASE-SECTION]: pools 198.18.1.10-200 in 198.18.0.0/16, a store of its own.
config() {
  local lease=${2:-"{time: 10m}"}
  cat > "$1" <<YAML
server:
  listen: 127.0.0.1:$PORT
store:
  type: sqlite
  path: ${1%.yaml}.db
lease: $lease
subnets:
  - subnet: 198.18.0.0/16
    pools: [198.18.1.10-198.18.1.200]
YAML
}
# run NAME ARGS...: the import's exit status in RC, its output in $WORK/NAME.out and .err.
run() {
  local name=$1; shift
  RC=0
  "$LANDLORD" import "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?
  echo "--- $name: exit $RC"; cat "$WORK/$name.out" "$WORK/$name.err"
}
has() { grep -qF -- "$2" "$WORK/$1" || fail "$1 lacks '$2'"; }

config "$WORK/plain.yaml"
mac() { printf '02:00:00:00:01:%02x' "$1"; }

# 1. One stray line before a lease: reported with its line, the lease after it still read.
cat > "$WORK/stray.leases" <<EOF
authoring-byte-order little-endian;
this line is not dhcpd's
lease 198.18.1.20 {
  ends epoch $((NOW + 600));
  binding state active;
  hardware ethernet $(mac 20);
}
EOF
run stray --from dhcpd "$WORK/stray.leases" --config "$WORK/plain.yaml"
[[ $RC == 1 ]] || fail "a stray line: exit $RC, not 1"
has stray.err "$WORK/stray.leases:2: not a dhcpd.leases statement: 'this'"
has stray.out "leases to import: 1"
run stray-skip --from dhcpd "$WORK/stray.leases" --config "$WORK/plain.yaml" --skip-unreadable
[[ $RC == 0 ]] || fail "--skip-unreadable: exit $RC"
has stray-skip.out "imported 1 leases"
has stray-skip.err "$WORK/stray.leases:2: not a dhcpd.leases statement"

# 2. Not the format named: random bytes, and one format given as another, exit 1.
head -c 10M /dev/urandom >"$WORK/random.bin"
for from in dhcpd dnsmasq kea-csv; do
  run "random-$from" --from "$from" "$WORK/random.bin" --config "$WORK/plain.yaml" --dry-run
  [[ $RC == 1 ]] || fail "10 MB of random bytes as $from: exit $RC"
  has "random-$from.err" "is not a $from lease file"
  (( $(wc -l <"$WORK/random-$from.err") <= 22 )) || fail "random as $from: stderr not cut short"
done
printf '%s %s 198.18.1.30 host *\n' "$((NOW + 600))" "$(mac 30)" >"$WORK/dnsmasq.leases"
run dnsmasq-as-kea --from kea-csv "$WORK/dnsmasq.leases" --config "$WORK/plain.yaml"
[[ $RC == 1 ]] || fail "a dnsmasq file as kea-csv: exit $RC"
has dnsmasq-as-kea.err "not a Kea lease4 file"

# 3. Every live lease refused (outside the pools): exit 1, each listed with its line.
printf '%s %s 198.18.9.%d h *\n' "$((NOW + 600))" "$(mac 40)" 40 "$((NOW + 600))" "$(mac 41)" 41 \
  >"$WORK/outside.leases"
run outside --from dnsmasq "$WORK/outside.leases" --config "$WORK/plain.yaml"
[[ $RC == 1 ]] || fail "nothing of 2 importable: exit $RC"
has outside.err "$WORK/outside.leases:2: 198.18.9.41 is in no pool and no reservation"
has outside.err "none of the 2 live leases in the file can be imported"

# A file with no live lease (all expired) is no error: nothing to import.
printf '%s %s 198.18.1.50 h *\n' "$((NOW - 600))" "$(mac 50)" >"$WORK/expired.leases"
run expired --from dnsmasq "$WORK/expired.leases" --config "$WORK/plain.yaml"
[[ $RC == 0 ]] || fail "only expired leases: exit $RC"
has expired.out "nothing to import"

# 4. Times past what a lease can be, or negative: refused with the line.
printf '%s %s 198.18.1.60 h *\n-5 %s 198.18.1.61 h *\n%s %s 198.18.1.62 h *\n' \
  99999999999999 "$(mac 60)" "$(mac 61)" "$((NOW + 600))" "$(mac 62)" >"$WORK/absurd.leases"
run absurd --from dnsmasq "$WORK/absurd.leases" --config "$WORK/plain.yaml"
[[ $RC == 1 ]] || fail "overflowing times: exit $RC"
has absurd.err "$WORK/absurd.leases:1: expiry '99999999999999' is before 1970 or after 9999"
has absurd.err "$WORK/absurd.leases:2: expiry '-5' is before 1970 or after 9999"
printf '%s %s 198.18.1.63 h *\n' "$((NOW + 5000000000))" "$(mac 63)" >"$WORK/too-long.leases"
run too-long --from dnsmasq "$WORK/too-long.leases" --config "$WORK/plain.yaml"
[[ $RC == 1 ]] || fail "a lease of 158 years: exit $RC"
has too-long.err "$WORK/too-long.leases:1: ends in"
has too-long.err "longer than any DHCP lease"

# Many bad lines: the first 20 on stderr, then a count.
for i in $(seq 100); do echo "bad line $i"; done >"$WORK/many.leases"
printf '%s %s 198.18.1.70 h *\n' "$((NOW + 600))" "$(mac 70)" >>"$WORK/many.leases"
run many --from dnsmasq "$WORK/many.leases" --config "$WORK/plain.yaml" --dry-run
[[ $RC == 1 ]] || fail "100 bad lines: exit $RC"
has many.err "$WORK/many.leases:20: expected EXPIRY MAC ADDRESS HOSTNAME"
has many.err "$WORK/many.leases: ... and 80 more"
grep -qF "$WORK/many.leases:21:" "$WORK/many.err" && fail "more than 20 lines listed"

# 5. lease.max and lease.min bound imported times; Kea's infinite lease gets lease.max.
config "$WORK/bounded.yaml" "{time: 5m, min: 2m, max: 10m}"
NOW=$(date +%s)  # again: the random files took a while
KEA_HEADER=address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context
{
  echo "$KEA_HEADER"
  echo "198.18.1.80,$(mac 80),,4294967295,$((NOW - 100 + 4294967295)),1,0,0,inf,0,"
  echo "198.18.1.81,$(mac 81),,4294967294,$((NOW - 100 + 4294967294)),1,0,0,long,0,"
  echo "198.18.1.82,$(mac 82),,90,$((NOW + 60)),1,0,0,short,0,"
} >"$WORK/bounded.csv"
run bounded --from kea-csv "$WORK/bounded.csv" --config "$WORK/bounded.yaml"
[[ $RC == 0 ]] || fail "bounded: exit $RC"
has bounded.out "imported 3 leases"
has bounded.out "lease time cut to lease.max: 1"
has bounded.out "lease time raised to lease.min: 1"
has bounded.out "infinite, given lease.max (or lease.time): 1"
"$LANDLORD" export --format kea-csv --config "$WORK/bounded.yaml" >"$WORK/bounded.export"
cat "$WORK/bounded.export"
for row in "198.18.1.80,.*,600," "198.18.1.81,.*,600," "198.18.1.82,.*,120,"; do
  grep -q "^$row" "$WORK/bounded.export" || fail "no export row $row"
done

# 6. Kea-style fixed T1/T2 (renew-timer 30, rebind-timer 52, valid-lifetime 60): Kea's leases,
# 40 s and 20 s left, are imported (T2 beyond the lease left to the client's 87.5%).
config "$WORK/kea-timers.yaml" "{time: 60s, renew: 30s, rebind: 52s}"
NOW=$(date +%s)
{
  echo "$KEA_HEADER"
  echo "198.18.1.90,$(mac 90),,60,$((NOW + 40)),1,0,0,a,0,"
  echo "198.18.1.91,$(mac 91),01:02:00:00:00:01:91,60,$((NOW + 20)),1,0,0,b,0,"
} >"$WORK/kea-timers.csv"
run kea-timers --from kea-csv "$WORK/kea-timers.csv" --config "$WORK/kea-timers.yaml"
[[ $RC == 0 ]] || fail "fixed T1/T2: exit $RC"
has kea-timers.out "imported 2 leases"

echo "PASS: import reports every line it cannot use and exits 1 when it takes nothing"
