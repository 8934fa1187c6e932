# Sourced by bench/run: the figures only landlord-sim can produce (issue #6). perfdhcp tops
# out near 29k DISCOVER/s on this box and reports no percentiles; landlord-sim plays whole
# RFC 2131 clients (L2 frames on the client end of the veth, ARP answered for the addresses
# they hold, RENEW unicast at T1) and reports percentiles and its own CPU.
#
# Every figure here runs against each selected server, so Kea's figures come from the same
# lab, load generator and run.

sim_bin=$repo_dir/build/release/tools/landlord-sim/landlord-sim
# The simulator's saturation trials are shorter than perfdhcp's (trial_s): every client of a
# trial is fresh, so rate x sim_trial_s must fit the pool, and 3 s trials would stop the search
# near 43k/s, below what landlord-sim and landlord reach together. Both servers get the same.
# BENCH_SIM_TRIAL_S=1 doubles the cap (129,800/s) for a quiet box where 2 s trials pass at it.
sim_trial_s=${BENCH_SIM_TRIAL_S:-2}
# ipv4_number A.B.C.D: the address as one integer.
ipv4_number() { local IFS=.; set -- $1; echo $((($1 << 24) + ($2 << 16) + ($3 << 8) + $4)); }
# The highest rate whose clients (plus the warm-up's one and a 1,000 margin) fit the pool,
# in steps of 50: 64,900/s for the lab's 130,810 addresses.
sim_pool_size=$(($(ipv4_number "$lab_pool_last") - $(ipv4_number "$lab_pool_first") + 1))
sim_max_rate=$(((sim_pool_size - 1000) / sim_trial_s / 50 * 50))
report_notes=()
sim_report_rows=(
  "sim_saturation_dora_s|landlord-sim: DORA/s at saturation (<=1% not bound)|landlord >= 5x Kea's perfdhcp figure|"
  "sim_saturation_capped|  saturation limited by landlord-sim (1 = yes)|||count"
  "sim_saturation_pool_capped|  passed at the pool's limit, a lower bound (1 = yes)|||count"
  "sim_saturation_request_ack_p99_ms|landlord-sim: REQUEST->ACK p99 ms at saturation||"
  "sim_packets_per_cpu_s|landlord-sim packets sent+received per CPU-s, top load|>= 3x perfdhcp's|"
  "closed_loop_dora_s|landlord-sim closed loop: sustainable DORA/s (2.5% miss 1 s)||"
  "closed_loop_at_limit|  the server's limit (1), or the pool's/steps' (0)|||count"
  "steady_clients|steady state: clients (lease 60 s, renew at T1)|||count"
  "steady_renewals|steady state: renewals ACKed|||count"
  "steady_timeouts|steady state: requests unanswered in time (drops)|0|l == 0|count"
  "steady_renew_unanswered|steady state: RENEWs started, never ACKed|0|l == 0|count"
  "steady_naks|steady state: NAKs|0|l == 0|count"
  "steady_renew_p50_ms|steady state: RENEW->ACK p50 ms||"
  "steady_renew_p99_ms|steady state: RENEW->ACK p99 ms|< 2 ms|l < 2"
  "steady_renew_max_ms|steady state: RENEW->ACK max ms||"
  "steady_violations|steady state: auditor violations|0|l == 0|count"
)

# json_number FILE KEY: the number after "KEY": in landlord-sim's JSON report (its keys are
# unique where we read them).
json_number() { grep -o "\"$2\": *-\?[0-9.]*" "$1" | head -1 | sed 's/.*: *//'; }
# json_latency FILE EXCHANGE FIELD: e.g. json_latency r.json request_ack p99; "-" when no
# exchange of that kind completed (the report then says 0, which is no latency at all).
json_latency() {
  local block
  block=$(grep -o "\"$2\": *{[^}]*}" "$1" | head -1)
  if [[ "$(grep -o '"count": *[0-9]*' <<<"$block" | grep -o '[0-9]*$')" == 0 ]]; then
    echo -
    return 0
  fi
  grep -o "\"$3\": *[0-9.]*" <<<"$block" | sed 's/.*: *//'
}

# sim_run REPORT TIMEOUT_S ARGS...: landlord-sim in L2 mode from the client namespace.
# Exit 1 means the auditor found violations: a finding for the report, not a harness failure.
sim_run() {
  local report=$1 limit_s=$2
  shift 2
  lab_prefix "$perf_cpu"
  local status=0
  ip netns exec "$lab_client_ns" timeout -k 5 "$limit_s" "${lab_prefix_command[@]}" \
    "$sim_bin" --interface "$lab_client_if" --report "$report" "$@" >"${report%.json}.txt" 2>&1 || status=$?
  if ((status != 0 && status != 1)) || [[ ! -s "$report" ]]; then
    lab_log "landlord-sim $* exited $status; see ${report%.json}.txt"
    tail -5 "${report%.json}.txt" >&2
    return 1
  fi
}

# One trial: a fresh server, RATE new clients per second for sim_trial_s seconds, then 2 s for
# the last ones to finish. Passes when at most 1 % of the clients did not get a lease;
# capped when landlord-sim could not keep its own schedule (its CPU seconds exceed 90 % of
# the arrival window: it is single-threaded); trial_sim_limited when it failed and landlord-sim
# itself dropped replies (its receive queue overflowed).
sim_trial() {
  local name=$1 rate=$2 report=$lab_dir/$1.sim-trial-$2.json clients=$(($2 * sim_trial_s))
  trial_sim_limited=0
  if ! server_start "$name"; then
    server_stop
    trial_verdict=fail
    return 0
  fi
  trial_packets_per_cpu_s=""
  sim_run "$report" $((sim_trial_s + 40)) --clients "$clients" --rate "$rate" \
    --duration "$((sim_trial_s + 2))s" --seed "$rate" || { server_stop; trial_verdict=fail; return 0; }
  server_stop
  trial_leases=$(json_number "$report" leases_acquired)
  trial_p99=$(json_latency "$report" request_ack p99)
  trial_packets_per_cpu_s=$(json_number "$report" per_cpu_second)
  local cpu_s
  cpu_s=$(json_number "$report" cpu_s)
  # Replies lost in landlord-sim's own full receive queue: the simulator's loss, not the server's.
  local sim_drops
  sim_drops=$(json_number "$report" receive_drops || true)
  if ((trial_leases * 100 < clients * 99)); then
    trial_verdict=fail
    if ((${sim_drops:-0} > 0)); then trial_sim_limited=1; fi
  elif awk -v c="$cpu_s" -v t="$sim_trial_s" 'BEGIN { exit !(c > 0.9 * t) }'; then
    trial_verdict=capped
  else
    trial_verdict=pass
  fi
  lab_log "$name: landlord-sim trial ${rate}/s: $trial_leases leases of $clients clients, REQUEST->ACK p99 $trial_p99 ms, sim ${cpu_s}s CPU, ${sim_drops:-?} replies lost in its receive queue -> $trial_verdict"
}

# Saturation with landlord-sim: the same doubling-then-bisection search as measure_saturation,
# except that a doubling past sim_max_rate tries sim_max_rate itself; when that passes, the
# figure is the pool's limit (a lower bound), not the server's.
sim_saturation() {
  local name=$1 rate=$saturation_start_rate low=0 high=0 trials capped=0 pool_capped=0
  local high_sim_limited=0
  local best_leases=0 best_p99=- top_rate=0 top_packets=-
  for ((trials = 0; trials < max_trials; trials++)); do
    trial_twice sim_trial "$name" "$rate"
    # A failure with replies lost in the simulator's own queue measured the simulator, not the
    # server: the search goes on below it, and the figure is capped if the lowest failing
    # rate failed that way.
    if [[ "$trial_verdict" == fail ]] && ((high == 0 || rate < high)); then
      high_sim_limited=$trial_sim_limited
    fi
    if [[ "$trial_verdict" != fail ]]; then
      low=$rate best_leases=$trial_leases best_p99=$trial_p99
    fi
    # The simulator's efficiency at the highest load it ran, like perfdhcp's flat out.
    if ((rate > top_rate)) && [[ -n "${trial_packets_per_cpu_s:-}" ]]; then
      top_rate=$rate top_packets=$trial_packets_per_cpu_s
    fi
    case "$trial_verdict" in
      capped) capped=1; break ;;
      fail) high=$rate ;;
    esac
    if ((high == 0)); then
      if ((rate >= sim_max_rate)); then
        pool_capped=1
        break
      fi
      rate=$((rate * 2 > sim_max_rate ? sim_max_rate : rate * 2))
    else
      ((high - low <= low / 20 + 50)) && break
      rate=$(((low + high) / 2 / 50 * 50))
      ((rate <= low)) && break
    fi
  done
  if ((high_sim_limited)); then capped=1; fi
  record "$name" sim_saturation_offered_s "$low"
  record "$name" sim_saturation_dora_s "$(awk -v a="$best_leases" -v p="$sim_trial_s" 'BEGIN { printf "%.0f", a / p }')"
  record "$name" sim_saturation_capped "$capped"
  record "$name" sim_saturation_pool_capped "$pool_capped"
  record "$name" sim_saturation_request_ack_p99_ms "$best_p99"
  record "$name" sim_packets_per_cpu_s "$top_packets"
  lab_log "$name: landlord-sim saturation ${low}/s in ${sim_trial_s}s trials$( ((capped)) && echo ' (landlord-sim-capped)')$( ((pool_capped)) && echo ' (the pool'"'"'s limit)')"
}

# Steady state: steady_clients clients arrive over a few seconds and then hold 60 s leases,
# renewing at T1 (30 s), for steady_duration_s; every RENEW must be ACKed, fast.
sim_steady_state() {
  local name=$1 report=$lab_dir/$1.steady.json saved_lease_time_s=$server_lease_time_s
  server_lease_time_s=60
  server_start "$name" || { server_lease_time_s=$saved_lease_time_s; return 1; }
  server_lease_time_s=$saved_lease_time_s
  sim_run "$report" $((steady_duration_s + 60)) --clients "$steady_clients" --rate "$steady_arrival_rate" \
    --duration "${steady_duration_s}s" --seed 60 || { server_stop; return 0; }
  server_stop
  record "$name" steady_clients "$steady_clients"
  record "$name" steady_leases "$(json_number "$report" leases_acquired)"
  record "$name" steady_renewals "$(grep -o '"renewals": *{"count": *[0-9]*' "$report" | grep -o '[0-9]*$')"
  record "$name" steady_timeouts "$(json_number "$report" timeouts)"
  # RENEWING retransmits only after 60 s (RFC 2131 §4.4.5), so an unanswered RENEW rarely
  # shows up as a timeout within the run: count renewals started but never ACKed instead.
  local renewals_block
  renewals_block=$(grep -o '"renewals": *{[^}]*}' "$report")
  record "$name" steady_renew_unanswered "$(awk -v b="$renewals_block" 'BEGIN {
    match(b, /"count": *[0-9]+/); c = substr(b, RSTART, RLENGTH); sub(/.*: */, "", c)
    match(b, /"started": *[0-9]+/); s = substr(b, RSTART, RLENGTH); sub(/.*: */, "", s)
    print s - c }')"
  record "$name" steady_naks "$(json_number "$report" naks)"
  record "$name" steady_renew_p50_ms "$(json_latency "$report" renew p50)"
  record "$name" steady_renew_p99_ms "$(json_latency "$report" renew p99)"
  record "$name" steady_renew_max_ms "$(json_latency "$report" renew max)"
  record "$name" steady_violations "$(json_number "$report" violation_count)"
  lab_log "$name: steady state: $(grep -E '^(clients|renewals|expirations|latency renew)' "${report%.json}.txt" | tr '\n' ';')"
}

# Closed loop (ISC's method, landlord-sim --closed-loop): fresh clients in 2 s steps from
# 1,000/s, x1.25 per step, until more than 2.5 % of OFFERs/ACKs miss a 1 s deadline; the
# sustainable rate is what the last passing step completed. --clients caps the fresh clients
# at the pool size, so the search stops (as a lower bound) before the pool could run dry.
sim_closed_loop() {
  local name=$1 report=$lab_dir/$1.closed-loop.json
  server_start "$name" || return 1
  sim_run "$report" 200 --closed-loop --rate 1000 --step 2s --duration 120s --clients 130000 \
    --seed 25 || { server_stop; return 1; }
  server_stop
  local stopped_by
  stopped_by=$(grep -o '"stopped_by": *"[^"]*"' "$report" | sed 's/.*: *"//; s/"$//')
  record "$name" closed_loop_dora_s "$(json_number "$report" sustainable_dora_per_s)"
  record "$name" closed_loop_at_limit "$([[ "$stopped_by" == miss-threshold ]] && echo 1 || echo 0)"
  lab_log "$name: closed loop: $(json_number "$report" sustainable_dora_per_s) DORA/s sustainable, stopped by $stopped_by"
}

sim_measure_all() {
  ((sim_enabled)) || return 0
  if [[ ! -x "$sim_bin" ]]; then
    report_notes+=("landlord-sim is not built ($sim_bin): simulator figures not measured")
    return 0
  fi
  local name
  round=sim
  for name in "${servers[@]}"; do
    step sim_saturation "$name"
    step sim_steady_state "$name"
    if grep -q -- '--closed-loop' "$repo_dir/tools/landlord-sim/main.cpp" 2>/dev/null; then
      step sim_closed_loop "$name"
    fi
  done
  local arp_failures
  arp_failures=$(cat "$lab_dir"/landlord.*/server.log 2>/dev/null | grep -c 'cannot add an ARP entry' || true)
  if ((arp_failures > 0)); then
    report_notes+=("landlord logged 'cannot add an ARP entry ... No buffer space available' ($arp_failures lines; it rate-limits them) (the kernel's neighbour table holds 1,024 entries per namespace by default, gc_thresh3): the replies it then broadcast instead never completed a DORA at landlord-sim, so landlord-sim figures for landlord stop near 1,022 clients per server start. Kea sends replies on a raw socket and needs no ARP entries")
  fi

}
