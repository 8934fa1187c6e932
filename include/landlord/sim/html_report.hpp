#pragma once
// The report people look at (--html): one self-contained HTML file with inline SVG charts of
// the run over time (clients by state, renewals and rebinds, latencies, addresses held), the
// lease fraction at which renewals and rebinds happened with T1 and T2 marked, latency CDFs,
// the injected fault windows shaded, and every violation with the exchange that showed it.
// No script, no external style, font or image: it opens without a network.
#include <string>

#include "landlord/sim/fleet.hpp"
#include "landlord/sim/report.hpp"
#include "landlord/sim/timeline.hpp"

namespace landlord::sim {

std::string report_html(const Fleet& fleet, const RunInfo& info, const Timeline& timeline);

}  // namespace landlord::sim
