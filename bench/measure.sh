# Sourced by bench/run: the measurements. Each takes the server's name, runs perfdhcp against
# the server started last (server_pid), and appends "server<TAB>metric<TAB>value" rows to
# $results_tsv; bench/run takes medians over the rounds. Figures are defined in bench/README.md.

record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results_tsv"; }

# cpu_us_per_dora TICKS_BEFORE TICKS_AFTER ACKS
cpu_us_per_dora() {
  awk -v a="$1" -v b="$2" -v n="$3" -v hz="$lab_clock_ticks_per_s" \
    'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n; else print "-" }'
}

# sys_ticks PID: system (kernel) time alone, the 13th field after the command name, so the
# report can say how much of the CPU per DORA is the kernel's.
sys_ticks() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  awk '{ print $13 }' <<<"$stat"
}

# perfdhcp_socket_drops: replies the client namespace's kernel dropped because a UDP socket's
# receive buffer was full (/proc/net/snmp is per namespace; perfdhcp's socket is the only UDP
# receiver there). Non-zero means perfdhcp, not the server, lost those exchanges.
perfdhcp_socket_drops() {
  ip netns exec "$lab_client_ns" awk '/^Udp:/ { if (!column) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") column = i }
    else { print $column + 0; exit } }' /proc/net/snmp
}

# lost_pct SENT ACKS: share of DISCOVERs that never became an ACK.
lost_pct() { awk -v s="$1" -v a="$2" 'BEGIN { if (s > 0) printf "%.3f", (s - a) * 100 / s; else print "100" }'; }

# The steps bench/run takes per server, each on a fresh server.
latency_server() { server_start "$1" && measure_latency "$1" && server_stop; }
rss_server() { server_start "$1" && measure_rss "$1" && measure_restart "$1" && server_stop; }
callgrind_server() {
  server_start "$1" valgrind --tool=callgrind --callgrind-out-file="$lab_dir/$1.$((server_count + 1))/callgrind.out.%p" &&
    measure_callgrind "$1" && server_stop
}

# REQUEST->ACK latency, drops and CPU at a fixed offered load (default 1,000 DORA/s).
measure_latency() {
  local name=$1 out=$lab_dir/$1.$round.latency.txt
  local ticks_before ticks_after sys_before sys_after
  ticks_before=$(lab_cpu_ticks "$server_pid") sys_before=$(sys_ticks "$server_pid")
  perf_run "$out" $((period_s + 30)) -r "$latency_rate" -R "$perf_clients" -p "$period_s" -x t
  ticks_after=$(lab_cpu_ticks "$server_pid") sys_after=$(sys_ticks "$server_pid")
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
  record "$name" latency_sys_us "$(cpu_us_per_dora "$sys_before" "$sys_after" "$acks")"
  lab_log "$name round $round: ${latency_rate}/s for ${period_s}s: $acks ACKs of $sent, REQUEST->ACK p50 $p50 p99 $p99 max $max ms"
}

# One saturation trial: a fresh server (empty store), RATE DISCOVERs/s from clients it has
# never seen for trial_s seconds, so every trial is the same work, all allocations: a server
# that already knows a client only re-offers its address, which is cheaper, and would make a
# trial's verdict depend on the trials before it. Sets trial_verdict: pass (at most 1 % of
# exchanges lost), fail, or capped (no loss, but perfdhcp could not send at RATE: the client
# is the limit, not the server); trial_acks and trial_cpu_us for the record.
# Not perfdhcp -D: it counts exchanges still in flight as drops and aborts within
# milliseconds at any rate.
saturation_trial() {
  local name=$1 rate=$2 out=$lab_dir/$1.$round.trial-$2.txt
  if ! server_start "$name"; then
    server_stop
    trial_verdict=fail trial_acks=0 trial_cpu_us=- trial_sys_us=- trial_lost=100 trial_perf_drops=-
    return 0
  fi
  local ticks_before ticks_after sys_before sys_after drops_before
  ticks_before=$(lab_cpu_ticks "$server_pid") sys_before=$(sys_ticks "$server_pid")
  drops_before=$(perfdhcp_socket_drops)
  perf_run "$out" $((trial_s + 30)) -r "$rate" -R "$perf_clients" -p "$trial_s"
  ticks_after=$(lab_cpu_ticks "$server_pid") sys_after=$(sys_ticks "$server_pid")
  trial_perf_drops=$(($(perfdhcp_socket_drops) - drops_before))
  server_stop
  local sent lost
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  trial_acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  trial_cpu_us=$(cpu_us_per_dora "$ticks_before" "$ticks_after" "$trial_acks")
  trial_sys_us=$(cpu_us_per_dora "$sys_before" "$sys_after" "$trial_acks")
  lost=$(lost_pct "${sent:-0}" "${trial_acks:-0}")
  trial_lost=$lost
  if awk -v l="$lost" 'BEGIN { exit !(l > 1) }'; then
    trial_verdict=fail
  elif ((sent * 100 < rate * trial_s * 95)); then
    trial_verdict=capped
  else
    trial_verdict=pass
  fi
  lab_log "$name round $round: trial ${rate}/s: sent $sent, ACKs $trial_acks, lost $lost%, CPU $trial_cpu_us us/DORA, $trial_perf_drops replies dropped at perfdhcp's socket -> $trial_verdict"
}

# trial_twice TRIAL NAME RATE: a failed trial gets one more try. On this shared machine a
# 100 ms stall of the server behind another job loses a burst of exchanges; a rate counts as
# failed only when it fails twice running.
trial_twice() {
  "$@"
  if [[ "$trial_verdict" == fail ]]; then
    lab_log "$2 round $round: trial ${3}/s again"
    "$@"
  fi
}

# The highest offered DORA rate with at most 1 % of exchanges lost: double from a start
# rate until a rate fails (twice), then bisect to within 5 %; at most max_trials rates. The best
# passing trial gives DORA/s (its ACKs / trial_s) and CPU per DORA at saturation.
measure_saturation() {
  local name=$1 rate=$saturation_start_rate low=0 high=0 trials capped=0
  local best_acks=0 best_cpu_us=- best_sys_us=- best_lost=- best_perf_drops=-
  for ((trials = 0; trials < max_trials; trials++)); do
    trial_twice saturation_trial "$name" "$rate"
    if [[ "$trial_verdict" != fail ]]; then
      low=$rate best_acks=$trial_acks best_cpu_us=$trial_cpu_us best_sys_us=$trial_sys_us best_lost=$trial_lost best_perf_drops=$trial_perf_drops
    fi
    case "$trial_verdict" in
      capped) capped=1; break ;;
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
  record "$name" saturation_offered_s "$low"
  record "$name" saturation_dora_s "$(awk -v a="$best_acks" -v p="$trial_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" saturation_lost_pct "$best_lost"
  record "$name" saturation_cpu_us "$best_cpu_us"
  record "$name" saturation_sys_us "$best_sys_us"
  record "$name" saturation_perfdhcp_drops "$best_perf_drops"
  record "$name" saturation_capped "$capped"
  lab_log "$name round $round: saturation ${low}/s offered$( ((capped)) && echo ' (perfdhcp-capped)'), $best_acks ACKs in ${trial_s}s, CPU $best_cpu_us us/DORA"
}

# perfdhcp without -r, against a fresh server: DISCOVERs as fast as perfdhcp can send them
# for trial_s seconds, whatever is lost; ACKs per second is what the server completes while
# overloaded.
measure_flat_out() {
  local name=$1 out=$lab_dir/$1.$round.flat-out.txt ticks_before ticks_after sys_before sys_after drops_before
  server_start "$name" || return 1
  ticks_before=$(lab_cpu_ticks "$server_pid") sys_before=$(sys_ticks "$server_pid")
  drops_before=$(perfdhcp_socket_drops)
  perf_run "$out" $((trial_s + 30)) -R "$perf_clients" -p "$trial_s"
  ticks_after=$(lab_cpu_ticks "$server_pid") sys_after=$(sys_ticks "$server_pid")
  record "$name" flat_out_perfdhcp_drops "$(($(perfdhcp_socket_drops) - drops_before))"
  server_stop
  local sent acks
  sent=$(perf_stat "$out" DISCOVER-OFFER "sent packets")
  acks=$(perf_stat "$out" REQUEST-ACK "received packets")
  record "$name" flat_out_dora_s "$(awk -v a="$acks" -v p="$trial_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" flat_out_discover_s "$(awk -v a="$sent" -v p="$trial_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" flat_out_cpu_us "$(cpu_us_per_dora "$ticks_before" "$ticks_after" "$acks")"
  record "$name" flat_out_sys_us "$(cpu_us_per_dora "$sys_before" "$sys_after" "$acks")"
  record "$name" perfdhcp_packets_per_cpu_s "$(awk -v p="$(perf_packets "$out")" -v c="$perf_cpu_s" \
    'BEGIN { if (c > 0) printf "%.0f", p / c; else print "-" }')"
  lab_log "$name round $round: flat out: $sent DISCOVERs, $acks ACKs in ${trial_s}s"
}

# The transport floor at another server's load: one trial of the null responder (a fresh one)
# at the rate SERVER passed at saturation in this round, so that "SERVER's CPU per DORA minus
# the floor" compares like with like (the cost per DORA falls as the rate rises).
measure_floor_at_rate() {
  local server=$1 rate
  rate=$(awk -F'\t' -v s="$server" '$1 == s && $2 == "saturation_offered_s" { r = $3 } END { print r + 0 }' "$results_tsv")
  ((rate > 0)) || return 0
  saturation_trial null "$rate"
  record null "floor_at_${server}_rate_cpu_us" "$trial_cpu_us"
  record null "floor_at_${server}_rate_sys_us" "$trial_sys_us"
  record null "floor_at_${server}_rate_lost_pct" "$trial_lost"
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

# Start-up with a full store: stop the server measure_rss loaded, start it again on the same
# store, and time from exec until the first OFFER perfdhcp sees. Probes are perfdhcp runs of
# two DISCOVERs, so the figure includes perfdhcp's own start (about 30 ms, see README).
measure_restart() {
  local name=$1 out=$lab_dir/$1.$round.restart.txt started_ns ready_ns probes
  server_stop
  started_ns=$(date +%s%N)
  server_launch "$name"
  if ! lab_wait_udp67 "$server_pid" "$server_ready_timeout_s"; then
    lab_log "$name did not restart within ${server_ready_timeout_s}s"
    return 0
  fi
  # At most 200 probes and 30 s.
  local offered=0
  for ((probes = 0; probes < 200 && $(date +%s%N) - started_ns < 30000000000; probes++)); do
    perf_run "$out" 10 -b mac=02:00:00:ff:ff:02 -R 1 -n 2 -r 100 || true
    (("$(perf_stat "$out" DISCOVER-OFFER "received packets")" >= 1)) && offered=1 && break
  done
  ready_ns=$(date +%s%N)
  if ((!offered)); then
    lab_log "$name round $round: no OFFER within 30 s of a restart"
    return 1
  fi
  record "$name" restart_ms "$(((ready_ns - started_ns) / 1000000))"
  lab_log "$name round $round: restart with its leases: first OFFER after $(((ready_ns - started_ns) / 1000000)) ms, $probes failed probes"
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
  # Where the instructions go: the top functions. Frames already on the stack when the
  # counters were zeroed (thread entry, main, the event loop) show inclusive counts; they say
  # nothing about cost, so they are left out.
  callgrind_annotate --auto=no --threshold=100 "$dump" 2>/dev/null |
    awk '/^-+$/ { dashes++; next } dashes >= 4 && NF > 1' |
    grep -Ev 'clone\.S|start_thread|libc_start|below main|:main |_M_run\(\)|server::run\(|\?\?\?:0x' |
    head -12 | sed 's/ \[[^]]*\]$//' | cut -c1-150 >"$lab_dir/$name.callgrind-top.txt" || true
  lab_log "$name: callgrind: $instructions instructions over $acks DORAs ($sent sent)"
}
