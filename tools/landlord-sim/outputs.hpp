#pragma once
// Where a run's results go: the JSON report, the timeline CSV (or CSV lines on stdout with
// --stats-every alone), and the HTML report. Every file is opened before the run, so a path
// that cannot be written stops it before it starts, not after.
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "landlord/base/expected.hpp"
#include "landlord/sim/fleet.hpp"
#include "landlord/sim/report.hpp"
#include "landlord/sim/timeline.hpp"
#include "settings.hpp"

namespace landlord::sim::cli {

class Outputs {
 public:
  static Expected<std::unique_ptr<Outputs>, std::string> open(const Settings& settings);

  // A timeline is kept when the run writes one or draws one.
  bool wants_timeline() const { return timeline_on_stdout_ || timeline_file_.is_open() || html_file_.is_open(); }
  bool timeline_on_stdout() const { return timeline_on_stdout_; }
  // One period's sample, written where it goes.
  void write_sample(const TimelineSample& sample);
  // After the run: the JSON and HTML reports. An error names the file.
  Expected<void, std::string> finish(const Fleet& fleet, const RunInfo& info,
                                     const Timeline* timeline);

 private:
  Outputs() = default;
  std::string report_path_, timeline_path_, html_path_;
  std::ofstream report_file_, timeline_file_, html_file_;
  bool timeline_on_stdout_ = false;
};

}  // namespace landlord::sim::cli
