# Sourced by bench/run: the report. Medians over rounds of every figure in $results_tsv, side
# by side, the ratio landlord/Kea, and issue #6's target for the figure where it has one.

# median SERVER METRIC: median of the rounds' numeric values ("-" when there are none).
median() {
  awk -F'\t' -v s="$1" -v m="$2" '$1 == s && $2 == m && $3 ~ /^-?[0-9.]+$/ { print $3 }' "$results_tsv" |
    sort -g | awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "-"; exit }
      if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# each_round SERVER METRIC: the rounds' values, comma separated.
each_round() {
  awk -F'\t' -v s="$1" -v m="$2" '$1 == s && $2 == m { printf "%s%s", (n++ ? "," : ""), $3 }' "$results_tsv"
}

# The rows: metric | label | target (text) | check, an awk condition on k (Kea), l
# (landlord) and r (= l / k) that says whether landlord meets the target | "count" for rows
# where a ratio means nothing.
report_rows=(
  "saturation_dora_s|DORA/s at saturation (perfdhcp, <=1% lost)|>= 2x Kea|r >= 2"
  "saturation_capped|  saturation limited by perfdhcp, not server (1 = yes)|||count"
  "saturation_cpu_us|server CPU us per DORA, at saturation|<= 1/10 Kea|r <= 0.1"
  "saturation_sys_us|  of which kernel (stime), at saturation||"
  "saturation_perfdhcp_drops|  replies dropped at perfdhcp's socket, best trial|||count"
  "flat_out_dora_s|DORA/s flat out (perfdhcp without -r)||"
  "flat_out_cpu_us|server CPU us per DORA, flat out||"
  "flat_out_sys_us|  of which kernel (stime), flat out||"
  "flat_out_perfdhcp_drops|  replies dropped at perfdhcp's socket, flat out|||count"
  "latency_cpu_us|server CPU us per DORA, at ${latency_rate}/s||"
  "latency_sys_us|  of which kernel (stime), at ${latency_rate}/s||"
  "latency_avg_ms|REQUEST->ACK avg ms at ${latency_rate}/s||"
  "latency_p50_ms|REQUEST->ACK p50 ms at ${latency_rate}/s||"
  "latency_p99_ms|REQUEST->ACK p99 ms at ${latency_rate}/s|< 2 ms|l < 2"
  "latency_p999_ms|REQUEST->ACK p99.9 ms at ${latency_rate}/s||"
  "latency_max_ms|REQUEST->ACK max ms at ${latency_rate}/s||"
  "latency_lost|exchanges lost at ${latency_rate}/s|0|l == 0|count"
  "rss_per_lease_b|RSS bytes per lease, ~50k leases (target: at 1 M, below)||"
  "rss_leases|leases loaded for the RSS figure|||count"
  "rss_base_kib|RSS KiB after start-up, empty store||"
  "restart_ms|ms from exec to first OFFER, ~50k leases (1 M: below)||"
  "instructions_per_dora|instructions per DORA (callgrind)||"
  "callgrind_lost|exchanges lost under callgrind|||count"
  "load_1min|machine's 1-min load average as a round began|||count"
  "perfdhcp_packets_per_cpu_s|perfdhcp packets sent+received per CPU-s, flat out|||count"
)
report_rows+=(${sim_report_rows[@]+"${sim_report_rows[@]}"})
report_rows+=(${million_report_rows[@]+"${million_report_rows[@]}"})

report_print() {
  echo "landlord vs ISC Kea -- bench/run (issue #6)"
  echo "started   $started_at, finished $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "command   $command_line"
  echo "commit    $(git -C "$repo_dir" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$repo_dir" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "machine   $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r)"
  echo "load      1/5/15-min load average $load_at_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end (shared machine)"
  echo "kea       $(kea-dhcp4 -v 2>/dev/null), memfile (CSV, not fsync'ed), single-threaded; perfdhcp $(perfdhcp -v 2>&1 | head -1)"
  echo "landlord  $landlord_bin, SQLite store (WAL, group commit)"
  [[ "$(median null saturation_cpu_us)" != - ]] && echo "floor     $null_bin (no DHCP work: the transport floor)"
  echo "pinning   server on CPU $server_cpu, perfdhcp on CPU $perf_cpu (\"-\" = not pinned)"
  echo "rounds    $rounds per server (fresh server each), ${period_s}s per measured run, saturation trials ${trial_s}s"
  echo "          figures are medians over rounds; each round's values are listed under the table"
  echo
  printf '%-48s %12s %12s %10s  %s\n' "figure" "kea" "landlord" "ll/kea" "target (landlord)"
  printf '%-48s %12s %12s %10s  %s\n' "------" "---" "--------" "------" "-----------------"
  local row metric label target check kind k l r verdict
  for row in "${report_rows[@]}"; do
    IFS='|' read -r metric label target check kind <<<"$row"
    k=$(median kea "$metric")
    l=$(median landlord "$metric")
    [[ "$k" == - && "$l" == - ]] && continue
    r=-
    if [[ "$kind" != count ]]; then
      r=$(awk -v k="$k" -v l="$l" 'BEGIN { if (k + 0 > 0 && l != "-") printf "%.3g", l / k; else print "-" }')
    fi
    verdict=""
    if [[ -n "$check" && "$l" != - ]]; then
      if [[ "$check" == *r* && "$r" == - ]]; then
        verdict=""
      elif awk -v k="$k" -v l="$l" -v r="$r" "BEGIN { exit !($check) }"; then
        verdict=" (met)"
      else
        verdict=" (NOT met)"
      fi
    fi
    printf '%-48s %12s %12s %10s  %s%s\n' "$label" "$k" "$l" "$r" "$target" "$verdict"
  done
  report_derived
  report_floor
  echo
  echo "per round (kea | landlord):"
  for row in "${report_rows[@]}"; do
    IFS='|' read -r metric label target check kind <<<"$row"
    k=$(each_round kea "$metric")
    l=$(each_round landlord "$metric")
    [[ -z "$k" && -z "$l" ]] && continue
    printf '  %-24s %s | %s\n' "$metric" "${k:--}" "${l:--}"
  done
  local floor_metrics
  floor_metrics=$(awk -F'\t' '$1 == "null" && !seen[$2]++ { print $2 }' "$results_tsv")
  if [[ -n "$floor_metrics" ]]; then
    echo "per round (transport floor, null):"
    for metric in $floor_metrics; do
      printf '  %-24s %s\n' "$metric" "$(each_round null "$metric")"
    done
  fi
  local top
  for top in "$lab_dir"/*.callgrind-top.txt; do
    [[ -s "$top" ]] || continue
    echo
    echo "callgrind, $(basename "$top" .callgrind-top.txt): the functions with the most instructions of their own"
    sed 's/^/  /' "$top"
  done
  local note
  for note in ${report_notes[@]+"${report_notes[@]}"}; do
    echo "note: $note"
  done
}

# Issue #6's cross figures: landlord-sim against landlord over perfdhcp against Kea, and the
# simulator's packets per CPU-second over perfdhcp's (both against landlord).
report_derived() {
  local sim_sat kea_sat sim_pps perf_pps
  sim_sat=$(median landlord sim_saturation_dora_s)
  kea_sat=$(median kea saturation_dora_s)
  # Each load generator at its most efficient: the higher of its figures against either server.
  sim_pps=$(printf '%s\n' "$(median landlord sim_packets_per_cpu_s)" "$(median kea sim_packets_per_cpu_s)" |
    { grep -v '^-$' || true; } | sort -g | tail -1)
  perf_pps=$(printf '%s\n' "$(median landlord perfdhcp_packets_per_cpu_s)" "$(median kea perfdhcp_packets_per_cpu_s)" |
    { grep -v '^-$' || true; } | sort -g | tail -1)
  sim_pps=${sim_pps:--} perf_pps=${perf_pps:--}
  if [[ "$sim_sat" != - && "$kea_sat" != - ]]; then
    awk -v s="$sim_sat" -v k="$kea_sat" 'BEGIN { if (k > 0) printf "%-48s %12s %12s %10.3g  >= 5%s\n", \
      "DORA/s: perfdhcp on Kea, landlord-sim on ll", k, s, s / k, (s / k >= 5 ? " (met)" : " (NOT met)") }'
  fi
  if [[ "$sim_pps" != - && "$perf_pps" != - ]]; then
    awk -v s="$sim_pps" -v p="$perf_pps" 'BEGIN { if (p > 0) printf "%-48s %12s %12s %10.3g  >= 3%s\n", \
      "packets/CPU-s, best of both servers: perfdhcp, sim", p, s, s / p, (s / p >= 3 ? " (met)" : " (NOT met)") }'
  fi
}

# The transport floor: bench/null_responder (recvmmsg in, the request's bytes patched into a
# reply, sendmmsg out; no DHCP work) under the same perfdhcp loads. Its CPU per DORA is what
# the kernel and the socket calls cost any server here; "minus floor" is what is left for the
# server's own work. The fair floor for a server is the one at that server's saturation rate
# (the cost per DORA falls as the rate rises), measured in the same round.
report_floor() {
  local f_sat
  f_sat=$(median null saturation_cpu_us)
  [[ "$f_sat" == - && "$(median null latency_cpu_us)" == - ]] && return 0
  echo
  echo "transport floor: bench/null_responder, a server that does no DHCP work (same perfdhcp loads)"
  local row metric label
  for row in \
    "saturation_dora_s|DORA/s at saturation (null responder)" \
    "saturation_capped|  saturation limited by perfdhcp (1 = yes)" \
    "saturation_cpu_us|transport floor: server CPU us per DORA, at saturation" \
    "saturation_sys_us|  of which kernel (stime)" \
    "saturation_perfdhcp_drops|  replies dropped at perfdhcp's socket, best trial" \
    "flat_out_dora_s|DORA/s flat out (null responder)" \
    "flat_out_cpu_us|transport floor: server CPU us per DORA, flat out" \
    "flat_out_sys_us|  of which kernel (stime)" \
    "flat_out_perfdhcp_drops|  replies dropped at perfdhcp's socket" \
    "latency_cpu_us|transport floor: server CPU us per DORA, at ${latency_rate}/s" \
    "latency_sys_us|  of which kernel (stime)"; do
    IFS='|' read -r metric label <<<"$row"
    printf '%-60s %12s\n' "$label" "$(median null "$metric")"
  done
  local name floor_here own
  for name in kea landlord; do
    floor_here=$(median null "floor_at_${name}_rate_cpu_us")
    own=$(median "$name" saturation_cpu_us)
    [[ "$floor_here" == - ]] && continue
    printf '%-60s %12s\n' "transport floor at $name's saturation rate: CPU us per DORA" "$floor_here"
    printf '%-60s %12s\n' "  of which kernel (stime)" "$(median null "floor_at_${name}_rate_sys_us")"
    [[ "$own" == - ]] && continue
    awk -v o="$own" -v f="$floor_here" -v n="$name" 'BEGIN { printf "%-60s %12.1f\n", \
      n " CPU us per DORA at saturation minus that floor", o - f }'
  done
  local k_sat k_floor l_sat l_floor
  k_sat=$(median kea saturation_cpu_us) k_floor=$(median null floor_at_kea_rate_cpu_us)
  l_sat=$(median landlord saturation_cpu_us) l_floor=$(median null floor_at_landlord_rate_cpu_us)
  if [[ "$k_sat" != - && "$k_floor" != - ]]; then
    awk -v k="$k_sat" -v f="$k_floor" 'BEGIN { if (k > 0) printf "%-60s %12.3g  (issue #6 allows landlord 0.1)\n", \
      "floor at Kea's rate / Kea's CPU per DORA at saturation", f / k }'
  fi
  if [[ "$k_sat" != - && "$k_floor" != - && "$l_sat" != - && "$l_floor" != - ]]; then
    awk -v k="$k_sat" -v kf="$k_floor" -v l="$l_sat" -v lf="$l_floor" 'BEGIN { if (k - kf > 0) \
      printf "%-60s %12.3g\n", "(landlord - its floor) / (Kea - its floor), at saturation", (l - lf) / (k - kf) }'
  fi
}

# The Google Benchmark micro-benchmarks, if any are built (owned by their modules).
micro_run() {
  local binary found=0
  for binary in "$repo_dir"/build/release/bench/*_bench; do
    [[ -x "$binary" ]] || continue
    found=1
    echo
    echo "== $(basename "$binary")"
    timeout 300 "$binary" --benchmark_min_time=0.2 2>&1 || echo "(exited $?)"
  done
  ((found)) || echo "(no micro-benchmarks in build/release/bench/)"
}
