#!/usr/bin/env bash
# ddns_bind: the DNS updater (src/ddns, through tests/integration/ddns_driver) against a real
# BIND 9 started here: a throwaway named on 127.0.0.1 at a high port, its own temp directory, a
# TSIG key from tsig-keygen, zones lab.test and 18.198.in-addr.arpa that only that key may
# update. Checks each step with dig: add; another client's name refused; an operator's static A
# and PTR untouched; removal; an update over TCP; a key BIND does not know (BADKEY); an unsigned
# update refused.
# Exit 77 when BIND or dig is not installed. Kills only the named it started.
set -euo pipefail
driver=${1:?usage: ddns_bind.sh path/to/ddns_driver}
for tool in named tsig-keygen dig; do
  if ! command -v "$tool" >/dev/null && [[ ! -x /usr/sbin/$tool ]]; then
    echo "SKIP: $tool not installed (tools/install-deps installs bind9 and bind9-dnsutils)"
    exit 77
  fi
done
named=$(command -v named || echo /usr/sbin/named)

dir=$(mktemp -d /tmp/landlord-ddns-bind.XXXXXX)
named_pid=
cleanup() {
  if [[ -n "$named_pid" ]] && kill -0 "$named_pid" 2>/dev/null; then
    kill "$named_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$named_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$named_pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"

# A free high port for both UDP and TCP (named listens on both).
port=$(python3 -c 'import socket
for p in range(20000 + __import__("os").getpid() % 20000, 65000):
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", p))
        t = socket.socket(); t.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass')

tsig-keygen -a hmac-sha256 ddns-key > "$dir/ddns.key"
tsig-keygen -a hmac-sha256 stranger-key > "$dir/stranger.key"
cat > "$dir/lab.test.zone" <<ZONE
\$TTL 300
@        IN SOA ns.lab.test. hostmaster.lab.test. 1 3600 600 86400 300
@        IN NS  ns.lab.test.
ns       IN A   127.0.0.1
printer  IN A   198.18.0.250
ZONE
cat > "$dir/reverse.zone" <<ZONE
\$TTL 300
@        IN SOA ns.lab.test. hostmaster.lab.test. 1 3600 600 86400 300
@        IN NS  ns.lab.test.
250.0    IN PTR printer.lab.test.
ZONE
cat > "$dir/named.conf" <<CONF
options {
  directory "$dir";
  pid-file "$dir/named.pid";
  listen-on port $port { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
};
controls { };
include "$dir/ddns.key";
zone "lab.test" { type primary; file "$dir/lab.test.zone"; allow-update { key "ddns-key"; }; };
zone "18.198.in-addr.arpa" { type primary; file "$dir/reverse.zone"; allow-update { key "ddns-key"; }; };
CONF
chmod 644 "$dir"/*

user_args=()
if [[ $(id -u) -eq 0 ]] && id bind >/dev/null 2>&1; then
  chown -R bind "$dir"
  user_args=(-u bind)
fi
"$named" -g -c "$dir/named.conf" "${user_args[@]}" > "$dir/named.log" 2>&1 &
named_pid=$!

ask() { dig @127.0.0.1 -p "$port" +time=2 +tries=1 +short "$@"; }
# Ready when both zones answer with their SOA (before that dig may print its own errors, or
# named answer SERVFAIL while it loads).
ready() { [[ "$(ask SOA lab.test 2>/dev/null)" == "ns.lab.test. "* ]] &&
          [[ "$(ask SOA 18.198.in-addr.arpa 2>/dev/null)" == "ns.lab.test. "* ]]; }
for _ in $(seq 100); do
  ready && break
  kill -0 "$named_pid" 2>/dev/null || break
  sleep 0.1
done
if ! ready; then
  echo "FAIL: named did not answer on 127.0.0.1:$port"; cat "$dir/named.log"; exit 1
fi

failures=0
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then
    echo "ok: $1"
  else
    echo "FAIL: $1: expected '$2', got '$3'"; failures=$((failures + 1))
  fi
}
run() {  # run ARGS...: the driver's completion line
  timeout 70 "$driver" --server "127.0.0.1:$port" --key-file "${key:-$dir/ddns.key}" \
    --forward lab.test --reverse 18.198.in-addr.arpa "$@"
}
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# 1. add: A, DHCID and PTR (with its DHCID), in one transaction.
line=$(run add 198.18.0.5 alpha.lab.test 02:00:00:00:00:01); echo "  $line"
check "add: forward" done "$(field "$line" forward)"
check "add: reverse" done "$(field "$line" reverse)"
check "add: A" 198.18.0.5 "$(ask A alpha.lab.test)"
check "add: PTR" alpha.lab.test. "$(ask -x 198.18.0.5)"
dhcid=$(ask DHCID alpha.lab.test)
check "add: a DHCID beside the name" 1 "$(grep -c . <<<"$dhcid")"
check "add: the same DHCID beside the PTR" "$dhcid" "$(ask DHCID 5.0.18.198.in-addr.arpa)"
# The same client again (a renewal): its own name is replaced, nothing else changes.
line=$(run add 198.18.0.5 alpha.lab.test 02:00:00:00:00:01); echo "  $line"
check "renewal: forward" done "$(field "$line" forward)"
check "renewal: the DHCID is unchanged" "$dhcid" "$(ask DHCID alpha.lab.test)"

# 2. another client asking for alpha does not get it, nor a PTR for its address.
line=$(run add 198.18.0.9 alpha.lab.test 02:00:00:00:00:02); echo "  $line"
check "conflict: forward" conflict "$(field "$line" forward)"
check "conflict: reverse not attempted" not-attempted "$(field "$line" reverse)"
check "conflict: A still the first client's" 198.18.0.5 "$(ask A alpha.lab.test)"
check "conflict: DHCID unchanged" "$dhcid" "$(ask DHCID alpha.lab.test)"
check "conflict: no PTR for the intruder's address" "" "$(ask -x 198.18.0.9)"

# 3. the operator's static records (no DHCID) are neither overwritten nor deleted.
line=$(run add 198.18.0.7 printer.lab.test 02:00:00:00:00:03); echo "  $line"
check "static A: conflict" conflict "$(field "$line" forward)"
check "static A: untouched" 198.18.0.250 "$(ask A printer.lab.test)"
line=$(run add 198.18.0.250 zeta.lab.test 02:00:00:00:00:04); echo "  $line"
check "static PTR: the free name is added" done "$(field "$line" forward)"
check "static PTR: conflict" conflict "$(field "$line" reverse)"
check "static PTR: untouched" printer.lab.test. "$(ask -x 198.18.0.250)"
line=$(run remove 198.18.0.250 printer.lab.test 02:00:00:00:00:03); echo "  $line"
check "static A: a removal leaves it" 198.18.0.250 "$(ask A printer.lab.test)"
line=$(run remove 198.18.0.250 zeta.lab.test 02:00:00:00:00:04); echo "  $line"
check "static PTR: a removal leaves it" printer.lab.test. "$(ask -x 198.18.0.250)"
check "zeta removed" "" "$(ask A zeta.lab.test)"

# 4. the intruder's removal leaves alpha alone; alpha's own removal takes A, DHCID and PTR.
line=$(run remove 198.18.0.9 alpha.lab.test 02:00:00:00:00:02); echo "  $line"
check "intruder's removal: A still there" 198.18.0.5 "$(ask A alpha.lab.test)"
line=$(run remove 198.18.0.5 alpha.lab.test 02:00:00:00:00:01); echo "  $line"
check "remove: forward" done "$(field "$line" forward)"
check "remove: reverse" done "$(field "$line" reverse)"
check "remove: no A" "" "$(ask A alpha.lab.test)"
check "remove: no DHCID" "" "$(ask DHCID alpha.lab.test)"
check "remove: no PTR" "" "$(ask -x 198.18.0.5)"
check "remove: no reverse DHCID" "" "$(ask DHCID 5.0.18.198.in-addr.arpa)"

# 5. over TCP (RFC 1035 §4.2.2 framing), as after a truncated answer.
line=$(run --tcp add 198.18.1.20 beta.lab.test 02:00:00:00:00:05); echo "  $line"
check "tcp: forward" done "$(field "$line" forward)"
check "tcp: A" 198.18.1.20 "$(ask A beta.lab.test)"
check "tcp: PTR" beta.lab.test. "$(ask -x 198.18.1.20)"

# 6. a key BIND does not know: BADKEY, reported at once, nothing written.
line=$(key=$dir/stranger.key run add 198.18.0.30 gamma.lab.test 02:00:00:00:00:06); echo "  $line"
check "unknown key: forward failed" failed "$(field "$line" forward)"
check "unknown key: cause" badkey "$(field "$line" cause)"
check "unknown key: nothing written" "" "$(ask A gamma.lab.test)"

# 7. the zones take signed updates only: an unsigned one (nsupdate without a key) is refused.
if command -v nsupdate >/dev/null; then
  refused=$(printf 'server 127.0.0.1 %s\nzone lab.test\nupdate add evil.lab.test 300 A 198.18.0.66\nsend\n' "$port" \
    | timeout 20 nsupdate -t 3 2>&1 || true)
  check "unsigned update refused" 1 "$(grep -c REFUSED <<<"$refused")"
  check "unsigned update: nothing written" "" "$(ask A evil.lab.test)"
fi

if ((failures > 0)); then
  echo "ddns_bind: $failures checks failed; named's log:"; tail -n 40 "$dir/named.log"
  exit 1
fi
echo "ddns_bind: all checks passed"
