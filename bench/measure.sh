# Sourced by bench/run: the measurements. Each takes the server's name, runs perfdhcp against
# the server started last (server_pid), and appends "server<TAB>metric<TAB>value" rows to
# $results_tsv; bench/run takes medians over the rounds. Figures are defined in bench/README.md.

record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results_tsv"; }

# cpu_us_per_dora TICKS_BEFORE TICKS_AFTER ACKS
cpu_us_per_dora() {
  awk -v a="$1" -v b="$2" -v n="$3" -v hz="$lab_clock_ticks_per_s" \
    'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n; else print "-" }'
}

# lost_pct SENT ACKS: share of DISCOVERs that never became an ACK.
lost_pct() { awk -v s="$1" -v a="$2" 'BEGIN { if (s > 0) printf "%.3f", (s - a) * 100 / s; else print "100" }'; }

# REQUEST->ACK latency, drops and CPU at a fixed offered load (default 1,000 DORA/s).
measure_latency() {
  local name=$1 out=$lab_dir/$1.$round.latency.txt
  local ticks_before ticks_after
  ticks_before=$(lab_cpu_ticks "$server_pid")
  perf_run "$out" $((period_s + 30)) -r "$latency_rate" -R "$perf_clients" -p "$period_s" -x t
  ticks_after=$(lab_cpu_ticks "$server_pid")
  local sent acks
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  local p50 p99 p999 max
  read -r p50 p99 p999 max < <(perf_latency_ms "$out")
  record "$name" latency_avg_ms "$(perf_stat "$out" REQUEST-ACK "avg delay")"
  record "$name" latency_p50_ms "$p50"
  record "$name" latency_p99_ms "$p99"
  record "$name" latency_p999_ms "$p999"
  record "$name" latency_max_ms "$max"
  record "$name" latency_lost "$((sent - acks))"
  record "$name" latency_cpu_us "$(cpu_us_per_dora "$ticks_before" "$ticks_after" "$acks")"
  lab_log "$name round $round: ${latency_rate}/s for ${period_s}s: $acks ACKs of $sent, REQUEST->ACK p50 $p50 p99 $p99 max $max ms"
}

# One saturation trial at RATE for trial_s seconds. Sets trial_verdict: pass (at most 1 % of
# exchanges lost), fail, or capped (no loss, but perfdhcp could not send at RATE: the client
# is the limit, not the server). Not perfdhcp -D: it counts exchanges still in flight as
# drops and aborts within milliseconds at any rate.
saturation_trial() {
  local name=$1 rate=$2 out=$lab_dir/$1.$round.trial-$2.txt
  perf_run "$out" $((trial_s + 30)) -r "$rate" -R "$perf_clients" -p "$trial_s"
  local sent acks lost
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  lost=$(lost_pct "${sent:-0}" "${acks:-0}")
  if awk -v l="$lost" 'BEGIN { exit !(l > 1) }'; then
    trial_verdict=fail
  elif ((sent * 100 < rate * trial_s * 95)); then
    trial_verdict=capped
  else
    trial_verdict=pass
  fi
  lab_log "$name round $round: trial ${rate}/s: sent $sent, ACKs $acks, lost $lost% -> $trial_verdict"
  # Let the server drain what a failed trial left queued before the next one starts.
  sleep 1
}

# The highest offered DORA rate with at most 1 % of exchanges lost: double from a start
# rate until a trial fails, then bisect to within 5 %; at most max_trials trials. Then one
# run of period_s at that rate measures DORA/s and CPU per DORA at saturation.
measure_saturation() {
  local name=$1 rate=$saturation_start_rate low=0 high=0 trials capped=0
  for ((trials = 0; trials < max_trials; trials++)); do
    saturation_trial "$name" "$rate"
    case "$trial_verdict" in
      pass) low=$rate ;;
      capped) low=$rate; capped=1; break ;;
      fail) high=$rate ;;
    esac
    if ((high == 0)); then
      rate=$((rate * 2))
      ((rate > saturation_max_rate)) && break
    else
      ((high - low <= low / 20 + 50)) && break
      rate=$(((low + high) / 2 / 50 * 50))
      ((rate <= low)) && break
    fi
  done
  if ((low == 0)); then
    lab_log "$name round $round: no trial passed, even at $rate/s"
    record "$name" saturation_dora_s 0
    return 0
  fi
  local out=$lab_dir/$name.$round.saturation.txt ticks_before ticks_after
  ticks_before=$(lab_cpu_ticks "$server_pid")
  perf_run "$out" $((period_s + 30)) -r "$low" -R "$perf_clients" -p "$period_s"
  ticks_after=$(lab_cpu_ticks "$server_pid")
  local sent acks
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  record "$name" saturation_offered_s "$low"
  record "$name" saturation_dora_s "$(awk -v a="$acks" -v p="$period_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" saturation_lost_pct "$(lost_pct "$sent" "$acks")"
  record "$name" saturation_cpu_us "$(cpu_us_per_dora "$ticks_before" "$ticks_after" "$acks")"
  record "$name" saturation_capped "$capped"
  lab_log "$name round $round: saturation ${low}/s offered$( ((capped)) && echo ' (perfdhcp-capped)'): $acks ACKs in ${period_s}s, lost $(lost_pct "$sent" "$acks")%"
}

# perfdhcp without -r: DISCOVERs as fast as it can send them, whatever is lost; ACKs per
# second is what the server completes while overloaded.
measure_flat_out() {
  local name=$1 out=$lab_dir/$1.$round.flat-out.txt ticks_before ticks_after
  ticks_before=$(lab_cpu_ticks "$server_pid")
  perf_run "$out" $((period_s + 30)) -R "$perf_clients" -p "$period_s"
  ticks_after=$(lab_cpu_ticks "$server_pid")
  local sent acks
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  record "$name" flat_out_dora_s "$(awk -v a="$acks" -v p="$period_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" flat_out_discover_s "$(awk -v a="$sent" -v p="$period_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" flat_out_cpu_us "$(cpu_us_per_dora "$ticks_before" "$ticks_after" "$acks")"
  lab_log "$name round $round: flat out: $sent DISCOVERs, $acks ACKs in ${period_s}s"
}

# Resident memory per lease: a fresh server, VmRSS after the warm-up, rss_leases distinct
# clients each completing one DORA, VmRSS again; the growth over the leases ACKed.
measure_rss() {
  local name=$1 out=$lab_dir/$1.$round.rss.txt rss_before rss_after leases
  rss_before=$(lab_rss_kib "$server_pid")
  perf_run "$out" $((rss_leases / rss_rate + 60)) -b mac=02:01:00:00:00:00 \
    -r "$rss_rate" -R "$rss_leases" -n "$rss_leases" -x l
  sleep 1
  rss_after=$(lab_rss_kib "$server_pid")
  leases=$(perf_unique_leases "$out")
  record "$name" rss_base_kib "$rss_before"
  record "$name" rss_leases "$leases"
  record "$name" rss_per_lease_b "$(awk -v a="$rss_before" -v b="$rss_after" -v n="$leases" \
    'BEGIN { if (n > 0) printf "%.0f", (b - a) * 1024 / n; else print "-" }')"
  lab_log "$name round $round: RSS ${rss_before} -> ${rss_after} KiB over $leases leases"
}

# Instructions per DORA under callgrind: the counters are zeroed after start-up and the
# warm-up, then callgrind_doras DISCOVERs go out at a rate the instrumented server keeps up
# with (perfdhcp -n N completes N - 1 of them), then callgrind dumps; Ir of that dump over the
# ACKs. Exchanges lost would inflate the figure, so the report lists them. Unlike wall-clock
# figures this one barely moves when the shared machine is busy.
measure_callgrind() {
  local name=$1 out=$lab_dir/$1.callgrind.txt
  callgrind_control -z "$server_pid" >/dev/null 2>&1
  perf_run "$out" $((callgrind_doras / callgrind_rate + 120)) -b mac=02:02:00:00:00:00 \
    -r "$callgrind_rate" -R "$callgrind_doras" -n "$callgrind_doras" -d 10
  sleep 2
  callgrind_control -d "$server_pid" >/dev/null 2>&1
  local dump instructions acks sent
  dump=$(ls -t "$server_dir"/callgrind.out.* 2>/dev/null | head -1)
  instructions=$(awk '/^(summary|totals):/ { print $2; exit }' "$dump")
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  record "$name" callgrind_dora "$acks"
  record "$name" callgrind_lost "$((sent - acks))"
  record "$name" instructions_per_dora "$(awk -v i="$instructions" -v n="$acks" \
    'BEGIN { if (n > 0) printf "%.0f", i / n; else print "-" }')"
  lab_log "$name: callgrind: $instructions instructions over $acks DORAs ($sent sent)"
}
