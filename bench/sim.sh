# Sourced by bench/run: the figures only landlord-sim can produce (issue #6), driving
# landlord from the client namespace. perfdhcp tops out near 29k DISCOVER/s on this box and
# reports no percentiles; the simulator is the load generator for the rows below.

sim_bin=$repo_dir/build/release/tools/landlord-sim/landlord-sim
report_notes=()
sim_report_rows=()

sim_measure_all() {
  wants landlord || return 0
  if [[ ! -x "$sim_bin" ]]; then
    report_notes+=("landlord-sim is not built ($sim_bin): simulator figures (saturation, 100k-client steady state, closed loop) not measured")
    return 0
  fi
  report_notes+=("landlord-sim is built but bench/sim.sh does not drive it yet")
}
