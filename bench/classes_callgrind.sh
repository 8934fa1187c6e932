#!/usr/bin/env bash
# Instructions per DORA of the engine (both messages handled, both replies built to bytes),
# counted by callgrind in dora_exchange() only, for the plain configuration and for ten
# classes with options at every scope (bench/classes_bench.cpp). No network, no root.
# Usage: bench/classes_callgrind.sh [BUILD_DIR]   (default build/release; needs valgrind)
set -euo pipefail
build="${1:-build/release}"
bench="$build/bench/classes_bench"
[[ -x "$bench" ]] || { echo "no $bench: cmake --preset release && cmake --build --preset release --target classes_bench" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
work="$(mktemp -d /tmp/landlord-classes-callgrind.XXXXXX)"
trap 'rm -rf "$work"' EXIT
dora_count=20000  # the benchmarks' fixed iteration count
for case in BM_DoraPlain BM_DoraClasses; do
  timeout 600 valgrind --tool=callgrind --callgrind-out-file="$work/$case.out" \
    --collect-atstart=no --toggle-collect='*dora_exchange*' \
    "$bench" --benchmark_filter="^$case/" >"$work/$case.log" 2>&1 || { cat "$work/$case.log" >&2; exit 1; }
  total="$(awk '/^(summary|totals):/ { print $2; exit }' "$work/$case.out")"
  printf '%-16s %12s instructions in %d DORAs: %d per DORA\n' "$case" "$total" "$dora_count" \
    "$((total / dora_count))"
done
