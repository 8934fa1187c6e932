#!/usr/bin/env bash
# Issue #4, a store landlord cannot use at start: a clear error on stderr and exit status 1 —
# not a crash (signal, sanitizer report) and not a server that runs without its leases.
# Cases: a file of random bytes, an SQLite database of another program, a landlord store of a
# newer schema version, a landlord store whose leases table was damaged, a landlord store cut
# short (issue #16: a truncated copy), a path in a missing directory. None of the files may
# change: landlord never "repairs" or overwrites a store it refused.
# Usage: crash_bad_store.sh path/to/landlord
set -euo pipefail
LANDLORD=${1:?usage: crash_bad_store.sh landlord}
TEST_NAME=crash_bad_store
source "$(dirname "$0")/crash_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell"; exit 77; }
PORT=$(free_udp_port) || fail "no free UDP port"

# A valid landlord store to derive damaged ones from: start once on an empty path, then stop.
write_config "$WORK/landlord.yaml" "$PORT" "$WORK/good.db" 20s "198.18.1.10-198.18.1.20"
start_server "$WORK/landlord.yaml"
stop_server || fail "landlord exited non-zero on SIGTERM"

head -c 65536 /dev/urandom >"$WORK/random.db"
sqlite3 -batch "$WORK/foreign.db" "CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL);"
cp "$WORK/good.db" "$WORK/newer.db"
sqlite3 -batch "$WORK/newer.db" "PRAGMA user_version = 99;"
cp "$WORK/good.db" "$WORK/damaged.db"
sqlite3 -batch "$WORK/damaged.db" "DROP TABLE leases; CREATE TABLE leases(address TEXT);"
# A store of 3000 leases (about 60 pages), cut to its first 40 KiB mid-page, as an interrupted
# copy leaves it: the schema page survives, most of the leases' b-tree does not.
cp "$WORK/good.db" "$WORK/full.db"
sqlite3 -batch "$WORK/full.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
  INSERT INTO leases (address, state, hwaddr, fencing_token, subnet_id, hwtype, granted_at_ms,
    lease_time_ms, renew_time_ms, rebind_time_ms, last_extension, client_key)
  SELECT '10.0.' || (i / 256) || '.' || (i % 256), 'bound', printf('02:00:00:00:%02x:%02x', i / 256, i % 256),
    1, 1, 1, 1800000000000, 600000, 300000, 525000, 'none',
    printf('hw1:02:00:00:00:%02x:%02x', i / 256, i % 256) FROM n;" ||
  fail "could not fill a store to truncate (schema changed?)"
head -c 40000 "$WORK/full.db" >"$WORK/truncated.db"

cases=0
# expect_refusal NAME PATH WORDS: landlord must exit 1 within 10 s, saying WORDS on stderr.
expect_refusal() {
  local name=$1 path=$2 words=$3 status=0 before=""
  [[ -f $path ]] && before=$(sha256sum <"$path")
  timeout 10 "$LANDLORD" --allow-root --config "$WORK/landlord.yaml" --store-path "$path" \
    >"$WORK/$name.log" 2>&1 || status=$?
  echo "$name: exit $status: $(grep -m1 -i "store" "$WORK/$name.log" || tail -1 "$WORK/$name.log")"
  [[ $status -eq 1 ]] || fail "$name: exit status $status, expected 1: $(cat "$WORK/$name.log")"
  grep -qi -- "$words" "$WORK/$name.log" || fail "$name: the error does not say '$words'"
  grep -q "$path" "$WORK/$name.log" || fail "$name: the error does not name the file"
  ! grep -q "AddressSanitizer\|runtime error:\|terminate called" "$WORK/$name.log" ||
    fail "$name: crashed"
  if [[ -n $before ]]; then
    [[ $(sha256sum <"$path") == "$before" ]] || fail "$name: the refused file was modified"
  fi
  cases=$((cases + 1))
}
expect_refusal random "$WORK/random.db" "not .*database\|corrupt"
expect_refusal foreign "$WORK/foreign.db" "not a landlord lease store"
expect_refusal newer "$WORK/newer.db" "newer"
expect_refusal damaged "$WORK/damaged.db" "leases\|column\|schema"
expect_refusal truncated "$WORK/truncated.db" "malformed\|corrupt\|truncated"
expect_refusal missing_dir "$WORK/no/such/dir/leases.db" "unable to open\|no such\|cannot open"

# The refused files are left as they were: landlord never "repairs" a store it does not own.
[[ $(sqlite3 -batch "$WORK/foreign.db" "SELECT name FROM sqlite_schema;") == invoices ]] ||
  fail "the foreign database was modified"
echo "RESULT bad_store_cases=$cases refused_with_exit_1=$cases crashes=0"
echo "PASS: every unusable store is a clear error and exit 1"
